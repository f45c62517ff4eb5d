/**
 * `genv hooks test HOOKS_JSON --scripts DIR --cases CASES_JSON [--strict] [--json]`: policy tests for a
 * hooks.json, for users' CI. Each case gets a throwaway tree (`.agents/hooks.json`, the scripts under
 * `.agents/hooks-scripts/`, an empty `workspace/`) and goes through the same runtime and sandbox as
 * the emulator's tool calls — except that the tool itself never runs.
 *
 * A case: `{"name"?, "tool_call": {"name", "args"}, "event"?: "pre_tool_execution" | "post_tool_execution",
 * "expect": "allow" | "deny", "reason"?: "<substring of the deny reason>", "error"?: "<post payload error>"}`.
 * A pre case (the default) runs the pre hooks and, when they allow, the post hooks as after a
 * successful tool (or a failed one with `error`); a post case runs only the post hooks, whose verdict
 * is always allow. Exit 1 when a case's decision or reason differs (with `--strict`, also when a hook
 * failed open: crashed, timed out, printed junk), 2 for unusable files.
 */
import { mkdtempSync, promises as fs, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { sandboxHooks } from "../../emulator/sandbox-hooks";
import { giveToSandbox, parseToolCall } from "../../emulator/sandbox";
import { lintHooks } from "../../hooks/lint";
import { discoverHooks, executeWithHooks, HOOKS_FILE, runHooks, type HooksVerdict } from "../../hooks/runtime";
import { HOOK_EVENTS, HooksConfig } from "../../hooks/schema";
import { ToolCall } from "../../sdk/schemas";
import { describeIssues, validationIssues } from "../../sdk/validation";
import { CLIError } from "../errors";
import { formatHooks } from "./_hooks-table";
import { readJsonFile, readText } from "./_input-files";
import { hooksCommand } from "./hooks";

// ── schema ──────────────────────────────────────────────────────────────────────────────────────

export const HooksTestCase = z.strictObject({
  /** Shown in the table; default `#<index> <tool>`. */
  name: z.string().optional(),
  tool_call: ToolCall,
  event: z.enum(HOOK_EVENTS).default("pre_tool_execution"),
  expect: z.enum(["allow", "deny"], { error: 'must be "allow" or "deny"' }),
  /** A substring the deny's reason must contain. */
  reason: z.string().optional(),
  /** The post payload's `error`, as after a failed tool. */
  error: z.string().optional(),
});
export type HooksTestCase = z.infer<typeof HooksTestCase>;
export const HooksTestCases = z.array(HooksTestCase, { error: "must be a JSON array of cases" });

export interface CaseOutcome {
  name: string;
  testCase: HooksTestCase;
  verdict: HooksVerdict;
  /** Why the case failed; undefined when it passed. */
  mismatch?: string;
}

// ── implementation ──────────────────────────────────────────────────────────────────────────────

export interface HooksTestArgs {
  /** The hooks.json to test. */
  hooksFile: string;
  /** Directory copied to `.agents/hooks-scripts/` (the scripts the commands run). */
  scriptsDir?: string;
  /** JSON file with the array of cases. */
  casesFile: string;
  /** Also fail when a hook failed open. */
  strict?: boolean;
  /** `environment_id` in the payload; default `env_hooks_test`. */
  environmentId?: string;
  json?: boolean;
}

/** Runs every case; returns what to print and the exit code, or throws CLIError for unusable files. */
export async function runHooksTest(args: HooksTestArgs): Promise<{ output: string; exitCode: number; outcomes: CaseOutcome[] }> {
  const hooksText = readText(args.hooksFile, "hooks file");
  checkHooks(hooksText, args.hooksFile);
  const cases = readCases(args.casesFile);
  if (args.scriptsDir !== undefined && !isDirectory(args.scriptsDir)) throw new CLIError(`--scripts ${args.scriptsDir} is not a directory`, 2);

  const outcomes: CaseOutcome[] = [];
  const verdicts = await runCases({ hooksText, scriptsDir: args.scriptsDir }, cases, args.environmentId ?? "env_hooks_test");
  for (const [index, testCase] of cases.entries()) {
    const verdict = verdicts[index];
    outcomes.push({ name: caseName(testCase, index), testCase, verdict, mismatch: mismatchOf(testCase, verdict, args.strict ?? false) });
  }
  const failed = outcomes.filter((outcome) => outcome.mismatch !== undefined).length;
  const output = args.json
    ? `${JSON.stringify(outcomes.map(({ name, verdict, mismatch }) => ({ name, ...verdict, ...(mismatch && { mismatch }) })), null, 2)}\n`
    : formatOutcomes(outcomes);
  return { output, exitCode: failed > 0 ? 1 : 0, outcomes };
}

/** A hooks.json (as text) and the directory of the scripts its commands run. */
export interface HooksUnderTest {
  hooksText: string;
  scriptsDir?: string;
}

/** The verdict of every case against `hooks`, each in a throwaway tree of its own. */
export async function runCases(hooks: HooksUnderTest, cases: readonly HooksTestCase[], environmentId: string): Promise<HooksVerdict[]> {
  const verdicts: HooksVerdict[] = [];
  for (const testCase of cases) {
    const root = mkdtempSync(path.join(os.tmpdir(), "genv-hooks-test-"));
    try {
      await buildTree(root, hooks.hooksText, hooks.scriptsDir);
      await giveToSandbox(root);
      verdicts.push(await runCase(root, testCase, environmentId));
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  }
  return verdicts;
}

export function caseName(testCase: HooksTestCase, index: number): string {
  return testCase.name ?? `#${index + 1} ${testCase.tool_call.name}`;
}

async function runCase(root: string, testCase: HooksTestCase, environmentId: string): Promise<HooksVerdict> {
  const options = sandboxHooks(root);
  if (testCase.event === "post_tool_execution") {
    const discovered = await discoverHooks(root);
    const payload = { tool_call: testCase.tool_call, environment_id: environmentId, ...(testCase.error !== undefined && { error: testCase.error }) };
    return runHooks(discovered.config ?? {}, "post_tool_execution", payload, options);
  }
  // The tool is not run: a stand-in result, failed when the case gives an `error` for the post payload.
  const result = await executeWithHooks(
    {
      root,
      environmentId,
      toolCall: testCase.tool_call,
      runTool: async () => (testCase.error !== undefined ? { error: testCase.error, failed: true } : { output: "", failed: false }),
    },
    options,
  );
  return { decision: result.decision, ...(result.reason !== undefined && { reason: result.reason }), hooks: result.hooks };
}

function mismatchOf(testCase: HooksTestCase, verdict: HooksVerdict, strict: boolean): string | undefined {
  if (verdict.decision !== testCase.expect) return `expected ${testCase.expect}, got ${verdict.decision}`;
  if (testCase.reason !== undefined && !(verdict.reason ?? "").includes(testCase.reason)) {
    return `expected a reason containing ${JSON.stringify(testCase.reason)}, got ${JSON.stringify(verdict.reason ?? "")}`;
  }
  const failures = verdict.hooks.filter((hook) => hook.failure !== undefined);
  if (strict && failures.length > 0) return `${failures.length} hook(s) failed open (--strict)`;
  return undefined;
}

function formatOutcomes(outcomes: readonly CaseOutcome[]): string {
  const nameWidth = Math.max(4, ...outcomes.map((outcome) => outcome.name.length));
  let text = "";
  for (const outcome of outcomes) {
    const status = outcome.mismatch === undefined ? "ok  " : "FAIL";
    const got = `${outcome.verdict.decision}${outcome.verdict.reason !== undefined ? ` (${outcome.verdict.reason})` : ""}`;
    text += `${status}  ${outcome.name.padEnd(nameWidth)}  expect ${outcome.testCase.expect.padEnd(5)}  got ${got}\n`;
    if (outcome.mismatch !== undefined) text += `      ${outcome.mismatch}\n`;
    text += formatHooks(outcome.verdict.hooks, "      ");
  }
  const failed = outcomes.filter((outcome) => outcome.mismatch !== undefined).length;
  return `${text}${outcomes.length - failed} passed, ${failed} failed\n`;
}

export function register(program: Command): void {
  hooksCommand(program)
    .command("test")
    .description("run policy test cases against a hooks.json and its scripts in the sandbox (the tools themselves do not run)")
    .argument("<hooks>", "the hooks.json to test")
    .requiredOption("--cases <file>", 'JSON array of cases: [{"tool_call": {"name": "code_execution", "args": {"code": "rm -rf /"}}, "expect": "deny", "reason": "blocked"}]')
    .option("--scripts <dir>", "directory copied to .agents/hooks-scripts/")
    .option("--strict", "also fail when a hook failed open (crash, timeout, unrecognised output)")
    .option("--environment-id <id>", "environment_id in the payload", "env_hooks_test")
    .option("--json", "print the outcomes as JSON")
    .action(async (hooks: string, options: { cases: string; scripts?: string; strict?: boolean; environmentId: string; json?: boolean }) => {
      const { output, exitCode } = await runHooksTest({
        hooksFile: hooks,
        casesFile: options.cases,
        scriptsDir: options.scripts,
        strict: options.strict,
        environmentId: options.environmentId,
        json: options.json,
      });
      process.stdout.write(output);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}

// ── files ───────────────────────────────────────────────────────────────────────────────────────

async function buildTree(root: string, hooksText: string, scriptsDir: string | undefined): Promise<void> {
  await fs.mkdir(path.join(root, ".agents"), { recursive: true });
  await fs.mkdir(path.join(root, "workspace"));
  await fs.writeFile(path.join(root, HOOKS_FILE), hooksText);
  if (scriptsDir !== undefined) await fs.cp(scriptsDir, path.join(root, ".agents/hooks-scripts"), { recursive: true, dereference: true });
}

/** A hooks file the runtime would ignore makes every case meaningless: refuse it with the linter's words. */
export function checkHooks(text: string, file: string): void {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CLIError(`hooks file ${file} is not valid JSON: ${(error as Error).message}`, 2);
  }
  if (HooksConfig.safeParse(json).success) return;
  const problems = lintHooks(json).filter((finding) => finding.code === "schema");
  throw new CLIError(`hooks file ${file} would not be used by the runtime: ${problems.map((f) => `${f.path || "(root)"}: ${f.message}`).join("; ")}`, 2);
}

export function readCases(file: string): HooksTestCase[] {
  const parsed = HooksTestCases.safeParse(readJsonFile(file, "cases file"));
  if (!parsed.success) throw new CLIError(`cases file ${file}: ${describeIssues(validationIssues(parsed.error))}`, 2);
  parsed.data.forEach((testCase, index) => {
    try {
      parseToolCall(testCase.tool_call.name, testCase.tool_call.args);
    } catch (error) {
      throw new CLIError(`cases file ${file}: case ${index + 1} (${testCase.name ?? testCase.tool_call.name}): tool_call.${(error as Error).message.replace(/^tool_call\./, "")}`, 2);
    }
  });
  return parsed.data;
}


function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
