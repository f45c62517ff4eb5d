/**
 * The route table: every operation of the API, matched on the raw request target after the API
 * version (still percent-encoded: the official client encodes differently per call, SDK_WIRE §3 —
 * literal slashes in file paths, `%2F` inside an environment segment, `%` encoded by list but not by
 * download). Routes are tried in order; the first whose method and path match handles the request.
 * A handler returns the JSON body of a 200, or nothing when it wrote the response itself.
 */
import type { ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { ExecuteToolBody } from "../../sdk/schemas";
import { describeIssues, validationIssues } from "../../sdk/issues";
import { HttpError, invalidArgument } from "../errors";
import type { CredentialsService } from "../services/credentials";
import type { EnvironmentsService } from "../services/environments";
import type { FilesService } from "../services/files";
import type { ToolCallsService } from "../services/tool-calls";
import { boolParam, decodeSegment, intParam, type RouteContext } from "./_request";
import type { Uploads } from "./uploads";

export interface Route {
  method: string | readonly string[];
  /** Over `RouteContext.rest`; its groups are the handler's `params`. A function may decode first. */
  path: RegExp | ((rest: string) => string[] | undefined);
  /** Only on Google's upload prefix (`/upload/{v}/…`). */
  upload?: true;
  handle(context: RouteContext, params: string[]): Promise<unknown>;
}

/** The services the routes call. */
export interface Services {
  environments: EnvironmentsService;
  files: FilesService;
  credentials: CredentialsService;
  uploads: Uploads;
  toolCalls: ToolCallsService;
}

/** Read size for downloads: 1 MiB chunks move a large file at several times the speed of the 64 KiB default. */
const DOWNLOAD_CHUNK_BYTES = 1024 * 1024;

const ENVIRONMENT = /^environments\/(?:environments\/)?([^/:]*)$/;
const FILES = /^environments\/(?:environments\/)?([^/:]*)\/files(?:\/(.*))?$/;
const CREDENTIAL = /^credentials\/([^/]*)$/;
const UPLOAD_START = /^environments\/(?:environments%2F)?([^/]+)\/files(?:\/(.*))?$/i;
const UPLOAD_CHUNK = /^uploads\/([0-9a-f]{32})$/;
const VERB = ":executeTool";

export function routes(services: Services): Route[] {
  const { environments, files, credentials, uploads, toolCalls } = services;
  return [
    { method: "POST", path: /^environments$/, handle: async (context) => environments.create(context.owner, await context.readJson()) },
    {
      method: "GET",
      path: /^environments$/,
      handle: async ({ owner, query }) => environments.list(owner, intParam(query, "page_size"), query.get("page_token") || undefined, query.get("mode") || undefined),
    },
    { method: "GET", path: ENVIRONMENT, handle: async ({ owner }, [id]) => environments.get(owner, environmentId(id)) },
    {
      method: "DELETE",
      path: ENVIRONMENT,
      handle: async ({ owner }, [id]) => {
        await environments.delete(owner, environmentId(id));
        return {};
      },
    },
    {
      method: "GET",
      path: FILES,
      handle: async ({ owner, query, response }, [id, path]) => {
        const segments = (path ?? "").split("/").filter((segment) => segment !== "").map(decodeSegment);
        if (query.get("alt") === "media") return download(response, await files.download(owner, environmentId(id), segments));
        const recursive = boolParam(query, "recursive");
        return files.list(owner, environmentId(id), segments, { recursive, pageSize: intParam(query, "page_size"), pageToken: query.get("page_token") ?? undefined });
      },
    },
    { method: "POST", path: /^credentials$/, handle: async ({ owner, readJson }) => credentials.create(owner, await readJson()) },
    {
      method: "GET",
      path: /^credentials$/,
      handle: async ({ owner, query }) => credentials.list(owner, intParam(query, "page_size"), query.get("page_token") ?? undefined),
    },
    { method: "GET", path: CREDENTIAL, handle: async ({ owner }, [id]) => credentials.get(owner, credentialId(id)) },
    {
      method: "PATCH",
      path: CREDENTIAL,
      handle: async ({ owner, query, readJson }, [id]) => credentials.update(owner, credentialId(id), await readJson(), query.get("update_mask") ?? undefined),
    },
    {
      method: "DELETE",
      path: CREDENTIAL,
      handle: async ({ owner }, [id]) => {
        credentials.delete(owner, credentialId(id));
        return {};
      },
    },
    { method: ["POST", "PUT"], path: UPLOAD_CHUNK, upload: true, handle: (context, [session]) => uploads.chunk(context, session) },
    { method: ["PUT", "POST"], path: UPLOAD_START, upload: true, handle: (context, [id, path]) => uploads.start(context, id, path ?? "") },
    {
      method: "*",
      path: executeToolTarget,
      handle: async ({ request, owner, readJson }, [id]) => {
        if (request.method !== "POST") throw new HttpError("NOT_FOUND", `method ${request.method} ${VERB} not found; use POST`);
        const body = ExecuteToolBody.safeParse(await readJson());
        // The first problem only, as each names its field (`tool_call.name`, `tool_call.args`).
        if (!body.success) throw invalidArgument(describeIssues(validationIssues(body.error).slice(0, 1)));
        return toolCalls.execute(owner, id, body.data.tool_call);
      },
    },
  ];
}

/** `env_x` from `env_x` or `environments%2Fenv_x`; an empty id is a 400. */
function environmentId(segment: string): string {
  const id = decodeSegment(segment).replace(/^environments\//, "");
  if (id === "") throw invalidArgument("name: the environment id is empty; use environments/{id}");
  return id;
}

function credentialId(segment: string): string {
  const id = decodeSegment(segment).replace(/^credentials\//, "");
  if (id === "") throw invalidArgument("name: the credential id is empty; use credentials/{id}");
  return id;
}

/** `[env_x]` from `environments/env_x:executeTool` or `environments/environments%2Fenv_x:executeTool`. */
function executeToolTarget(rest: string): string[] | undefined {
  const match = /^environments\/([^/]+)$/.exec(rest);
  if (!match) return undefined;
  const segment = decodeSegment(match[1]);
  if (!segment.endsWith(VERB)) return undefined;
  const id = segment.slice(0, -VERB.length).replace(/^environments\//, "");
  if (id === "" || id.includes("/")) throw new HttpError("INVALID_ARGUMENT", "name: use environments/{id}:executeTool with an id such as env_abc123");
  return [id];
}

async function download(response: ServerResponse, file: Awaited<ReturnType<FilesService["download"]>>): Promise<undefined> {
  response.writeHead(200, { "Content-Type": file.mimeType, "Content-Length": file.sizeBytes });
  if (file.sizeBytes === 0) {
    await file.handle.close();
    response.end();
    return;
  }
  try {
    // Only the bytes that Content-Length announced, should the agent append meanwhile.
    await pipeline(file.handle.createReadStream({ highWaterMark: DOWNLOAD_CHUNK_BYTES, end: file.sizeBytes - 1 }), response);
  } catch (error) {
    // A client that hangs up mid-download is not the emulator's failure.
    if ((error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") throw error;
  }
}
