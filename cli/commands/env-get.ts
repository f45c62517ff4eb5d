/**
 * `genv env get ENV_ID [--json]`: one environment as the API returns it — mode, status, times, counts,
 * network, sources (inline content summarised by its size; `--json` shows all of it), and a
 * self_hosted environment's system_instruction and custom_config. Its key is never shown: the API
 * returns it at create only.
 */
import type { Command } from "commander";
import type { Environment } from "../../client/schemas";
import { formatBytes } from "../../client/units";
import { withClient, type ApiArgs } from "./_api-client";
import { formatFields } from "./_table";
import { envCommand, withApiOptions } from "./env";

export interface EnvGetArgs extends ApiArgs {
  /** `env_abc123` or `environments/env_abc123`. */
  environment: string;
  /** Print the API's JSON as is. */
  json?: boolean;
}

export async function runEnvGet(args: EnvGetArgs): Promise<{ output: string }> {
  const environment = await withClient(args, (client) => client.get(args.environment));
  if (args.json) return { output: `${JSON.stringify(environment, null, 2)}\n` };
  return { output: formatEnvironment(environment) };
}

/** The text report of one environment. */
export function formatEnvironment(environment: Environment): string {
  const json = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value));
  const sources = (environment.sources ?? []) as Array<{ type?: string; target?: string; source?: string; content?: string; encoding?: string }>;
  let text = formatFields([
    ["id", environment.id],
    ["mode", environment.mode],
    ["status", environment.status],
    ["created", environment.created],
    ["updated", environment.updated],
    ["last_accessed", environment.last_accessed],
    ["file_count", environment.file_count],
    ["size_bytes", environment.size_bytes === undefined ? undefined : `${environment.size_bytes} (${formatBytes(Number(environment.size_bytes))})`],
    ["network", environment.network === undefined ? "(all egress allowed)" : json(environment.network)],
    ["system_instruction", json(environment.system_instruction)],
    ["custom_config", json(environment.custom_config)],
    ["sources", sources.length === 0 ? "(none)" : String(sources.length)],
  ]);
  for (const source of sources) {
    const what =
      source.type === "inline"
        ? `${source.content === undefined ? 0 : inlineBytes(source.content, source.encoding)} bytes inline${source.encoding ? ` (${source.encoding})` : ""}`
        : (source.source ?? "");
    text += `  ${(source.type ?? "?").padEnd(14)}  ${(source.target ?? "(default)").padEnd(24)}  ${what}\n`;
  }
  return text;
}

function inlineBytes(content: string, encoding: string | undefined): number {
  return encoding === "base64" ? Buffer.from(content, "base64").length : Buffer.byteLength(content);
}

export function register(program: Command): void {
  withApiOptions(envCommand(program).command("get").description("show one environment").argument("<environment>", "environment id, e.g. env_abc123")).action(
    async (environment: string, options: Omit<EnvGetArgs, "environment">) => {
      process.stdout.write((await runEnvGet({ environment, ...options })).output);
    },
  );
}
