/**
 * `genv hooks lint FILE [--network FILE] [--format json|text] [--inline]`: the hooks linter on a file.
 * Exit code 1 when any finding is an error, 0 otherwise (warnings alone pass).
 */
import { Option, type Command } from "commander";
import { describeIssues, validationIssues } from "../../client/issues";
import type { Finding } from "../../hooks/lint";
import { hasErrors, lintHooks } from "../../hooks/lint";
import { Network } from "../../client/schemas";
import { CLIError } from "../errors";
import { readJsonFile, readText } from "./_input-files";
import { hooksCommand } from "./hooks";

export const LINT_FORMATS = ["text", "json"] as const;
export type LintFormat = (typeof LINT_FORMATS)[number];

export interface HooksLintArgs {
  /** Path of the hooks.json to check. */
  file: string;
  /** Path of a JSON file holding the environment's `network` value; omitted: all egress allowed. */
  networkFile?: string;
  /** `text` (default): one line per finding; `json`: `{file, findings}`. */
  format?: LintFormat;
  /** The hooks will be passed as inline sources (adds the inline-hooks-writable warning). */
  inlineSourced?: boolean;
}

/** Lints `file`; returns what to print and the exit code, or throws CLIError for unusable arguments. */
export function runHooksLint(args: HooksLintArgs): { output: string; exitCode: number } {
  const format = args.format ?? "text";
  if (!LINT_FORMATS.includes(format)) throw new CLIError(`--format must be one of ${LINT_FORMATS.join(", ")} (got ${JSON.stringify(format)})`, 2);
  const network = args.networkFile === undefined ? undefined : readNetwork(args.networkFile);
  const text = readText(args.file, "hooks file");
  let findings: Finding[];
  try {
    findings = lintHooks(JSON.parse(text), { network, inlineSourced: args.inlineSourced });
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    findings = [{ severity: "error", code: "schema", path: "", message: `is not valid JSON: ${error.message}` }];
  }
  const exitCode = hasErrors(findings) ? 1 : 0;
  if (format === "json") return { output: `${JSON.stringify({ file: args.file, findings }, null, 2)}\n`, exitCode };
  return { output: findings.map((f) => `${f.severity}  ${f.path || "(root)"}  ${f.code}  ${f.message}\n`).join(""), exitCode };
}

export function register(program: Command): void {
  hooksCommand(program)
    .command("lint")
    .description("Check a hooks.json: structure, RE2 matchers, tool names, HTTP targets against the network policy, secrets in headers")
    .argument("<file>", "the hooks.json to check")
    .option("--network <file>", 'JSON file with the environment\'s network value ("disabled" or {"allowlist": […]}); default: all egress allowed')
    .addOption(new Option("--format <format>", "output format").choices(LINT_FORMATS).default("text"))
    .option("--inline", "the hooks ship as inline sources (warn that the agent can rewrite them)")
    .action((file: string, options: { network?: string; format: LintFormat; inline?: boolean }) => {
      const { output, exitCode } = runHooksLint({ file, networkFile: options.network, format: options.format, inlineSourced: options.inline });
      process.stdout.write(output);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}

function readNetwork(file: string): Network {
  const result = Network.safeParse(readJsonFile(file, "network file"));
  if (!result.success) throw new CLIError(`network file ${file} is not a network value: ${describeIssues(validationIssues(result.error))}`, 2);
  return result.data;
}
