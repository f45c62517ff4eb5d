/**
 * `genv env calls ENV_ID [--since TIME] [--limit N]`: the tool calls the emulator executed in an
 * environment, one JSON line each, oldest first — hook payloads (`tool_call`, `environment_id`) with
 * the pre hooks' `decision` and `reason`, the `time` and, when the tool failed, its `error`: what
 * `genv hooks diff --calls` replays. An emulator extension (the hosted service answers 404; its calls
 * come from an audit endpoint instead: docs/hooks-and-policies.md).
 */
import type { Command } from "commander";
import ms from "ms";
import type { RecordedToolCall } from "../../client/schemas";
import { CLIError } from "../errors";
import { API_OPTIONS, withClient, type ApiArgs } from "./_api-client";
import { envCommand } from "./env";

export interface EnvCallsArgs extends ApiArgs {
  /** `env_abc123` or `environments/env_abc123`. */
  environment: string;
  /** From this time on: RFC 3339 (`2026-12-01T00:00:00Z`) or a duration back from now (`24h`, `7d`). */
  since?: string;
  /** Only the most recent `limit` calls. */
  limit?: string;
  /** Clock for `--since 7d`. */
  now?: () => number;
}

export async function runEnvCalls(args: EnvCallsArgs): Promise<{ output: string }> {
  const since = sinceOf(args.since, args.now ?? Date.now);
  const limit = limitOf(args.limit);
  const calls = await withClient(args, async (client) => {
    const all: RecordedToolCall[] = [];
    for await (const call of client.listAllToolCalls({ environment: args.environment, since, pageSize: 1000 })) all.push(call);
    return all;
  });
  const kept = limit === undefined ? calls : calls.slice(Math.max(0, calls.length - limit));
  return { output: kept.map((call) => `${JSON.stringify(call)}\n`).join("") };
}

function sinceOf(text: string | undefined, now: () => number): string | undefined {
  if (text === undefined) return undefined;
  if (/^\d{4}-\d\d-\d\dT/.test(text)) {
    if (Number.isNaN(Date.parse(text))) throw new CLIError(`--since ${text}: not a time; e.g. 2026-12-01T00:00:00Z or 7d`, 2);
    return new Date(Date.parse(text)).toISOString();
  }
  const back = ms(text as ms.StringValue) as number | undefined;
  if (typeof back !== "number" || !(back > 0)) throw new CLIError(`--since ${text}: neither an RFC 3339 time (2026-12-01T00:00:00Z) nor a duration (24h, 7d)`, 2);
  return new Date(now() - back).toISOString();
}

function limitOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new CLIError(`--limit ${text}: must be a whole number of calls, at least 1`, 2);
  return Number(text);
}

export function register(program: Command): void {
  envCommand(program)
    .command("calls")
    .description("print the tool calls the emulator executed in an environment, as JSON lines (for genv hooks diff --calls)")
    .argument("<environment>", "environment id, e.g. env_abc123")
    .option("--since <time>", "from this time on: RFC 3339 (2026-12-01T00:00:00Z) or a duration back from now (24h, 7d)")
    .option("--limit <n>", "only the most recent n calls")
    .option(API_OPTIONS[0][0], "emulator URL (default: $GOOGLE_GEMINI_BASE_URL)")
    .option(API_OPTIONS[1][0], API_OPTIONS[1][1])
    .action(async (environment: string, options: Omit<EnvCallsArgs, "environment">) => {
      process.stdout.write((await runEnvCalls({ environment, ...options })).output);
    });
}
