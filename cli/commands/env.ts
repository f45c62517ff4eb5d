/**
 * The `genv env` parent command: looking inside an Environments API, the emulator or the hosted one.
 * Each subcommand (env-list.ts, env-get.ts, env-files.ts, env-cat.ts, env-calls.ts, env-rm.ts) registers itself
 * on whatever `envCommand(program)` returns, in any order.
 */
import type { Command } from "commander";
import { API_OPTIONS } from "./_api-client";

/** Finds or creates the `env` subcommand of `program`. */
export function envCommand(program: Command): Command {
  const existing = program.commands.find((command) => command.name() === "env");
  if (existing) return existing;
  return program.command("env").description("look inside an Environments API (genv serve or the hosted one): list, get, files, cat, calls, rm");
}

/** `--base-url`, `--api-key` and `--json` on a subcommand. */
export function withApiOptions(command: Command): Command {
  for (const [flags, description] of API_OPTIONS) command.option(flags, description);
  return command.option("--json", "print JSON instead of a table");
}
