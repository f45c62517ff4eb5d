#!/usr/bin/env node
/**
 * `genv`: the one place that parses arguments, prints and exits. Each command lives in
 * cli/commands/<name>.ts as `register(program)` plus a pure `run…` that returns or throws CLIError.
 */
import { Command, CommanderError } from "commander";
import * as exec from "./commands/exec";
import * as envCalls from "./commands/env-calls";
import * as envCat from "./commands/env-cat";
import * as envFiles from "./commands/env-files";
import * as envGet from "./commands/env-get";
import * as envList from "./commands/env-list";
import * as envRm from "./commands/env-rm";
import * as hooksDiff from "./commands/hooks-diff";
import * as hooksLint from "./commands/hooks-lint";
import * as hooksProbe from "./commands/hooks-probe";
import * as hooksTest from "./commands/hooks-test";
import * as policyReport from "./commands/policy-report";
import * as recover from "./commands/recover";
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
  hooksProbe.register(program);
  policyReport.register(program);
  exec.register(program);
  recover.register(program);
  for (const command of [envList, envGet, envFiles, envCat, envCalls, envRm]) command.register(program);
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
  void runProgram(buildProgram(), process.argv, "genv");
}
