/**
 * `genv exec ENV_ID TOOL 'ARGS_JSON' [--base-url URL] [--api-key KEY] [--json]`: one container tool call
 * through the emulator's `:executeTool` (hooks in front and behind), e.g.
 * `genv exec env_abc code_execution '{"code": "echo hi"}'`.
 *
 * Exit codes: 0 when the hooks allowed the call (whatever the tool itself returned: its output, error
 * and exit_code are printed), 3 when a pre hook denied it, 1 when the API refused the request (unknown
 * environment or tool, expired environment, unreachable server), 2 for unusable arguments.
 */
import type { Command } from "commander";
import type { ExecuteToolResponse } from "../../client/schemas";
import { CLIError } from "../errors";
import { API_OPTIONS, withClient, type ApiArgs } from "./_api-client";
import { formatHooks } from "./_hooks-table";

/** Exit code of a denied call. */
export const EXIT_DENIED = 3;

export interface ExecArgs extends ApiArgs {
  /** `env_abc123` or `environments/env_abc123`. */
  environment: string;
  /** Container tool name, e.g. `code_execution`. */
  tool: string;
  /** The tool's arguments as a JSON object text, e.g. `{"code": "echo hi"}`; default `{}`. */
  argsJson?: string;
  /** Print the raw response JSON instead of the text report. */
  json?: boolean;
}

/** A tool call may run for minutes (its own timeout, hooks'): 5 min per attempt. */
const EXEC_TIMEOUT_MS = 300_000;

/** Runs the call; returns what to print and the exit code, or throws CLIError. */
export async function runExec(args: ExecArgs): Promise<{ output: string; exitCode: number }> {
  const toolArgs = parseArgs(args.argsJson);
  const result = await withClient(args, (client) => client.executeTool(args.environment, { name: args.tool, args: toolArgs }), EXEC_TIMEOUT_MS);
  const exitCode = result.decision === "deny" ? EXIT_DENIED : 0;
  return { output: args.json ? `${JSON.stringify(result, null, 2)}\n` : formatResult(result), exitCode };
}

/** The text report: decision, reason, exit code, output, error, hooks table. */
export function formatResult(result: ExecuteToolResponse): string {
  let text = `decision: ${result.decision}\n`;
  if (result.reason !== undefined) text += `reason: ${result.reason}\n`;
  if (result.exit_code !== undefined) text += `exit_code: ${result.exit_code}\n`;
  if (result.output !== undefined) text += `output:\n${block(result.output)}`;
  if (result.error !== undefined) text += `error:\n${block(result.error)}`;
  return `${text}hooks:\n${formatHooks(result.hooks)}`;
}

export function register(program: Command): void {
  program
    .command("exec")
    .description("run one sandbox tool call in an emulator environment, with its hooks (emulator extension :executeTool)")
    .argument("<environment>", "environment id, e.g. env_abc123")
    .argument("<tool>", "code_execution, view_file, write_to_file, replace_file_content, list_dir or delete_file")
    .argument("[args]", 'the tool\'s arguments as JSON, e.g. \'{"code": "echo hi"}\'', "{}")
    .option(API_OPTIONS[0][0], "emulator URL (default: $GOOGLE_GEMINI_BASE_URL)")
    .option(API_OPTIONS[1][0], API_OPTIONS[1][1])
    .option("--json", "print the response JSON")
    .action(async (environment: string, tool: string, argsJson: string, options: { baseUrl?: string; apiKey?: string; json?: boolean }) => {
      const { output, exitCode } = await runExec({ environment, tool, argsJson, ...options });
      process.stdout.write(output);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}

function parseArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CLIError(`ARGS_JSON is not valid JSON: ${(error as Error).message}; e.g. '{"code": "echo hi"}'`, 2);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CLIError(`ARGS_JSON must be a JSON object of the tool's arguments, e.g. '{"path": "/workspace/a.txt"}'`, 2);
  }
  return value as Record<string, unknown>;
}

function block(text: string): string {
  if (text === "") return "  (empty)\n";
  return text.replace(/\n$/, "").split("\n").map((line) => `  ${line}\n`).join("");
}
