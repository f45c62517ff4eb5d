/**
 * `genv hooks probe HOOKS_JSON [--scripts DIR] [--calls FILE.jsonl] [--format json|text|markdown]
 * [--fail-on fail-open] [--http off|live] [--seed N]`: where a guardrail fails open. Every
 * `pre_tool_execution` handler runs in the sandbox, with its own timeout, against a generated corpus
 * of deliverable but unkind tool calls (`hooks/probe/corpus.ts`) for every tool its matcher matches,
 * plus the recorded calls of `--calls`; each run the runtime would let through failing open (a crash,
 * a timeout, output that is no decision) is a finding, grouped per group, handler, tool and outcome
 * with the smallest payload (`hooks/probe/run.ts`). A handler with `on_failure: "deny"` runs in its
 * wrapper, as the sandbox will run it: the failures it turned into denies are shown apart (fails
 * closed), and are no finding.
 *
 * A hooks.json the linter rejects gets the linter's errors (exit 2), not a probe: its hooks would not
 * run at all. HTTP handlers are called only with `--http live` (from this machine, as `genv hooks
 * diff --http live`); otherwise they are listed as not probed.
 *
 * Exit codes: 2 for unusable input or a run that could not happen (with `--fail-on fail-open`, unless
 * a finding makes it 1); with `--fail-on fail-open`, 1 when there is a finding; else 0.
 */
import * as os from "node:os";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { Option, type Command } from "commander";
import { parseToolCall, SandboxError } from "../../emulator/sandbox";
import { runCommandHandlers, type HooksUnderTest } from "../../emulator/sandbox/policy-cases";
import { hasErrors, lintHooks } from "../../hooks/lint";
import { DEFAULT_PROBE_SEED, probeCorpus, type ProbeCall } from "../../hooks/probe/corpus";
import { probeHooks, TIMEOUT_CAP, type ProbeFinding, type ProbeReport } from "../../hooks/probe/run";
import { parseRecordedCalls } from "../../hooks/recorded-calls";
import { referencedScripts } from "../../hooks/scripts";
import { HooksConfig } from "../../hooks/schema";
import { CLIError } from "../errors";
import { isDirectory, readText } from "./_input-files";
import { liveHttp } from "./_live-http";
import { hooksCommand } from "./hooks";

export const PROBE_FORMATS = ["text", "json", "markdown"] as const;
export type ProbeFormat = (typeof PROBE_FORMATS)[number];

export interface HooksProbeArgs {
  /** The hooks.json to probe. */
  hooksFile: string;
  /** Directory copied to `.agents/hooks-scripts/`. */
  scriptsDir?: string;
  /** Recorded calls (the replay format: one hook payload per line), added to the corpus. */
  callsFile?: string;
  format?: ProbeFormat;
  /** `fail-open`: exit 1 when there is a finding. */
  failOn?: "fail-open";
  /** `live`: HTTP handlers are POSTed to from this machine; default `off`: not probed. */
  http?: "off" | "live";
  /** The corpus's seed; default `DEFAULT_PROBE_SEED`. */
  seed?: number;
  /** Runs at once; default the machine's CPUs. */
  concurrency?: number;
}

/** A recorded line that is not in the probe, and why. */
export interface SkippedLine {
  line: number;
  why: string;
}

export async function runHooksProbe(args: HooksProbeArgs): Promise<{ output: string; exitCode: number; report: ProbeReport; skipped: SkippedLine[] }> {
  const format = args.format ?? "text";
  if (!PROBE_FORMATS.includes(format)) throw new CLIError(`--format must be one of ${PROBE_FORMATS.join(", ")} (got ${JSON.stringify(format)})`, 2);
  if (args.failOn !== undefined && args.failOn !== "fail-open") throw new CLIError(`--fail-on: "${args.failOn}" is not fail-open`, 2);
  if (args.http !== undefined && args.http !== "off" && args.http !== "live") throw new CLIError(`--http: "${args.http}" is not off or live`, 2);
  const seed = args.seed ?? DEFAULT_PROBE_SEED;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new CLIError(`--seed must be a whole number ≥ 0 (got ${args.seed})`, 2);
  if (args.scriptsDir !== undefined && !isDirectory(args.scriptsDir)) throw new CLIError(`--scripts ${args.scriptsDir} is not a directory`, 2);
  const hooksText = readText(args.hooksFile, "hooks file");
  const config = lintedConfig(hooksText, args.hooksFile);
  checkScripts(config, args.scriptsDir);
  const { calls: recorded, skipped } = args.callsFile === undefined ? { calls: [], skipped: [] } : recordedCalls(readText(args.callsFile, "calls file"));

  const report = await probeSide({ hooksText, scriptsDir: args.scriptsDir }, config, { seed, recorded, http: args.http, concurrency: args.concurrency });
  const output =
    format === "json" ? `${JSON.stringify({ ...report, ...(args.callsFile !== undefined && { skipped }) }, null, 2)}\n` : format === "markdown" ? probeMarkdown(report) : probeText(report, skipped);
  return { output, exitCode: exitCodeOf(report, skipped, args.failOn), report, skipped };
}

