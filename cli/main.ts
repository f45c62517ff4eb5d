#!/usr/bin/env node
/**
 * `genv`: the one place that parses arguments, prints and exits. Each command lives in
 * cli/commands/<name>.ts as `register(program)` plus a pure `run…` that returns or throws CLIError.
 */
import { Command, CommanderError } from "commander";
import { CLIError } from "./errors";

/** A command module's `register`: adds its command to the program. */
type Register = (program: Command) => void;

/**
 * Each top-level command's modules, in the order help lists them. Only the named command's are
 * loaded: `genv serve`, which a long-lived emulator restarts with, would otherwise load the API
 * client (undici) and the hooks tooling the others use, two thirds of its start-up's CPU.
 */
const COMMANDS: Record<string, () => Register[]> = {
  serve: () => [require("./commands/serve").register],
  hooks: () => [require("./commands/hooks-lint").register, require("./commands/hooks-test").register, require("./commands/hooks-diff").register, require("./commands/hooks-probe").register],
  policy: () => [require("./commands/policy-report").register],
  exec: () => [require("./commands/exec").register],
  recover: () => [require("./commands/recover").register],
  env: () => [require("./commands/env-list").register, require("./commands/env-get").register, require("./commands/env-files").register, require("./commands/env-cat").register, require("./commands/env-calls").register, require("./commands/env-rm").register],
};

/** `genv` with every command, or with only `command`'s when it is one (what the command line names first). */
export function buildProgram(command?: string): Command {
  const program = new Command("genv")
    .description("Gemini Environments as code: local emulator, a look inside an API, hooks tooling")
    .showHelpAfterError()
    .exitOverride();
  const named = command !== undefined && Object.hasOwn(COMMANDS, command) ? [COMMANDS[command]] : Object.values(COMMANDS);
  for (const registers of named) for (const register of registers()) register(program);
  return program;
}

/**
 * Runs `program` (built with `exitOverride`) on `argv`: commander's own exits (help, a bad option)
 * keep their exit code, a CLIError is printed as `name: message` with its exit code, anything else
 * is a bug and propagates. Also the demo's (devtools/demo.ts).
 */
export async function runProgram(program: Command, argv: string[], name: string): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    if (error instanceof CLIError) {
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    throw error;
  }
}

if (require.main === module) {
  void runProgram(buildProgram(process.argv[2]), process.argv, "genv");
}
