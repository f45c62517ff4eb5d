/**
 * `on_failure: "deny"` in the real sandbox, for the three ways a gate fails open (test/support/probe-gates.ts: a
 * crash on text beyond Latin-1, a timeout on a long script, a note printed before the decision): the
 * wrapped gate denies those calls, naming the failure, and keeps its own decisions on ordinary calls —
 * through `genv hooks test --strict`, and through an emulator environment's `:executeTool` with the
 * sources a `HookBundle` makes; the same gates without the option still allow those calls. The probe
 * of the wrapped config finds nothing that fails open and counts what failed closed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runHooksDiff } from "../../../cli/commands/hooks-diff";
import { runHooksProbe } from "../../../cli/commands/hooks-probe";
import { runHooksTest } from "../../../cli/commands/hooks-test";
import { command, group } from "../../../hooks/builders";
import { HookBundle } from "../../../provider/components/hook-bundle";
import { startTestEmulator, type TestEmulator } from "../../support/emulator";
import { FAIL_OPEN_CALLS as FAILING, ORDINARY_CALLS as ORDINARY, PROBE_HOOKS, PROBE_SCRIPTS, writeAgentsDir } from "../../support/probe-gates";

const scratch = mkdtempSync(path.join(os.tmpdir(), "genv-on-failure-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const GATES = { crashy: PROBE_HOOKS.crashy, slow: PROBE_HOOKS.slow, chatty: PROBE_HOOKS.chatty };
const SCRIPTS = { "crashy.py": PROBE_SCRIPTS["crashy.py"], "slow.py": PROBE_SCRIPTS["slow.py"], "chatty.py": PROBE_SCRIPTS["chatty.py"] };

/** The three gates with every handler's on_failure set (or left out), laid out like `.agents/`. */
function agentsDir(name: string, onFailure?: "deny"): { hooksFile: string; scriptsDir: string } {
  const hooks = structuredClone(GATES) as Record<string, { pre_tool_execution: Array<{ hooks: Array<Record<string, unknown>> }> }>;
  if (onFailure) for (const gate of Object.values(hooks)) for (const rule of gate.pre_tool_execution) for (const handler of rule.hooks) handler.on_failure = onFailure;
  const dir = path.join(scratch, name);
  return { hooksFile: writeAgentsDir(dir, hooks, SCRIPTS), scriptsDir: path.join(dir, "hooks-scripts") };
}

function casesFile(name: string, cases: unknown[]): string {
  const file = path.join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify(cases));
  return file;
}

describe("genv hooks test --strict", () => {
  test("the wrapped gates deny each failing call, naming the failure, and keep their own decisions", async () => {
    const cases = [...FAILING.map(({ name, tool_call, failure }) => ({ name, tool_call, expect: "deny", reason: failure })), ...ORDINARY];
    const { outcomes, exitCode } = await runHooksTest({ ...agentsDir("deny", "deny"), casesFile: casesFile("deny-cases", cases), strict: true });
    expect(outcomes.map((outcome) => [outcome.name, outcome.verdict.decision, outcome.mismatch])).toEqual(cases.map((testCase) => [testCase.name, testCase.expect, undefined]));
    expect(exitCode).toBe(0);
    const crash = outcomes[0].verdict;
    expect(crash.reason).toBe("Denied: the hook `python3 /.agents/hooks-scripts/crashy.py` crashed with exit 1 (on_failure: deny).");
    // The wrapper answered: the runtime saw a decision, not a failure.
    expect(crash.hooks.find((run) => run.group === "crashy")).toMatchObject({ decision: "deny" });
    expect(crash.hooks.every((run) => run.failure === undefined)).toBe(true);
  }, 60_000);

  test("the same gates without on_failure allow the failing calls, as the seed says", async () => {
    const cases = FAILING.map(({ name, tool_call }) => ({ name, tool_call, expect: "allow" }));
    const { outcomes, exitCode } = await runHooksTest({ ...agentsDir("bare"), casesFile: casesFile("bare-cases", cases) });
    expect(outcomes.map((outcome) => [outcome.name, outcome.verdict.decision, outcome.mismatch])).toEqual(cases.map((testCase) => [testCase.name, "allow", undefined]));
    expect(outcomes.map((outcome) => outcome.verdict.hooks.some((run) => run.failure !== undefined))).toEqual([true, true, true]);
    expect(exitCode).toBe(0);
  }, 60_000);
});