/**
 * The probe of one side's hooks (`config` parsed from `hooks.hooksText`) in the sandbox: the corpus
 * of `seed` plus `recorded`, as many runs at once as `concurrency` (default the CPUs). Shared with
 * `genv hooks diff --probe`.
 */
export function probeSide(hooks: HooksUnderTest, config: HooksConfig, options: { seed?: number; recorded?: readonly ProbeCall[]; http?: "off" | "live"; concurrency?: number } = {}): Promise<ProbeReport> {
  const seed = options.seed ?? DEFAULT_PROBE_SEED;
  const recorded = options.recorded ?? [];
  const concurrency = options.concurrency ?? os.availableParallelism();
  return probeHooks(config, {
    seed,
    calls: [...probeCorpus(seed), ...recorded],
    recorded: recorded.length,
    runCommands: (requests, control) => runCommandHandlers(hooks, requests, concurrency, control),
    deliverHttp: options.http === "live" ? liveHttp : undefined,
  }).catch((error: unknown) => {
    // No sandbox here: every handler would fail open, and every payload read as a finding.
    if (error instanceof SandboxError) throw new CLIError(`no handler can be probed here: ${error.message}`, 2);
    throw error;
  });
}

function exitCodeOf(report: ProbeReport, skipped: readonly SkippedLine[], failOn: "fail-open" | undefined): number {
  if (failOn === "fail-open" && report.findings.length > 0) return 1;
  const malformed = skipped.some((line) => line.why.startsWith("malformed"));
  return report.errors.length > 0 || malformed ? 2 : 0;
}

/** The config, or the linter's errors: a hooks.json it rejects would not run as written. */
function lintedConfig(text: string, file: string): HooksConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CLIError(`hooks file ${file} is not valid JSON: ${(error as Error).message}`, 2);
  }
  const findings = lintHooks(json);
  if (hasErrors(findings)) {
    const errors = findings.filter((finding) => finding.severity === "error");
    throw new CLIError(`hooks file ${file} is rejected by the linter (genv hooks lint), so it is not probed: ${errors.map((f) => `${f.path || "(root)"}: ${f.code}: ${f.message}`).join("; ")}`, 2);
  }
  return HooksConfig.parse(json);
}

/**
 * Every `/.agents/hooks-scripts/<name>` a command runs must be in `--scripts`: a missing one would
 * crash on every payload and read as findings, when it is a mistake in the invocation.
 */
function checkScripts(config: HooksConfig, scriptsDir: string | undefined): void {
  const prefix = "/.agents/hooks-scripts/";
  const missing = referencedScripts(config)
    .filter((script) => script.startsWith(prefix))
    .filter((script) => scriptsDir === undefined || !existsSync(path.join(scriptsDir, script.slice(prefix.length))));
  if (missing.length === 0) return;
  const where = scriptsDir === undefined ? "no --scripts directory was given" : `--scripts ${scriptsDir} does not hold ${missing.length === 1 ? "it" : "them"}`;
  throw new CLIError(`the hooks run ${missing.join(", ")}, but ${where}: pass --scripts with the directory copied to .agents/hooks-scripts/`, 2);
}

/** The recorded calls the runtime could deliver, as corpus calls; the other lines, and why not. */
function recordedCalls(text: string): { calls: ProbeCall[]; skipped: SkippedLine[] } {
  const { calls, malformed } = parseRecordedCalls(text);
  const skipped: SkippedLine[] = malformed.map(({ line, message }) => ({ line, why: `malformed: ${message}` }));
  const probe: ProbeCall[] = [];
  for (const call of calls) {
    if (call.payload === undefined) {
      skipped.push({ line: call.line, why: "recorded without its args (too large to keep)" });
      continue;
    }
    try {
      const { name } = parseToolCall(call.payload.tool_call.name, call.payload.tool_call.args);
      probe.push({ tool: name, args: call.payload.tool_call.args, label: `recorded: line ${call.line}` });
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      skipped.push({ line: call.line, why: `not a call the runtime delivers: ${error.message}` });
    }
  }
  return { calls: probe, skipped: skipped.sort((a, b) => a.line - b.line) };
}

