/**
 * `genv env rm ENV_ID [--json]`: deletes an environment and its files. An unknown id (or another
 * key's) is exit 1. It does not touch a Pulumi stack that manages it: the next refresh drops it there.
 */
import type { Command } from "commander";
import { withClient, type ApiArgs } from "./_api-client";
import { envCommand, withApiOptions } from "./env";

export interface EnvRmArgs extends ApiArgs {
  /** `env_abc123` or `environments/env_abc123`. */
  environment: string;
  /** Print `{"id": …, "deleted": true}`. */
  json?: boolean;
}

export async function runEnvRm(args: EnvRmArgs): Promise<{ output: string }> {
  await withClient(args, (client) => client.delete(args.environment));
  const id = args.environment.replace(/^environments\//, "");
  return { output: args.json ? `${JSON.stringify({ id, deleted: true })}\n` : `deleted ${id}\n` };
}

export function register(program: Command): void {
  withApiOptions(envCommand(program).command("rm").description("delete an environment and its files").argument("<environment>", "environment id, e.g. env_abc123")).action(
    async (environment: string, options: Omit<EnvRmArgs, "environment">) => {
      process.stdout.write((await runEnvRm({ environment, ...options })).output);
    },
  );
}
