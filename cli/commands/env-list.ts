/**
 * `genv env list [--mode MODE] [--json]`: every environment of the key, page after page, oldest
 * first, e.g. `genv env list --mode self_hosted`.
 */
import type { Command } from "commander";
import type { Environment } from "../../client/schemas";
import { formatBytes } from "../../client/units";
import { withClient, type ApiArgs } from "./_api-client";
import { formatTable } from "./_table";
import { envCommand, withApiOptions } from "./env";

export interface EnvListArgs extends ApiArgs {
  /** Only environments of this mode (`on_demand`, `self_hosted`); the API checks the value. */
  mode?: string;
  /** Print the environments as a JSON array instead of a table. */
  json?: boolean;
}

export async function runEnvList(args: EnvListArgs): Promise<{ output: string }> {
  const environments = await withClient(args, async (client) => {
    const all: Environment[] = [];
    for await (const environment of client.listAll({ mode: args.mode, pageSize: 1000 })) all.push(environment);
    return all;
  });
  if (args.json) return { output: `${JSON.stringify(environments, null, 2)}\n` };
  if (environments.length === 0) return { output: args.mode ? `no ${args.mode} environments\n` : "no environments\n" };
  const rows = environments.map((environment) => [
    environment.id,
    environment.mode ?? "-",
    environment.status ?? "-",
    environment.file_count ?? "-",
    environment.size_bytes === undefined ? "-" : formatBytes(Number(environment.size_bytes)),
    environment.created ?? "-",
    environment.last_accessed ?? "-",
  ]);
  return { output: formatTable(["ID", "MODE", "STATUS", "FILES", "SIZE", "CREATED", "LAST ACCESSED"], rows) };
}

export function register(program: Command): void {
  withApiOptions(
    envCommand(program)
      .command("list")
      .description("list the environments of the API key, oldest first")
      .option("--mode <mode>", "only environments of this mode: on_demand or self_hosted"),
  ).action(async (options: EnvListArgs) => {
    process.stdout.write((await runEnvList(options)).output);
  });
}
