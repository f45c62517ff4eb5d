/**
 * What a hooks change does to recorded calls (`genv hooks diff --calls`): each distinct call's pre
 * verdicts on both sides, classified, counted per recorded call, and rendered as JSON, text or a
 * pull-request comment. The summary's field names are a contract: `total`, `allowToDeny`,
 * `denyToAllow`, `reasonChanged`, `unchanged`, `notReplayed`, `errors` (each recorded line counts in
 * exactly one).
 */
import type { ReplayOutcome } from "../../emulator/sandbox/policy-cases";
import type { DistinctCall, MalformedLine } from "../../hooks/recorded-calls";
import { describeSide as describe, sideOf, type Side } from "./_decision-side";

export type FlipKind = "allowToDeny" | "denyToAllow" | "reasonChanged";

export interface CallsSummary {
  total: number;
  allowToDeny: number;
  denyToAllow: number;
  reasonChanged: number;
  unchanged: number;
  notReplayed: number;
  errors: number;
}

/** A distinct call and the lines that recorded it. */
interface CallGroup {
  /** The first recorded line's fields, as recorded. */
  call: Record<string, unknown>;
  count: number;
  /** Line numbers, the first `LINES_LISTED`. */
  lines: number[];
}

export interface Flip extends CallGroup {
  kind: FlipKind;
  base: Side;
  head: Side;
}

export interface NotReplayed extends CallGroup {
  why: string;
}

export type ReplayError = { line: number; message: string } | (CallGroup & { message: string });

export interface CallsReport {
  summary: CallsSummary;
  /** Distinct calls replayed (identical pre payloads run once). */
  distinct: number;
  flips: Flip[];
  notReplayed: NotReplayed[];
  errors: ReplayError[];
}

const LINES_LISTED = 10;
const MARKDOWN_ROWS = 50;
const CALL_TEXT_CHARS = 160;
const ORDER: Record<FlipKind, number> = { allowToDeny: 0, denyToAllow: 1, reasonChanged: 2 };
const LABEL: Record<FlipKind, string> = { allowToDeny: "allow → deny", denyToAllow: "deny → allow", reasonChanged: "reason changed" };

/** `outcomes[i]` are `distinct[i]`'s verdicts on the base and the head (undefined: recorded without args, not run). */
export function callsReport(distinct: readonly DistinctCall[], outcomes: ReadonlyArray<{ base: ReplayOutcome; head: ReplayOutcome } | undefined>, malformed: readonly MalformedLine[]): CallsReport {
  const summary: CallsSummary = { total: malformed.length, allowToDeny: 0, denyToAllow: 0, reasonChanged: 0, unchanged: 0, notReplayed: 0, errors: malformed.length };
  const flips: Flip[] = [];
  const notReplayed: NotReplayed[] = [];
  const errors: ReplayError[] = malformed.map(({ line, message }) => ({ line, message }));
  distinct.forEach((call, index) => {
    const group: CallGroup = { call: call.record, count: call.lines.length, lines: call.lines.slice(0, LINES_LISTED) };
    const outcome = outcomes[index];
    summary.total += group.count;
    if (outcome === undefined) {
      summary.notReplayed += group.count;
      notReplayed.push({ ...group, why: "recorded without its args (too large to keep)" });
      return;
    }
    if ("error" in outcome.base || "error" in outcome.head) {
      summary.errors += group.count;
      const message = ["base" as const, "head" as const].flatMap((side) => ("error" in outcome[side] ? [`${side}: ${(outcome[side] as { error: string }).error}`] : [])).join("; ");
      errors.push({ ...group, message });
      return;
    }
    const urls = [...new Set([...outcome.base.httpNotCalled, ...outcome.head.httpNotCalled])];
    if (urls.length > 0) {
      summary.notReplayed += group.count;
      notReplayed.push({ ...group, why: `HTTP hooks not called (--http live calls them): ${urls.join(", ")}` });
      return;
    }
    const base = sideOf(outcome.base.verdict);
    const head = sideOf(outcome.head.verdict);
    const kind: FlipKind | undefined =
      base.decision !== head.decision ? (head.decision === "deny" ? "allowToDeny" : "denyToAllow") : (base.reason ?? "") !== (head.reason ?? "") ? "reasonChanged" : undefined;
    if (kind === undefined) {
      summary.unchanged += group.count;
      return;
    }
    summary[kind] += group.count;
    flips.push({ kind, ...group, base, head });
  });
  flips.sort((a, b) => ORDER[a.kind] - ORDER[b.kind] || b.count - a.count);
  return { summary, distinct: distinct.length, flips, notReplayed, errors };
}

