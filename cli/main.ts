#!/usr/bin/env node
/**
 * `genv`: the one place that parses arguments, prints and exits. Each command lives in
 * cli/commands/<name>.ts as `register(program)` plus a pure `run…` that returns or throws CLIError.
 */
import { Command, CommanderError } from "commander";
import * as exec from "./commands/exec";
import * as envCat from "./commands/env-cat";
import * as envFiles from "./commands/env-files";
import * as envGet from "./commands/env-get";
import * as envList from "./commands/env-list";
import * as envRm from "./commands/env-rm";
import * as hooksDiff from "./commands/hooks-diff";
import * as hooksLint from "./commands/hooks-lint";
import * as hooksTest from "./commands/hooks-test";
import * as serve from "./commands/serve";
import { CLIError } from "./errors";

export function buildProgram(): Command {
  const program = new Command("genv")
    .description("Gemini Environments as code: local emulator, a look inside an API, hooks tooling")
    .showHelpAfterError()
    .exitOverride();
  serve.register(program);
  hooksLint.register(program);
  hooksTest.register(program);
  hooksDiff.register(program);
  exec.register(program);
  for (const command of [envList, envGet, envFiles, envCat, envRm]) command.register(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    if (error instanceof CLIError) {
      process.stderr.write(`genv: ${error.message}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    throw error;
  }
}

if (require.main === module) {
  void main(process.argv);
}
