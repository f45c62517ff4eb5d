/**
 * `genv hooks probe` in the real sandbox: three gates that fail open each their own way (a crash on
 * text beyond Latin-1, a timeout on a long script, a note printed before the decision for an odd file
 * name) are found, each with the smallest payload of its kind, and the gate that never fails open
 * has no finding; each reported payload, written as a case, fails `genv hooks test --strict`; the
 * linter's rejection, HTTP handlers, recorded calls and the exit codes through the real CLI.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runHooksProbe } from "../../../cli/commands/hooks-probe";
import { runHooksTest } from "../../../cli/commands/hooks-test";
import { buildProgram, runProgram } from "../../../cli/main";
import { probeCorpus } from "../../../hooks/probe/corpus";
import type { ProbeReport } from "../../../hooks/probe/run";
import { PROBE_HOOKS, PROBE_SCRIPTS, writeAgentsDir } from "../../support/probe-gates";

const scratch = mkdtempSync(path.join(os.tmpdir(), "genv-hooks-probe-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const agentsDir = (hooks: unknown, scripts: Record<string, string>) => {
  const dir = path.join(scratch, `agents-${++dirs}`);
  return { hooksFile: writeAgentsDir(dir, hooks, scripts), scriptsDir: path.join(dir, "hooks-scripts") };
};

let four: { report: ProbeReport; exitCode: number; output: string; hooks: { hooksFile: string; scriptsDir: string } };
beforeAll(async () => {
  const hooks = agentsDir(PROBE_HOOKS, PROBE_SCRIPTS);
  const result = await runHooksProbe({ ...hooks, format: "json", failOn: "fail-open" });
  four = { ...result, hooks };
}, 120_000);

test("the three gates that fail open are found, each its own way, and the robust gate has no finding", () => {
  const { report } = four;
  const found = report.findings.map((finding) => [finding.group, finding.tool, finding.outcome]).sort();
  expect(found).toEqual([
    ["chatty", "list_dir", "unrecognized-output"],
    ["chatty", "view_file", "unrecognized-output"],
    ["crashy", "code_execution", "crash"],
    ["slow", "code_execution", "timeout"],
  ]);
  expect(report.findings.filter((finding) => finding.group === "robust")).toEqual([]);
  expect(report.errors).toEqual([]);
  expect(four.exitCode).toBe(1);

  const crash = report.findings.find((finding) => finding.group === "crashy")!;
  expect(crash).toMatchObject({ event: "pre_tool_execution", handler: "command: python3 /.agents/hooks-scripts/crashy.py", detail: { exitStatus: 1 } });
  expect((crash.detail as { stderrTail: string }).stderrTail).toMatch(/UnicodeEncodeError: 'latin-1' codec can't encode/);
  // Every payload beyond Latin-1 crashes it; the smallest is reported.
  expect(crash.count).toBeGreaterThanOrEqual(4);
  expect(/[^\u0000-\u00ff]/.test((crash.payload.args as { code: string }).code)).toBe(true);

  const slow = report.findings.find((finding) => finding.group === "slow")!;
  expect(slow.detail).toMatchObject({ timeoutSeconds: 3 });
  expect((slow.payload.args as { code: string }).code.length).toBeGreaterThan(64 * 1024);

  const chatty = report.findings.find((finding) => finding.group === "chatty" && finding.tool === "view_file")!;
  expect((chatty.detail as { output: string }).output).toMatch(/^note: unusual file name, allowed\n\{"decision": "allow"\}$/);
  expect(chatty.payload.name).toBe("view_file");

  const s = report.summary;
  expect(s.handlers).toBe(4);
  expect(s.findings.crash).toBe(crash.count);
  expect(s.findings.timeout).toBe(slow.count);
  expect(s.findings["unrecognized-output"]).toBeGreaterThanOrEqual(2);
  expect(s.seed).toBe(43);
  // Deduplicated: the four handlers' pairs ran once each, and no more.
  expect(s.runs).toBe(s.payloads);
});

test("each reported payload, written as a case, fails genv hooks test --strict because its hook failed open", async () => {
  expect(four.report.findings.length).toBeGreaterThan(0);
  const cases = four.report.findings.map((finding) => ({ name: `${finding.group} ${finding.tool} ${finding.outcome}`, tool_call: finding.payload, expect: "allow" }));
  const casesFile = path.join(scratch, "probe-cases.json");
  writeFileSync(casesFile, JSON.stringify(cases));
  const strict = await runHooksTest({ ...four.hooks, casesFile, strict: true });
  expect(strict.outcomes.map((outcome) => [outcome.name, outcome.verdict.decision, outcome.mismatch])).toEqual(cases.map((testCase) => [testCase.name, "allow", "1 hook(s) failed open (--strict)"]));
  expect(strict.exitCode).toBe(1);
  // The same cases pass without --strict: the calls are allowed, which is what failing open means.
  expect((await runHooksTest({ ...four.hooks, casesFile })).exitCode).toBe(0);
}, 120_000);

test("the same seed gives the same report; the text and markdown name the finding and the seed", async () => {
  const hooks = agentsDir({ crashy: PROBE_HOOKS.crashy }, { "crashy.py": PROBE_SCRIPTS["crashy.py"] });
  const [a, b] = [await runHooksProbe({ ...hooks, format: "text" }), await runHooksProbe({ ...hooks, format: "markdown" })];
  expect(a.report.findings).toEqual(b.report.findings);
  expect(a.report.findings).toHaveLength(1);
  expect(a.exitCode).toBe(0); // without --fail-on, a report only
  expect(a.output).toMatch(/^FAILS OPEN {2}crashy {2}command: python3 \/\.agents\/hooks-scripts\/crashy\.py {2}code_execution {2}crash {2}×\d+\n/);
  expect(a.output).toContain("seed 43");
  expect(b.output).toContain("| crashy | command: python3 /.agents/hooks-scripts/crashy.py | code_execution | crash |");
}, 60_000);

test("recorded calls join the corpus; an HTTP handler is listed as not probed; a config the linter rejects gets its error", async () => {
  const hooks = agentsDir(
    {
      crashy: PROBE_HOOKS.crashy,
      audit: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "http", url: "https://telemetry.example.com/hook", timeout: 5 }] }] },
    },
    { "crashy.py": PROBE_SCRIPTS["crashy.py"] },
  );
  const callsFile = path.join(scratch, "calls.jsonl");
  writeFileSync(callsFile, [JSON.stringify({ tool_call: { name: "code_execution", args: { code: "é" } } }), JSON.stringify({ tool_call: { name: "code_execution", args: { code: "ü" } }, environment_id: "env_a" }), JSON.stringify({ tool_call: { name: "view_file", args: {} } }), "{oops"].join("\n"));
  const { report, skipped, exitCode } = await runHooksProbe({ ...hooks, callsFile, format: "json", failOn: "fail-open" });
  expect(report.summary.recorded).toBe(2);
  expect(skipped.map((line) => [line.line, line.why.split(":")[0]])).toEqual([[3, "not a call the runtime delivers"], [4, "malformed"]]);
  expect(report.summary.notProbed).toEqual([{ group: "audit", handler: "http: https://telemetry.example.com/hook", why: expect.stringContaining("--http live") }]);
  expect(report.findings.map((finding) => finding.group)).toEqual(["crashy"]);
  expect(exitCode).toBe(1);

  const rejected = agentsDir({ gate: { pre_tool_execution: [{ matcher: "*_file", hooks: [{ type: "command", command: "true" }] }] } }, {});
  await expect(runHooksProbe({ ...rejected })).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/rejected by the linter.*\/gate\/pre_tool_execution\/0\/matcher: glob-matcher/) });
  // A script the commands run but --scripts does not hold: a mistake to say, not a crash per payload.
  const noScript = agentsDir({ crashy: PROBE_HOOKS.crashy }, {});
  await expect(runHooksProbe({ ...noScript })).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining("the hooks run /.agents/hooks-scripts/crashy.py, but --scripts") });
}, 60_000);

test("through the CLI: --fail-on fail-open exits 1 on a finding and 0 on the robust gate alone", async () => {
  const exitOf = async (hooks: { hooksFile: string; scriptsDir: string }) => {
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      process.exitCode = 0;
      await runProgram(buildProgram(), ["node", "genv", "hooks", "probe", hooks.hooksFile, "--scripts", hooks.scriptsDir, "--fail-on", "fail-open", "--format", "json"], "genv");
      return process.exitCode;
    } finally {
      process.stdout.write = write;
      process.exitCode = 0;
    }
  };
  expect(await exitOf(agentsDir({ chatty: PROBE_HOOKS.chatty }, { "chatty.py": PROBE_SCRIPTS["chatty.py"] }))).toBe(1);
  expect(await exitOf(agentsDir({ robust: PROBE_HOOKS.robust }, { "robust.py": PROBE_SCRIPTS["robust.py"] }))).toBe(0);
}, 60_000);

test("a command two groups name runs once per payload, and each group gets its finding", async () => {
  const hooks = agentsDir({ first: PROBE_HOOKS.crashy, second: PROBE_HOOKS.crashy }, { "crashy.py": PROBE_SCRIPTS["crashy.py"] });
  const { report } = await runHooksProbe({ ...hooks, format: "json" });
  expect(report.summary.handlers).toBe(2);
  expect(report.summary.runs * 2).toBe(report.summary.payloads);
  expect(report.findings.map((finding) => [finding.group, finding.outcome])).toEqual([["first", "crash"], ["second", "crash"]]);
  expect(report.findings[0].count).toBe(report.findings[1].count);
}, 60_000);

test("--http live: an HTTP handler is probed, and one that is never answered is an http-error finding", async () => {
  // `.invalid` never resolves (RFC 2606): every POST fails, as an endpoint that is down fails.
  const hooks = agentsDir({ audit: { pre_tool_execution: [{ matcher: "list_dir", hooks: [{ type: "http", url: "https://telemetry.invalid/hook", timeout: 2 }] }] } }, {});
  const { report, exitCode } = await runHooksProbe({ ...hooks, http: "live", format: "json", failOn: "fail-open" });
  expect(report.summary.notProbed).toEqual([]);
  expect(report.findings).toHaveLength(1);
  expect(report.findings[0]).toMatchObject({ group: "audit", handler: "http: https://telemetry.invalid/hook", tool: "list_dir", outcome: "http-error", detail: { text: expect.stringContaining("not delivered: POST https://telemetry.invalid/hook") } });
  expect(report.findings[0].count).toBe(report.summary.payloads);
  expect(exitCode).toBe(1);
}, 60_000);

test("a handler that times out on everything: after 3 timeouts on a tool its larger payloads are left out, the smallest reported", async () => {
  const hooks = agentsDir({ stuck: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "sleep 30", timeout: 1 }] }] } }, {});
  const started = Date.now();
  const { report, output } = await runHooksProbe({ ...hooks, format: "text" });
  expect(report.findings).toHaveLength(1);
  const smallest = Math.min(...probeCorpus().filter((call) => call.tool === "code_execution").map((call) => JSON.stringify({ name: call.tool, args: call.args }).length));
  expect(report.findings[0]).toMatchObject({ group: "stuck", tool: "code_execution", outcome: "timeout", detail: { timeoutSeconds: 1 } });
  expect(JSON.stringify(report.findings[0].payload).length).toBe(smallest);
  expect(report.findings[0].count).toBeGreaterThanOrEqual(3);
  expect(report.summary.runs).toBeLessThanOrEqual(3 + 1); // the cap, and the run beside the third
  expect(report.summary.runs + report.summary.skipped).toBe(report.summary.payloads);
  expect(output).toContain(`${report.summary.skipped} runs left out after 3 timeouts of the same handler and tool`);
  expect(Date.now() - started).toBeLessThan(15_000); // 17 payloads × 1 s would be 9 s on 2 workers; the cap: about 2
}, 60_000);