/** One line: `13 recorded calls (5 distinct): 2 allow → deny, …`. */
export function summaryLine(report: CallsReport): string {
  const s = report.summary;
  return `${s.total} recorded call${s.total === 1 ? "" : "s"} (${report.distinct} distinct): ${s.allowToDeny} allow → deny, ${s.denyToAllow} deny → allow, ${s.reasonChanged} reason changed, ${s.unchanged} unchanged, ${s.notReplayed} not replayed, ${s.errors} error${s.errors === 1 ? "" : "s"}`;
}

export function callsText(report: CallsReport): string {
  let text = "";
  for (const flip of report.flips) {
    text += `${LABEL[flip.kind].toUpperCase()}  ${callText(flip.call)}  ×${flip.count} (${linesText(flip)})\n  before: ${describe(flip.base)}\n  after:  ${describe(flip.head)}\n`;
  }
  for (const skipped of report.notReplayed) text += `not replayed  ${callText(skipped.call)}  ×${skipped.count} (${linesText(skipped)}): ${skipped.why}\n`;
  for (const error of report.errors) text += `error  ${"call" in error ? `${callText(error.call)} (${linesText(error)})` : `line ${error.line}`}: ${error.message}\n`;
  return `${text}${summaryLine(report)}\n`;
}

export function callsMarkdown(report: CallsReport, labels: { base: string; head: string }): string {
  let text = `### Impact on recorded calls: \`${labels.base}\` → \`${labels.head}\`\n\n${summaryLine(report)}.\n`;
  if (report.flips.length === 0) text += "\nNo recorded call changes its decision or reason.\n";
  else {
    text += "\n| calls | change | tool call | before | after |\n| --- | --- | --- | --- | --- |\n";
    for (const flip of report.flips.slice(0, MARKDOWN_ROWS)) {
      text += `| ${flip.count} | ${LABEL[flip.kind]} | ${cell(callText(flip.call))} | ${cell(describe(flip.base))} | ${cell(describe(flip.head))} |\n`;
    }
    const rest = report.flips.slice(MARKDOWN_ROWS);
    if (rest.length > 0) {
      const counts = (kind: FlipKind) => rest.filter((flip) => flip.kind === kind).reduce((sum, flip) => sum + flip.count, 0);
      const parts = (Object.keys(ORDER) as FlipKind[]).filter((kind) => counts(kind) > 0).map((kind) => `${counts(kind)} ${LABEL[kind]}`);
      text += `\n…and ${rest.length} more distinct call${rest.length === 1 ? "" : "s"} (${rest.reduce((sum, flip) => sum + flip.count, 0)} recorded: ${parts.join(", ")}); \`--format json\` lists every one.\n`;
    }
  }
  if (report.notReplayed.length > 0) {
    const reasons = new Map<string, number>();
    for (const skipped of report.notReplayed) reasons.set(skipped.why, (reasons.get(skipped.why) ?? 0) + skipped.count);
    text += `\nNot replayed: ${[...reasons].map(([why, count]) => `${count} × ${why}`).join("; ")}.\n`;
  }
  if (report.errors.length > 0) {
    const listed = report.errors.slice(0, 10).map((error) => ("call" in error ? `lines ${error.lines.join(", ")}: ${error.message}` : `line ${error.line}: ${error.message}`));
    text += `\nErrors: ${cell(listed.join("; "))}${report.errors.length > 10 ? `; and ${report.errors.length - 10} more` : ""}.\n`;
  }
  return text;
}

/** `code_execution {"code":"rm -rf /"} env_abc`, cut at CALL_TEXT_CHARS. */
function callText(call: Record<string, unknown>): string {
  const toolCall = call.tool_call as { name?: unknown; args?: unknown } | undefined;
  const text = `${String(toolCall?.name)} ${JSON.stringify(toolCall?.args ?? null)}${typeof call.environment_id === "string" ? ` in ${call.environment_id}` : ""}`;
  return text.length > CALL_TEXT_CHARS ? `${text.slice(0, CALL_TEXT_CHARS)}…` : text;
}

function linesText(group: CallGroup): string {
  return `line${group.count === 1 ? "" : "s"} ${group.lines.join(", ")}${group.count > group.lines.length ? ", …" : ""}`;
}

function cell(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|").replace(/\n/g, " ");
}