test("genv hooks diff lists the change of on_failure as a policy change, and the replay judges it: the failing calls flip to deny, the others do not", async () => {
  const [base, head] = [agentsDir("diff-base"), agentsDir("diff-head", "deny")];
  const callsFile = path.join(scratch, "calls.jsonl");
  writeFileSync(callsFile, [...FAILING, ...ORDINARY].map(({ tool_call }) => JSON.stringify({ tool_call, environment_id: "env_1" })).join("\n"));
  const diff = await runHooksDiff({ base: path.dirname(base.hooksFile), head: path.dirname(head.hooksFile), callsFile, format: "text" });
  expect(diff.onFailure.map((change) => [change.group, change.handler, change.base, change.head])).toEqual([
    ["crashy", "command: python3 /.agents/hooks-scripts/crashy.py", "allow", "deny"],
    ["slow", "command: python3 /.agents/hooks-scripts/slow.py", "allow", "deny"],
    ["chatty", "command: python3 /.agents/hooks-scripts/chatty.py", "allow", "deny"],
  ]);
  expect(diff.output).toContain("POLICY  crashy  pre_tool_execution  command: python3 /.agents/hooks-scripts/crashy.py: on_failure allow (fails open) → deny (fails closed)");
  expect(diff.calls?.summary).toMatchObject({ total: FAILING.length + ORDINARY.length, allowToDeny: FAILING.length, denyToAllow: 0, errors: 0 });
}, 60_000);

describe("an emulator environment with a HookBundle's sources (executeTool)", () => {
  let emulator: TestEmulator;
  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(() => emulator.close());

  async function environment(bundle: HookBundle): Promise<string> {
    const created = await emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ sources: bundle.sources }) });
    expect(created.status).toBe(200);
    return created.body.id;
  }
  const executeTool = (id: string, toolCall: unknown) => emulator.json(`/v1beta/environments/${id}:executeTool`, { method: "POST", body: JSON.stringify({ tool_call: toolCall }) });
  const scripts = Object.fromEntries(Object.entries(SCRIPTS).map(([name, content]) => [name, { content }]));
  const gates = (onFailure?: "deny") => ({
    // One handler sets its own; the others take the bundle-wide default.
    crashy: group().before("code_execution", command("python3 /.agents/hooks-scripts/crashy.py", { timeout: 10, onFailure })),
    slow: GATES.slow,
    chatty: GATES.chatty,
  });

  test("the wrapped gates deny the failing calls, which never run, and keep their own decisions", async () => {
    const bundle = new HookBundle({ hooks: gates("deny"), scripts, onFailure: "deny" });
    expect(bundle.hooksJson).not.toContain("on_failure");
    const id = await environment(bundle);
    for (const { tool_call, failure } of FAILING) {
      const { status, body } = await executeTool(id, tool_call);
      expect(status).toBe(200);
      expect(body).toMatchObject({ decision: "deny" });
      expect(body.error).toContain(failure);
      expect(body.exit_code).toBeUndefined();
    }
    for (const { tool_call, expect: decision, reason } of ORDINARY) {
      const { body } = await executeTool(id, tool_call);
      expect([tool_call, body.decision, reason === undefined || String(body.reason).includes(reason)]).toEqual([tool_call, decision, true]);
    }
  }, 90_000);

  test("the same gates without on_failure let the failing calls run", async () => {
    const id = await environment(new HookBundle({ hooks: gates(), scripts }));
    for (const { tool_call } of FAILING) {
      const { body } = await executeTool(id, tool_call);
      expect([tool_call.args, body.decision]).toEqual([tool_call.args, "allow"]);
      expect(body.hooks.some((run: { failure?: string }) => run.failure !== undefined)).toBe(true);
    }
  }, 90_000);
});

test("the probe of the wrapped gates finds nothing failing open, counts what failed closed, and passes --fail-on fail-open", async () => {
  const { report, exitCode, output } = await runHooksProbe({ ...agentsDir("probe", "deny"), failOn: "fail-open" });
  expect(report.findings).toEqual([]);
  expect(exitCode).toBe(0);
  const closed = report.failsClosed.map((entry) => [entry.group, entry.tool, entry.outcome]).sort();
  expect(closed).toEqual([
    ["chatty", "list_dir", "unrecognized-output"],
    ["chatty", "view_file", "unrecognized-output"],
    ["crashy", "code_execution", "crash"],
    ["slow", "code_execution", "timeout"],
  ]);
  expect(report.summary.failsClosed.crash).toBeGreaterThanOrEqual(4);
  expect(output).toMatch(/0 fail-open findings.*; \d+ payloads failed closed \(on_failure deny: \d+ crash, \d+ timeout, \d+ unrecognized output\)/);
}, 180_000);
