/**
 * `genv hooks diff --base <dir|git-ref> [--head <dir>] [--path .agents] (--cases FILE | --calls FILE.jsonl)
 * [--format markdown|json|text] [--http off|live] [--fail-on any|allow-to-deny|deny-to-allow]`: what a
 * change to the hooks changes in the decisions, for a pull request.
 *
 * `--cases`: the same cases as `genv hooks test` run against the old hooks and the new ones (each in
 * the sandbox, the tools never run), and every case whose decision or reason changed is reported —
 * and every case that now fails open (a hook crashed, timed out or printed junk) where it did not before.
 *
 * `--calls`: recorded tool calls (hook payloads as JSON lines: `genv env calls`, an audit endpoint)
 * are replayed through both sides' pre hooks the same way, identical calls once, as many at a time as
 * the machine has CPUs; the report counts what flips (`_calls-report.ts`). HTTP hooks are not called
 * unless `--http live`; a call that reaches one is reported as not replayed.
 *
 * A side is laid out like `.agents/`: `hooks.json` and `hooks-scripts/`. `--base` is such a
 * directory, or else a git ref, read at `--path` (default `.agents`) in the repository of the current
 * directory (`git archive`, so the working tree is not touched). `--head` defaults to `--path` in the
 * working tree.
 *
 * Each side runs as an environment would hold it: a handler with `on_failure: "deny"` in its wrapper
 * (hooks/on-failure.ts), so the cases and the replay judge what a change of `on_failure` does; the
 * change itself is listed first, as a policy change (`onFailure`), whatever else is asked.
 *
 * `--probe`: the head's hooks probed for fail-open (`genv hooks probe`, its default seed), and the
 * base's, so that each finding the base does not have (same group, handler, tool and outcome) is
 * marked new. Reported, never an exit code of its own.
 *
 * Exit codes: 2 for unusable input. Without `--fail-on`: 1 when a case's decision changed
 * (reason-only changes and new fail-opens are reported but do not fail), recorded calls only
 * report (0). With `--fail-on`: 1 when a case or a recorded call flips that way (`any`: either
 * way), else 2 when a recorded line could not be replayed (malformed, or the sandbox failed on it),
 * else 0.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import type { Command } from "commander";
import * as tar from "tar";
import { SandboxError } from "../../emulator/sandbox";
import { replayPreHooks, type ReplayOutcome, type ReplayTask } from "../../emulator/sandbox/policy-cases";
import { distinctCalls, parseRecordedCalls } from "../../hooks/recorded-calls";
import type { HooksVerdict } from "../../hooks/runtime";
import type { ProbeFinding, ProbeReport } from "../../hooks/probe/run";
import { describeHandler } from "../../hooks/runtime";
import { HOOK_EVENTS, HooksConfig, type OnFailure } from "../../hooks/schema";
import { CLIError } from "../errors";
import { callsMarkdown, callsReport, callsText, type CallsReport } from "./_calls-report";
import { describeSide, sideOf, type Side } from "./_decision-side";
import { isDirectory, readText } from "./_input-files";
import { liveHttp } from "./_live-http";
import { hooksCommand } from "./hooks";
import { probeMarkdown, probeSide, probeText } from "./hooks-probe";
import { caseName, checkHooks, readCases, runCases, type HooksTestCase, type HooksUnderTest } from "./hooks-test";

export type DiffFormat = "markdown" | "json" | "text";
export type FailOn = "any" | "allow-to-deny" | "deny-to-allow";
const FAIL_ON: readonly FailOn[] = ["any", "allow-to-deny", "deny-to-allow"];

export interface HooksDiffArgs {
  base: string;
  head?: string;
  /** Where the hooks live inside the repository, for a git ref (and the default head). */
  path?: string;
  /** Policy cases, as for `genv hooks test`. */
  casesFile?: string;
  /** Recorded calls, one hook payload per line. */
  callsFile?: string;
  format?: DiffFormat;
  /** `live`: a replay POSTs to HTTP hooks from this machine; default `off`: they are not called. */
  http?: "off" | "live";
  failOn?: FailOn;
  /** Replays at once; default the machine's CPUs. */
  concurrency?: number;
  /** The repository a git ref is read from; default the current directory. */
  repo?: string;
  /** Also probe both sides for fail-open and report the head's findings, new ones marked. */
  probe?: boolean;
}