// ── rendering ───────────────────────────────────────────────────────────────────────────────────

const PAYLOAD_CHARS = 160;
const OUTCOME_LABEL: Record<ProbeFinding["outcome"], string> = { crash: "crash", timeout: "timeout", "unrecognized-output": "unrecognized output", "http-error": "HTTP error" };

/** One line: `4 handlers, 612 payloads (…), 3 findings: 1 crash, …`; with the time taken unless `timed` is false (a comment that must not change from run to run). */
export function probeSummaryLine(report: ProbeReport, timed = true): string {
  const s = report.summary;
  const outcomes = Object.entries(s.findings).filter(([, count]) => count > 0).map(([outcome, count]) => `${count} ${OUTCOME_LABEL[outcome as ProbeFinding["outcome"]]}`);
  return (
    `${s.handlers} handler${s.handlers === 1 ? "" : "s"} probed, ${s.payloads} payloads (${s.calls} calls, ${s.recorded} recorded, seed ${s.seed}) in ${s.runs} runs${timed ? `, ${(s.durationMs / 1000).toFixed(1)} s` : ""}: ` +
    `${report.findings.length} fail-open finding${report.findings.length === 1 ? "" : "s"}${outcomes.length > 0 ? ` (payloads: ${outcomes.join(", ")})` : ""}, ${s.errors} error${s.errors === 1 ? "" : "s"}` +
    failsClosedText(s.failsClosed) +
    (s.skipped > 0 ? `, ${s.skipped} run${s.skipped === 1 ? "" : "s"} left out after ${TIMEOUT_CAP} timeouts of the same handler and tool` : "")
  );
}

/** `; 12 payloads failed closed (on_failure deny: 4 crash, 8 timeout)`, or nothing when none did. */
function failsClosedText(counts: ProbeReport["summary"]["failsClosed"]): string {
  const outcomes = Object.entries(counts).filter(([, count]) => count > 0);
  const total = outcomes.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return "";
  return `; ${total} payload${total === 1 ? "" : "s"} failed closed (on_failure deny: ${outcomes.map(([outcome, count]) => `${count} ${OUTCOME_LABEL[outcome as ProbeFinding["outcome"]]}`).join(", ")})`;
}

/** `isNew`, when given, marks each finding new against a base (`genv hooks diff --probe`). */
export function probeText(report: ProbeReport, skipped: readonly SkippedLine[] = [], isNew?: (finding: ProbeFinding) => boolean): string {
  let text = "";
  for (const finding of report.findings) {
    text += `${isNew?.(finding) ? "NEW " : ""}FAILS OPEN  ${finding.group}  ${finding.handler}  ${finding.tool}  ${OUTCOME_LABEL[finding.outcome]}  ×${finding.count}\n`;
    text += `  ${detailLine(finding)}\n  smallest payload (${finding.input}): ${payloadText(finding)}\n`;
  }
  for (const closed of report.failsClosed) {
    text += `fails closed  ${closed.group}  ${closed.handler}  ${closed.tool}  ${OUTCOME_LABEL[closed.outcome]}  ×${closed.count}\n`;
    text += `  denied: ${closed.detail.text}; smallest payload (${closed.input}): ${payloadText(closed)}\n`;
  }
  for (const entry of report.summary.notProbed) text += `not probed  ${entry.group}  ${entry.handler}: ${entry.why}\n`;
  for (const error of report.errors.slice(0, 10)) text += `error  ${error.group}  ${error.handler}  ${error.tool}: ${error.message}\n`;
  for (const line of skipped) text += `--calls line ${line.line} not probed: ${line.why}\n`;
  return `${text}${probeSummaryLine(report)}\n`;
}

/**
 * A pull-request comment's section. `isNew`, when given, marks each finding new against a base
 * (`genv hooks diff`); without it there is no column for it.
 */
