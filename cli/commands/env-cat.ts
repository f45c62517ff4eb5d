/**
 * `genv env cat ENV_ID PATH [--json]`: a file's bytes on stdout, as they are (binary included), e.g.
 * `genv env cat env_abc workspace/report.json | jq .`. With `--json`: `{path, content_type,
 * size_bytes, encoding, content}`, the content as UTF-8 text when it is, else base64.
 */
import type { Command } from "commander";
import { withClient, type ApiArgs } from "./_api-client";
import { envCommand, withApiOptions } from "./env";

export interface EnvCatArgs extends ApiArgs {
  /** `env_abc123` or `environments/env_abc123`. */
  environment: string;
  /** The file, relative to the environment root, e.g. `workspace/main.py`. */
  path: string;
  /** Print a JSON object with the content instead of the raw bytes. */
  json?: boolean;
}

export async function runEnvCat(args: EnvCatArgs): Promise<{ output: string | Buffer }> {
  const file = await withClient(args, (client) => client.files.downloadBuffer(args.environment, args.path));
  if (!args.json) return { output: file.data };
  const text = file.data.toString("utf8");
  const utf8 = Buffer.from(text, "utf8").equals(file.data);
  const report = {
    path: args.path.replace(/^\/+/, ""),
    ...(file.contentType !== undefined && { content_type: file.contentType }),
    size_bytes: String(file.data.length),
    encoding: utf8 ? "utf-8" : "base64",
    content: utf8 ? text : file.data.toString("base64"),
  };
  return { output: `${JSON.stringify(report, null, 2)}\n` };
}

export function register(program: Command): void {
  withApiOptions(
    envCommand(program)
      .command("cat")
      .description("print a file of an environment")
      .argument("<environment>", "environment id, e.g. env_abc123")
      .argument("<path>", "file relative to the environment root, e.g. workspace/main.py"),
  ).action(async (environment: string, path: string, options: Omit<EnvCatArgs, "environment" | "path">) => {
    process.stdout.write((await runEnvCat({ environment, path, ...options })).output);
  });
}
