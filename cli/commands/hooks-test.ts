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

import type { Command } from "commander";
import { parseToolCall, SandboxError } from "../../emulator/sandbox";
import { caseName, HooksTestCase, HooksTestCases, mismatchOf, runCases } from "../../emulator/sandbox/policy-cases";
import { lintHooks } from "../../hooks/lint";
import type { HooksVerdict } from "../../hooks/runtime";
import { HooksConfig } from "../../hooks/schema";
import { atPath, validationIssues } from "../../client/issues";
import { CLIError } from "../errors";
import { formatHooks } from "./_hooks-table";
import { isDirectory, readJsonFile, readText } from "./_input-files";
import { hooksCommand } from "./hooks";

// ── schema ──────────────────────────────────────────────────────────────────────────────────────

export { caseName, HooksTestCase, runCases, type HooksUnderTest } from "../../emulator/sandbox/policy-cases";

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
  if (!parsed.success) throw CLIError.invalid(`cases file ${file}`, validationIssues(parsed.error));
  parsed.data.forEach((testCase, index) => {
    try {
      parseToolCall(testCase.tool_call.name, testCase.tool_call.args);
    } catch (error) {
      if (!(error instanceof SandboxError) || error.issues.length === 0) throw error;
      throw CLIError.invalid(`cases file ${file}: case ${index + 1} (${testCase.name ?? testCase.tool_call.name})`, atPath(["tool_call"], error.issues));
    }
  });
  return parsed.data;
}