/** The head's fail-open findings, each marked new when the base has no such finding. */
export interface FailOpenDiff {
  summary: ProbeReport["summary"];
  findings: Array<ProbeFinding & { new: boolean }>;
  /** The head's failures that its on_failure "deny" wrappers turned into denies. */
  failsClosed: ProbeReport["failsClosed"];
  errors: ProbeReport["errors"];
  /** Findings the base does not have. */
  newFindings: number;
}

/** A handler whose `on_failure` differs between the sides (matched by group, event and command). */
export interface OnFailureChange {
  group: string;
  event: string;
  handler: string;
  base: OnFailure;
  head: OnFailure;
}

export interface CaseChange {
  name: string;
  base: Side;
  head: Side;
  /** What changed: `decision`, `reason`, `fails-open`. */
  changed: Array<"decision" | "reason" | "fails-open">;
}

export async function runHooksDiff(args: HooksDiffArgs): Promise<{ output: string; exitCode: number; changes: CaseChange[]; onFailure: OnFailureChange[]; calls?: CallsReport; failOpen?: FailOpenDiff }> {
  if (args.casesFile === undefined && args.callsFile === undefined && !args.probe) throw new CLIError("give --cases FILE (policy cases), --calls FILE.jsonl (recorded calls), --probe, or more than one", 2);
  if (args.failOn !== undefined && !FAIL_ON.includes(args.failOn)) throw new CLIError(`--fail-on: "${args.failOn}" is not one of ${FAIL_ON.join(", ")}`, 2);
  const cases = args.casesFile === undefined ? undefined : readCases(args.casesFile);
  const recorded = args.callsFile === undefined ? undefined : parseRecordedCalls(readText(args.callsFile, "calls file"));
  const repo = args.repo ?? process.cwd();
  const where = args.path ?? ".agents";
  const labels = { base: args.base, head: args.head ?? where };
  const scratch = mkdtempSync(path.join(os.tmpdir(), "genv-hooks-diff-"));
  try {
    const base = await hooksAt(args.base, "--base", { repo, where, scratch });
    const head = await hooksAt(args.head ?? path.join(repo, where), "--head", { repo, where, scratch, directoryOnly: true });
    let changes: CaseChange[] = [];
    if (cases !== undefined) {
      const [baseVerdicts, headVerdicts] = [await runCases(base, cases, "env_hooks_diff"), await runCases(head, cases, "env_hooks_diff")];
      changes = cases
        .map((testCase, index) => changeOf(testCase, index, baseVerdicts[index], headVerdicts[index]))
        .filter((change): change is CaseChange => change !== undefined);
    }
    let calls: CallsReport | undefined;
    if (recorded !== undefined) {
      const distinct = distinctCalls(recorded.calls);
      const tasks: ReplayTask[] = distinct.flatMap((call) => (call.payload ? [{ hooks: base, payload: call.payload }, { hooks: head, payload: call.payload }] : []));
      const outcomes = await replayPreHooks(tasks, { concurrency: args.concurrency ?? os.availableParallelism(), liveHttp: args.http === "live" ? liveHttp : undefined }).catch((error: unknown) => {
        // No sandbox on this machine: every hook would fail open and every call read as an allow.
        if (error instanceof SandboxError) throw new CLIError(`--calls: no call can be replayed here: ${error.message}`, 2);
        throw error;
      });
      let next = 0;
      const paired = distinct.map((call): { base: ReplayOutcome; head: ReplayOutcome } | undefined => {
        if (!call.payload) return undefined;
        next += 2;
        return { base: outcomes[next - 2], head: outcomes[next - 1] };
      });
      calls = callsReport(distinct, paired, recorded.malformed);
    }
    const failOpen = args.probe ? await probeBoth(base, head, args.concurrency) : undefined;
    const onFailure = onFailureChanges(HooksConfig.parse(JSON.parse(base.hooksText)), HooksConfig.parse(JSON.parse(head.hooksText)));
    const output = render(args.format ?? "text", { changes, cases: cases?.length, calls, failOpen, onFailure }, labels);
    return { output, exitCode: exitCodeOf(changes, calls, args.failOn), changes, onFailure, ...(calls && { calls }), ...(failOpen && { failOpen }) };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** Both sides probed one after the other (each uses every CPU); the head's findings, new ones marked. */
async function probeBoth(base: HooksUnderTest, head: HooksUnderTest, concurrency: number | undefined): Promise<FailOpenDiff> {
  const probe = (hooks: HooksUnderTest) => probeSide(hooks, HooksConfig.parse(JSON.parse(hooks.hooksText)), { concurrency });
  const [before, after] = [await probe(base), await probe(head)];
  const key = (finding: ProbeFinding) => JSON.stringify([finding.group, finding.handler, finding.tool, finding.outcome]);
  const known = new Set(before.findings.map(key));
  const findings = after.findings.map((finding) => ({ ...finding, new: !known.has(key(finding)) }));
  return { summary: after.summary, findings, failsClosed: after.failsClosed, errors: after.errors, newFindings: findings.filter((finding) => finding.new).length };
}

/** The head's handlers whose `on_failure` is not the base's same handler's (group, event, command). */
function onFailureChanges(base: HooksConfig, head: HooksConfig): OnFailureChange[] {
  const handlers = (config: HooksConfig) => {
    const found = new Map<string, { group: string; event: string; handler: string; onFailure: OnFailure }>();
    for (const [group, definition] of Object.entries(config)) {
      for (const event of HOOK_EVENTS) {
        for (const rule of definition[event] ?? []) {
          for (const handler of rule.hooks) {
            const label = describeHandler(handler);
            found.set(JSON.stringify([group, event, label]), { group, event, handler: label, onFailure: handler.on_failure ?? "allow" });
          }
        }
      }
    }
    return found;
  };
  const before = handlers(base);
  const changes: OnFailureChange[] = [];
  for (const [key, after] of handlers(head)) {
    const was = before.get(key);
    if (was !== undefined && was.onFailure !== after.onFailure) changes.push({ group: after.group, event: after.event, handler: after.handler, base: was.onFailure, head: after.onFailure });
  }
  return changes;
}

function exitCodeOf(changes: readonly CaseChange[], calls: CallsReport | undefined, failOn: FailOn | undefined): number {
  const decisionChanges = changes.filter((change) => change.changed.includes("decision"));
  if (failOn === undefined) return decisionChanges.length > 0 ? 1 : 0;
  const toDeny = failOn !== "deny-to-allow";
  const toAllow = failOn !== "allow-to-deny";
  const caseFlips = decisionChanges.some((change) => (change.head.decision === "deny" ? toDeny : toAllow));
  const callFlips = calls !== undefined && ((toDeny && calls.summary.allowToDeny > 0) || (toAllow && calls.summary.denyToAllow > 0));
  if (caseFlips || callFlips) return 1;
  return calls !== undefined && calls.summary.errors > 0 ? 2 : 0;
}

/** A side's hooks: a directory, or (not for `--head`) a git ref read at `where`. */
async function hooksAt(spec: string, flag: string, context: { repo: string; where: string; scratch: string; directoryOnly?: boolean }): Promise<HooksUnderTest> {
  let dir = spec;
  if (!isDirectory(spec)) {
    if (context.directoryOnly) throw new CLIError(`${flag} ${spec} is not a directory holding hooks.json and hooks-scripts/`, 2);
    dir = await checkout(spec, context);
  }
  const hooksFile = path.join(dir, "hooks.json");
  const hooksText = await fs.readFile(hooksFile, "utf8").catch(() => {
    throw new CLIError(`${flag} ${spec}: no hooks.json in ${dir}`, 2);
  });
  checkHooks(hooksText, `${flag} ${spec}`);
  const scripts = path.join(dir, "hooks-scripts");
  return { hooksText, scriptsDir: isDirectory(scripts) ? scripts : undefined };
}

/** `where` at git ref `ref`, unpacked into the scratch directory. */
async function checkout(ref: string, context: { repo: string; where: string; scratch: string }): Promise<string> {
  const into = path.join(context.scratch, `ref-${Buffer.from(ref).toString("hex").slice(0, 32)}`);
  await fs.mkdir(into);
  const archive = path.join(context.scratch, "archive.tar");
  try {
    await promisify(execFile)("git", ["-C", context.repo, "archive", "--format=tar", `--output=${archive}`, ref, "--", context.where]);
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? (error as Error).message).trim().split("\n").pop();
    throw new CLIError(`--base ${ref}: neither a directory nor a git ref with ${context.where} in ${context.repo} (git: ${stderr})`, 2);
  }
  await tar.x({ file: archive, cwd: into, strict: true });
  return path.join(into, context.where);
}

function changeOf(testCase: HooksTestCase, index: number, base: HooksVerdict, head: HooksVerdict): CaseChange | undefined {
  const before = sideOf(base);
  const after = sideOf(head);
  const changed: CaseChange["changed"] = [];
  if (before.decision !== after.decision) changed.push("decision");
  if ((before.reason ?? "") !== (after.reason ?? "")) changed.push("reason");
  if (after.failedOpen.some((failure) => !before.failedOpen.includes(failure))) changed.push("fails-open");
  return changed.length === 0 ? undefined : { name: caseName(testCase, index), base: before, head: after, changed };
}

function render(
  format: DiffFormat,
  report: { changes: readonly CaseChange[]; cases?: number; calls?: CallsReport; failOpen?: FailOpenDiff; onFailure: readonly OnFailureChange[] },
  labels: { base: string; head: string },
): string {
  const { changes, cases, calls, failOpen, onFailure } = report;
  if (format === "json") {
    return `${JSON.stringify({ ...labels, onFailure, ...(cases !== undefined && { cases, changes }), ...calls, ...(failOpen && { failOpen }) }, null, 2)}\n`;
  }
  const parts: string[] = [];
  if (onFailure.length > 0) parts.push(onFailureReport(format, onFailure));
  if (cases !== undefined) parts.push(casesReport(format, changes, cases, labels));
  if (calls !== undefined) parts.push(format === "markdown" ? callsMarkdown(calls, labels) : callsText(calls));
  if (failOpen !== undefined) {
    const isNew = (finding: ProbeFinding) => (finding as ProbeFinding & { new: boolean }).new;
    const newLine = `${failOpen.newFindings} of them new against \`${labels.base}\``;
    parts.push(format === "markdown" ? probeMarkdown(failOpen, isNew).replace(/^(### Fail-open findings)\n\n(.*)\.\n/, `$1 in \`${labels.head}\`\n\n$2; ${newLine}.\n`) : `${probeText(failOpen, [], isNew).trimEnd()}; ${newLine}\n`);
  }
  return parts.join("\n");
}

/** The on_failure changes: what a failure of each handler now decides. */
function onFailureReport(format: "markdown" | "text", changes: readonly OnFailureChange[]): string {
  const what = (onFailure: OnFailure) => (onFailure === "deny" ? "deny (fails closed)" : "allow (fails open)");
  if (format === "markdown") {
    const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
    let text = "### on_failure changed\n\nWhat a crash, a timeout or output that is no decision decides:\n\n| group | event | handler | before | after |\n| --- | --- | --- | --- | --- |\n";
    for (const change of changes) text += `| ${cell(change.group)} | ${change.event} | ${cell(change.handler)} | ${what(change.base)} | ${what(change.head)} |\n`;
    return text;
  }
  return changes.map((change) => `POLICY  ${change.group}  ${change.event}  ${change.handler}: on_failure ${what(change.base)} → ${what(change.head)}\n`).join("");
}

function casesReport(format: "markdown" | "text", changes: readonly CaseChange[], total: number, labels: { base: string; head: string }): string {
  const decisions = changes.filter((change) => change.changed.includes("decision")).length;
  const summary = `${total} cases: ${decisions} decision${decisions === 1 ? "" : "s"} changed, ${changes.length - decisions} other change${changes.length - decisions === 1 ? "" : "s"}`;
  if (format === "markdown") {
    const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
    let text = `### Hooks policy diff: \`${labels.base}\` → \`${labels.head}\`\n\n${summary}.\n`;
    if (changes.length === 0) return `${text}\nNo decision, reason or fail-open changed.\n`;
    text += "\n| case | changed | before | after |\n| --- | --- | --- | --- |\n";
    for (const change of changes) text += `| ${cell(change.name)} | ${change.changed.join(", ")} | ${cell(describeSide(change.base))} | ${cell(describeSide(change.head))} |\n`;
    return text;
  }
  let text = "";
  for (const change of changes) text += `${change.changed.includes("decision") ? "CHANGED" : "changed"}  ${change.name}  [${change.changed.join(", ")}]\n  before: ${describeSide(change.base)}\n  after:  ${describeSide(change.head)}\n`;
  return `${text}${summary}\n`;
}

export function register(program: Command): void {
  hooksCommand(program)
    .command("diff")
    .description("run the same policy cases, or replay recorded calls, against the old and the new hooks and report what changed (for pull requests)")
    .requiredOption("--base <dir|ref>", "the old hooks: a directory laid out like .agents/ (hooks.json, hooks-scripts/), or a git ref")
    .option("--head <dir>", "the new hooks: a directory like .agents/ (default: --path in the working tree)")
    .option("--path <path>", "where the hooks live in the repository, for a git ref and the default head", ".agents")
    .option("--cases <file>", "JSON array of cases, as for genv hooks test")
    .option("--calls <file>", "recorded tool calls, one hook payload per line (genv env calls, an audit endpoint), replayed through both sides' pre hooks")
    .option("--format <format>", "markdown (a pull-request comment), json or text", "text")
    .option("--http <mode>", "off: a replay does not call HTTP hooks (reported as not replayed); live: it POSTs to them from this machine", "off")
    .option("--probe", "also probe the head's hooks for fail-open (genv hooks probe) and mark the findings the base does not have")
    .option("--fail-on <flip>", "exit 1 when a case or recorded call flips: any, allow-to-deny or deny-to-allow (default: cases' decision changes exit 1, recorded calls only report)")
    .action(async (options: { base: string; head?: string; path: string; cases?: string; calls?: string; format: string; http: string; failOn?: string; probe?: boolean }) => {
      if (!["markdown", "json", "text"].includes(options.format)) throw new CLIError(`--format: "${options.format}" is not one of markdown, json, text`, 2);
      if (!["off", "live"].includes(options.http)) throw new CLIError(`--http: "${options.http}" is not one of off, live`, 2);
      const { output, exitCode } = await runHooksDiff({
        base: options.base,
        head: options.head,
        path: options.path,
        casesFile: options.cases,
        callsFile: options.calls,
        format: options.format as DiffFormat,
        http: options.http as "off" | "live",
        failOn: options.failOn as FailOn | undefined,
        probe: options.probe,
      });
      process.stdout.write(output);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
