/**
 * `genv hooks diff --base <dir|git-ref> [--head <dir>] [--path .agents] --cases FILE [--format markdown|json|text]`:
 * what a change to the hooks changes in the decisions, for a pull request. The same cases as
 * `genv hooks test` run against the old hooks and the new ones (each in the sandbox, the tools never
 * run), and every case whose decision or reason changed is reported — and every case that now fails
 * open (a hook crashed, timed out or printed junk) where it did not before.
 *
 * A side is laid out like `.agents/`: `hooks.json` and `hooks-scripts/`. `--base` is such a
 * directory, or else a git ref, read at `--path` (default `.agents`) in the repository of the current
 * directory (`git archive`, so the working tree is not touched). `--head` defaults to `--path` in the
 * working tree. Exit 0 when no decision changed, 1 when one did (reason-only changes and new
 * fail-opens are reported but do not fail), 2 for unusable input.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, promises as fs, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import type { Command } from "commander";
import * as tar from "tar";
import type { HooksVerdict } from "../../hooks/runtime";
import { CLIError } from "../errors";
import { hooksCommand } from "./hooks";
import { caseName, checkHooks, readCases, runCases, type HooksTestCase, type HooksUnderTest } from "./hooks-test";

export type DiffFormat = "markdown" | "json" | "text";

export interface HooksDiffArgs {
  base: string;
  head?: string;
  /** Where the hooks live inside the repository, for a git ref (and the default head). */
  path?: string;
  casesFile: string;
  format?: DiffFormat;
  /** The repository a git ref is read from; default the current directory. */
  repo?: string;
}

export interface CaseChange {
  name: string;
  base: Side;
  head: Side;
  /** What changed: `decision`, `reason`, `fails-open`. */
  changed: Array<"decision" | "reason" | "fails-open">;
}

interface Side {
  decision: "allow" | "deny";
  reason?: string;
  /** Hooks that failed open, as `group/event: failure`. */
  failedOpen: string[];
}

export async function runHooksDiff(args: HooksDiffArgs): Promise<{ output: string; exitCode: number; changes: CaseChange[] }> {
  const cases = readCases(args.casesFile);
  const repo = args.repo ?? process.cwd();
  const where = args.path ?? ".agents";
  const scratch = mkdtempSync(path.join(os.tmpdir(), "genv-hooks-diff-"));
  try {
    const base = await sideOf(args.base, "--base", { repo, where, scratch });
    const head = await sideOf(args.head ?? path.join(repo, where), "--head", { repo, where, scratch, directoryOnly: true });
    const [baseVerdicts, headVerdicts] = [await runCases(base, cases, "env_hooks_diff"), await runCases(head, cases, "env_hooks_diff")];
    const changes = cases
      .map((testCase, index) => changeOf(testCase, index, baseVerdicts[index], headVerdicts[index]))
      .filter((change): change is CaseChange => change !== undefined);
    const decisionsChanged = changes.some((change) => change.changed.includes("decision"));
    const output = render(args.format ?? "text", changes, cases.length, { base: args.base, head: args.head ?? where });
    return { output, exitCode: decisionsChanged ? 1 : 0, changes };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** A side's hooks: a directory, or (not for `--head`) a git ref read at `where`. */
async function sideOf(spec: string, flag: string, context: { repo: string; where: string; scratch: string; directoryOnly?: boolean }): Promise<HooksUnderTest> {
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
  const before = sideView(base);
  const after = sideView(head);
  const changed: CaseChange["changed"] = [];
  if (before.decision !== after.decision) changed.push("decision");
  if ((before.reason ?? "") !== (after.reason ?? "")) changed.push("reason");
  if (after.failedOpen.some((failure) => !before.failedOpen.includes(failure))) changed.push("fails-open");
  return changed.length === 0 ? undefined : { name: caseName(testCase, index), base: before, head: after, changed };
}

function sideView(verdict: HooksVerdict): Side {
  return {
    decision: verdict.decision,
    ...(verdict.reason !== undefined && { reason: verdict.reason }),
    failedOpen: verdict.hooks.filter((hook) => hook.failure !== undefined).map((hook) => `${hook.group || hook.handler}/${hook.event}: ${hook.failure}`),
  };
}

function render(format: DiffFormat, changes: readonly CaseChange[], total: number, labels: { base: string; head: string }): string {
  if (format === "json") return `${JSON.stringify({ base: labels.base, head: labels.head, cases: total, changes }, null, 2)}\n`;
  const decisions = changes.filter((change) => change.changed.includes("decision")).length;
  const summary = `${total} cases: ${decisions} decision${decisions === 1 ? "" : "s"} changed, ${changes.length - decisions} other change${changes.length - decisions === 1 ? "" : "s"}`;
  const describe = (side: Side) => `${side.decision}${side.reason !== undefined ? ` (${side.reason})` : ""}${side.failedOpen.length > 0 ? ` — fails open: ${side.failedOpen.join("; ")}` : ""}`;
  if (format === "markdown") {
    const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
    let text = `### Hooks policy diff: \`${labels.base}\` → \`${labels.head}\`\n\n${summary}.\n`;
    if (changes.length === 0) return `${text}\nNo decision, reason or fail-open changed.\n`;
    text += "\n| case | changed | before | after |\n| --- | --- | --- | --- |\n";
    for (const change of changes) text += `| ${cell(change.name)} | ${change.changed.join(", ")} | ${cell(describe(change.base))} | ${cell(describe(change.head))} |\n`;
    return text;
  }
  let text = "";
  for (const change of changes) text += `${change.changed.includes("decision") ? "CHANGED" : "changed"}  ${change.name}  [${change.changed.join(", ")}]\n  before: ${describe(change.base)}\n  after:  ${describe(change.head)}\n`;
  return `${text}${summary}\n`;
}

export function register(program: Command): void {
  hooksCommand(program)
    .command("diff")
    .description("run the same policy cases against the old and the new hooks and report what changed (for pull requests)")
    .requiredOption("--base <dir|ref>", "the old hooks: a directory laid out like .agents/ (hooks.json, hooks-scripts/), or a git ref")
    .option("--head <dir>", "the new hooks: a directory like .agents/ (default: --path in the working tree)")
    .option("--path <path>", "where the hooks live in the repository, for a git ref and the default head", ".agents")
    .requiredOption("--cases <file>", "JSON array of cases, as for genv hooks test")
    .option("--format <format>", "markdown (a pull-request comment), json or text", "text")
    .action(async (options: { base: string; head?: string; path: string; cases: string; format: string }) => {
      if (!["markdown", "json", "text"].includes(options.format)) throw new CLIError(`--format: "${options.format}" is not one of markdown, json, text`, 2);
      const { output, exitCode } = await runHooksDiff({ base: options.base, head: options.head, path: options.path, casesFile: options.cases, format: options.format as DiffFormat });
      process.stdout.write(output);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
