/**
 * `getEnvironmentFile`: one file of an environment, e.g. a report an agent wrote, as text (`content`)
 * when it is UTF-8, else as base64 (`contentBase64`), with its size and modification time. A path that
 * is a directory, or that holds nothing, is an error naming it; so is an unknown environment.
 */
import { isUtf8 } from "node:buffer";
import { z } from "zod";
import type { EnvironmentsClient } from "../../client/client";
import { isNotFound } from "../../client/errors";
import { issueAt } from "../../client/issues";
import type { EnvironmentFile } from "../../client/schemas";
import { formatBytes } from "../../client/units";
import { InvalidInputError } from "../contracts/errors";
import { orNotFound, type FunctionCore } from "../contracts/function-core";
import { GetEnvironmentArgs, unknownEnvironment } from "./environments";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export const GetEnvironmentFileArgs = z.strictObject({
  environmentId: GetEnvironmentArgs.shape.id,
  path: z
    .string()
    .min(1, { error: "is empty: give a file's path relative to the environment root, e.g. workspace/report.md" })
    .meta({ description: "The file's path relative to the environment root, e.g. `workspace/report.md` (a leading `/` is ignored)." }),
});
export type GetEnvironmentFileArgs = z.infer<typeof GetEnvironmentFileArgs>;

export const EnvironmentFileContent = z
  .object({
    path: z.string().meta({ description: "The file's path relative to the environment root." }),
    content: z.string().optional().meta({ description: "The file's text, when its bytes are UTF-8; otherwise absent and `contentBase64` holds them." }),
    contentBase64: z.string().optional().meta({ description: "The file's bytes in base64, when they are not UTF-8 text (then `content` is absent)." }),
    sizeBytes: z.number().int().meta({ description: "The file's size, in bytes." }),
    modified: z.string().meta({ description: "Last modification time, ISO 8601." }),
    mimeType: z.string().optional().meta({ description: "The file's media type as the API reports it, e.g. `text/markdown`." }),
  })
  .meta({ description: "One file of an environment: its content and metadata." });
export type EnvironmentFileContent = z.infer<typeof EnvironmentFileContent>;

/**
 * The largest file a lookup returns: its content travels in one message through the engine to the
 * program and sits in the program's memory, a third larger as base64. A lookup is for a report or a
 * config an agent wrote; an archive is for `genv env cat` or the client.
 */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The function
// ---------------------------------------------------------------------------------------------

export const getEnvironmentFile: FunctionCore<typeof GetEnvironmentFileArgs, typeof EnvironmentFileContent> = {
  name: "getEnvironmentFile",
  description: `Reads one file of an environment (up to ${formatBytes(MAX_FILE_BYTES)}): its text, or its bytes in base64, its size and modification time.`,
  args: GetEnvironmentFileArgs,
  result: EnvironmentFileContent,
  async invoke(client, { environmentId, path }) {
    const relative = path.replace(/^\/+/, "");
    const entry = await metadata(client, environmentId, relative);
    if (entry.type === "directory") throw pathError(environmentId, relative, "is-directory", "is a directory, not a file: give the path of a file in it");
    const size = Number(entry.size_bytes ?? 0);
    if (size > MAX_FILE_BYTES) {
      throw pathError(environmentId, relative, "too-large", `is ${size} bytes; a lookup reads files up to ${formatBytes(MAX_FILE_BYTES)}: read it with \`genv env cat\` or the client`);
    }
    // Not found now: removed since its metadata was read.
    const { data } = await orNotFound(client.files.downloadBuffer(environmentId, relative), () => missing(environmentId, relative));
    return {
      path: entry.path ?? relative,
      ...(isUtf8(data) ? { content: data.toString("utf8") } : { contentBase64: data.toString("base64") }),
      sizeBytes: data.length,
      modified: entry.modified ?? "",
      ...(entry.mime_type !== undefined && { mimeType: entry.mime_type }),
    };
  },
};

/** The path's entry; a 404 is the environment's when the environment is unknown, else the path's. */
async function metadata(client: EnvironmentsClient, environmentId: string, path: string): Promise<EnvironmentFile> {
  try {
    return await client.files.metadata(environmentId, path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    const environmentFound = await client.get(environmentId).then(
      () => true,
      (getError: unknown) => {
        if (isNotFound(getError)) return false;
        throw getError;
      },
    );
    throw environmentFound ? missing(environmentId, path) : unknownEnvironment("getEnvironmentFile", ["environmentId"], environmentId);
  }
}

function missing(environmentId: string, path: string): InvalidInputError {
  return pathError(environmentId, path, "not-found", `does not exist: check the path, relative to the environment root (\`genv env files ${environmentId}\` lists its files)`);
}

function pathError(environmentId: string, path: string, code: string, problem: string): InvalidInputError {
  return new InvalidInputError([issueAt(["path"], code, `${JSON.stringify(path)} in environment ${environmentId} ${problem}`)], { what: "getEnvironmentFile" });
}