export function probeMarkdown(report: ProbeReport, isNew?: (finding: ProbeFinding) => boolean): string {
  let text = `### Fail-open findings\n\n${probeSummaryLine(report, false)}.\n`;
  if (report.findings.length === 0) text += "\nNo handler failed open on any payload.\n";
  else {
    text += `\n|${isNew ? " |" : ""} group | handler | tool | outcome | payloads | smallest payload | detail |\n|${isNew ? " --- |" : ""} --- | --- | --- | --- | --- | --- | --- |\n`;
    for (const finding of report.findings) {
      const mark = isNew ? ` ${isNew(finding) ? "**new**" : ""} |` : "";
      text += `|${mark} ${cell(finding.group)} | ${cell(finding.handler)} | ${finding.tool} | ${OUTCOME_LABEL[finding.outcome]} | ${finding.count} | ${cell(`${payloadText(finding)} (${finding.input})`)} | ${cell(detailLine(finding))} |\n`;
    }
  }
  if (report.failsClosed.length > 0) {
    text += `\nFailed closed (on_failure deny: the call was denied): ${cell(report.failsClosed.map((closed) => `${closed.group} ${closed.handler} ${closed.tool}: ${closed.detail.text} ×${closed.count}`).join("; "))}.\n`;
  }
  if (report.summary.notProbed.length > 0) text += `\nNot probed: ${cell(report.summary.notProbed.map((entry) => `${entry.group} ${entry.handler}: ${entry.why}`).join("; "))}.\n`;
  if (report.errors.length > 0) text += `\nErrors: ${report.errors.length} run(s) could not happen, e.g. ${cell(report.errors[0].message)}.\n`;
  return text;
}

/** One line: the exit status and stderr's last line, the timeout, or what was printed (JSON-quoted). */
export function detailLine(finding: ProbeFinding): string {
  const detail = finding.detail;
  if ("stderrTail" in detail) {
    const last = detail.stderrTail.split("\n").filter((line) => line.trim() !== "").pop();
    return `exit status ${detail.exitStatus ?? "none"}${last ? `, stderr ends: ${last.trim()}` : ""}${detail.exitStatus === 0 || detail.exitStatus === null ? ` (${detail.text})` : ""}`;
  }
  if ("timeoutSeconds" in detail) return `ran past its ${detail.timeoutSeconds} s timeout (the process tree was killed)`;
  if ("output" in detail) return `printed ${JSON.stringify(detail.output.length > PAYLOAD_CHARS ? `${detail.output.slice(0, PAYLOAD_CHARS)}…` : detail.output)}, no decision`;
  return detail.text;
}

/** The payload's JSON, cut at `PAYLOAD_CHARS` with its length said (the JSON report has it whole). */
function payloadText(finding: ProbeFinding): string {
  const json = JSON.stringify(finding.payload);
  return json.length > PAYLOAD_CHARS ? `${json.slice(0, PAYLOAD_CHARS)}… (${json.length} chars)` : json;
}

function cell(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|").replace(/`/g, "\\`").replace(/[\r\n]/g, " ");
}

export function register(program: Command): void {
  hooksCommand(program)
    .command("probe")
    .description("find the tool calls on which a pre_tool_execution hook fails open (crash, timeout, output that is no decision): generated unkind payloads, run in the sandbox")
    .argument("<hooks>", "the hooks.json to probe")
    .option("--scripts <dir>", "directory copied to .agents/hooks-scripts/")
    .option("--calls <file>", "recorded tool calls, one hook payload per line (genv env calls, an audit endpoint), added to the corpus")
    .addOption(new Option("--format <format>", "output format").choices(PROBE_FORMATS).default("text"))
    .addOption(new Option("--fail-on <what>", "exit 1 when a handler fails open on some payload").choices(["fail-open"]))
    .addOption(new Option("--http <mode>", "off: HTTP handlers are listed as not probed; live: POSTed to from this machine").choices(["off", "live"]).default("off"))
    .option("--seed <n>", `seed of the generated corpus (printed with the report)`, String(DEFAULT_PROBE_SEED))
    .action(async (file: string, options: { scripts?: string; calls?: string; format: ProbeFormat; failOn?: "fail-open"; http: "off" | "live"; seed: string }) => {
      if (!/^\d+$/.test(options.seed)) throw new CLIError(`--seed must be a whole number ≥ 0, e.g. 43 (got ${JSON.stringify(options.seed)})`, 2);
      const seed = Number(options.seed);
      const { output, exitCode } = await runHooksProbe({ hooksFile: file, scriptsDir: options.scripts, callsFile: options.calls, format: options.format, failOn: options.failOn, http: options.http, seed });
      process.stdout.write(output);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
