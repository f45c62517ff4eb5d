/**
 * `genv env files ENV_ID [PATH] [--recursive] [--json]`: a directory's entries (every page), or the
 * one entry of a file, e.g. `genv env files env_abc workspace --recursive`.
 */
import type { Command } from "commander";
import type { EnvironmentFile } from "../../client/schemas";
import { formatBytes } from "../../client/units";
import { withClient, type ApiArgs } from "./_api-client";
import { formatTable } from "./_table";
import { envCommand, withApiOptions } from "./env";

export interface EnvFilesArgs extends ApiArgs {
  /** `env_abc123` or `environments/env_abc123`. */
  environment: string;
  /** Directory or file relative to the environment root; default the root. */
  path?: string;
  /** Every file under the directory, not only its direct entries. */
  recursive?: boolean;
  /** Print the entries as a JSON array instead of a table. */
  json?: boolean;
}

export async function runEnvFiles(args: EnvFilesArgs): Promise<{ output: string }> {
  const files = await withClient(args, async (client) => {
    const all: EnvironmentFile[] = [];
    const params = { environment: args.environment, path: args.path ?? "", recursive: args.recursive, pageSize: 1000 };
    for await (const file of client.files.listAll(params)) all.push(file);
    return all;
  });
  if (args.json) return { output: `${JSON.stringify(files, null, 2)}\n` };
  if (files.length === 0) return { output: `no files under ${args.path ? `"${args.path}"` : "the root"}\n` };
  const rows = files.map((file) => [
    file.type ?? "-",
    file.size_bytes === undefined ? "-" : formatBytes(Number(file.size_bytes)),
    file.modified ?? "-",
    file.type === "directory" ? `${file.path}/` : (file.path ?? file.name ?? ""),
  ]);
  return { output: formatTable(["TYPE", "SIZE", "MODIFIED", "PATH"], rows) };
}

export function register(program: Command): void {
  withApiOptions(
    envCommand(program)
      .command("files")
      .description("list an environment's files: a directory's entries, or one file's")
      .argument("<environment>", "environment id, e.g. env_abc123")
      .argument("[path]", "directory or file relative to the environment root (default: the root)", "")
      .option("--recursive", "every file under the directory"),
  ).action(async (environment: string, path: string, options: Omit<EnvFilesArgs, "environment" | "path">) => {
    process.stdout.write((await runEnvFiles({ environment, path, ...options })).output);
  });
}
