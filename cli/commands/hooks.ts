/**
 * The `genv hooks` parent command, shared by `hooks lint` and `hooks test`: each registers its
 * subcommand on whatever `hooksCommand(program)` returns, in any order.
 */
import type { Command } from "commander";

/** Finds or creates the `hooks` subcommand of `program`. */
export function hooksCommand(program: Command): Command {
  const existing = program.commands.find((command) => command.name() === "hooks");
  if (existing) return existing;
  return program.command("hooks").description("Check and try out .agents/hooks.json (guardrails around sandbox tool calls)");
}
