/**
 * `genv recover [--stack NAME] [--dry-run]`: after a killed `pulumi up` (and `pulumi cancel`), finds
 * the environments its creates made but never recorded and hands them to the engine, so that the
 * next `pulumi up` creates only what is missing (provider/recovery.ts says how, and what it refuses).
 * Run in the program's directory with the environment `pulumi` runs with. Exit 1 when it refuses:
 * nothing changed, and the message names the environments and the commands to finish by hand.
 */
import type { Command } from "commander";
import { ConfigurationError } from "../../client/errors";
import { pulumiRunner, recoverInterruptedDeploy, RecoveryRefusedError, type PulumiRunner } from "../../provider/recovery";
import { CLIError } from "../errors";

export interface RecoverArgs {
  /** Default: the selected stack. */
  stack?: string;
  /** Print the plan, change nothing. */
  dryRun?: boolean;
  /** How `pulumi` is run; default the `pulumi` on PATH in the current directory. */
  pulumi?: PulumiRunner;
}

export async function runRecover(args: RecoverArgs): Promise<{ output: string }> {
  try {
    const report = await recoverInterruptedDeploy(args.pulumi ?? pulumiRunner(), { stack: args.stack, dryRun: args.dryRun });
    return { output: `${report.lines.join("\n")}\n` };
  } catch (error) {
    if (error instanceof RecoveryRefusedError) throw new CLIError(error.report.lines.join("\n"), 1);
    if (error instanceof ConfigurationError) throw new CLIError(`${error.message} (set them as for pulumi: GOOGLE_API_KEY, or the stack config gemini-environments:apiKey)`, 2);
    if (error instanceof Error) throw new CLIError(error.message, 1);
    throw error;
  }
}

export function register(program: Command): void {
  program
    .command("recover")
    .description("after an interrupted pulumi up or destroy: adopt the environments its creates made, clear the rest (run in the program's directory)")
    .option("--stack <name>", "the stack (default: the selected one)")
    .option("--dry-run", "print what it found and would do; change nothing")
    .action(async (options: RecoverArgs) => {
      process.stdout.write((await runRecover(options)).output);
    });
}
