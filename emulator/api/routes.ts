/**
 * The route table: every operation of the API, matched on the raw request target after the API
 * version (still percent-encoded: the official client encodes differently per call, SDK_WIRE §3 —
 * literal slashes in file paths, `%2F` inside an environment segment, `%` encoded by list but not by
 * download). Routes are tried in order; the first whose method and path match handles the request.
 * A handler returns the JSON body of a 200, or nothing when it wrote the response itself. Each route
 * names its operation (`name`), which is what `--faults routes=` selects (`faults.ts`).
 */
import type { ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { ExecuteToolBody } from "../../client/schemas";
import { describeIssues, validationIssues } from "../../client/issues";
import { HttpError, invalidArgument } from "../errors";
import type { CredentialsService } from "../services/credentials";
import type { EnvironmentsService } from "../services/environments";
import type { FilesService } from "../services/files";
import type { RecordedCallsService } from "../services/recorded-calls";
import type { ToolCallsService } from "../services/tool-calls";
import { boolParam, decodeSegment, intParam, type RouteContext } from "./_request";
import type { Uploads } from "./uploads";

/** The operations, as a route names them: what `--faults routes=` selects. */
export const ROUTE_NAMES = ["create", "list", "get", "delete", "files", "download", "upload", "tool", "calls", "credentials"] as const;
export type RouteName = (typeof ROUTE_NAMES)[number];

export interface Route {
  /** The operation; a function of the query when one route serves two (a listing and a download). */
  name: RouteName | ((query: URLSearchParams) => RouteName);
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
  recorded: RecordedCallsService;
}

/** Read size for downloads: 1 MiB chunks move a large file at several times the speed of the 64 KiB default. */
const DOWNLOAD_CHUNK_BYTES = 1024 * 1024;

const ENVIRONMENT = /^environments\/(?:environments\/)?([^/:]*)$/;
const FILES = /^environments\/(?:environments\/)?([^/:]*)\/files(?:\/(.*))?$/;
const CREDENTIAL = /^credentials\/([^/]*)$/;
const TOOL_CALLS = /^environments\/(?:environments\/)?([^/:]*)\/toolCalls$/;
const UPLOAD_START = /^environments\/(?:environments%2F)?([^/]+)\/files(?:\/(.*))?$/i;
const UPLOAD_CHUNK = /^uploads\/([0-9a-f]{32})$/;
const VERB = ":executeTool";
const VERSIONED = /^\/(v1|v1beta|v1alpha)\/(.*)$/;

/** A raw request target as the routes see it. */
export interface Target {
  /** The path, raw (still percent-encoded). */
  path: string;
  query: URLSearchParams;
  /** On Google's upload prefix (`/upload/{v}/…`). */
  upload: boolean;
  /** The path after the API version; undefined when the path names no API version. */
  rest: string | undefined;
}

export function targetOf(url: string): Target {
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1));
  const upload = path.startsWith("/upload/");
  const rest = VERSIONED.exec(upload ? path.slice("/upload".length) : path)?.[2];
  return { path, query, upload, rest };
}

/**
 * The first route whose method and path match, with its `params`; or the route whose path matcher
 * refused the target (`error`, e.g. an empty id: the route's 400); undefined when none matches.
 */
export type RouteMatch = { route: Route; params: string[]; error?: undefined } | { route: Route; params?: undefined; error: unknown };

export function matchRoute(table: readonly Route[], method: string, target: Target): RouteMatch | undefined {
  const rest = target.rest;
  if (rest === undefined) return undefined;
  for (const route of table) {
    if (route.upload && !target.upload) continue;
    if (route.method !== "*" && !(typeof route.method === "string" ? route.method === method : route.method.includes(method))) continue;
    let params: string[] | undefined;
    try {
      params = typeof route.path === "function" ? route.path(rest) : route.path.exec(rest)?.slice(1);
    } catch (error) {
      return { route, error };
    }
    if (params !== undefined) return { route, params };
  }
  return undefined;
}

/** The operation a request is for (undefined: no route matches it). */
export function routeNameOf(table: readonly Route[], method: string, target: Target): RouteName | undefined {
  const route = matchRoute(table, method, target)?.route;
  if (route === undefined) return undefined;
  return typeof route.name === "function" ? route.name(target.query) : route.name;
}

export function routes(services: Services): Route[] {
  const { environments, files, credentials, uploads, toolCalls, recorded } = services;
  return [
    { name: "create", method: "POST", path: /^environments$/, handle: async (context) => environments.create(context.owner, await context.readJson()) },
    {
      name: "list",
      method: "GET",
      path: /^environments$/,
      handle: async ({ owner, query }) => environments.list(owner, intParam(query, "page_size"), query.get("page_token") || undefined, query.get("mode") || undefined),
    },
    { name: "get", method: "GET", path: ENVIRONMENT, handle: async ({ owner }, [id]) => environments.get(owner, environmentId(id)) },
    {
      name: "delete",
      method: "DELETE",
      path: ENVIRONMENT,
      handle: async ({ owner }, [id]) => {
        await environments.delete(owner, environmentId(id));
        return {};
      },
    },
    {
      name: (query) => (query.get("alt") === "media" ? "download" : "files"),
      method: "GET",
      path: FILES,
      handle: async ({ owner, query, response }, [id, path]) => {
        const segments = (path ?? "").split("/").filter((segment) => segment !== "").map(decodeSegment);
        if (query.get("alt") === "media") return download(response, await files.download(owner, environmentId(id), segments));
        const recursive = boolParam(query, "recursive");
        return files.list(owner, environmentId(id), segments, { recursive, pageSize: intParam(query, "page_size"), pageToken: query.get("page_token") ?? undefined });
      },
    },
    {
      name: "calls",
      method: "GET",
      path: TOOL_CALLS,
      handle: async ({ owner, query }, [id]) =>
        recorded.list(owner, environmentId(id), { since: query.get("since") || undefined, pageSize: intParam(query, "page_size"), pageToken: query.get("page_token") || undefined }),
    },
    { name: "credentials", method: "POST", path: /^credentials$/, handle: async ({ owner, readJson }) => credentials.create(owner, await readJson()) },
    {
      name: "credentials",
      method: "GET",
      path: /^credentials$/,
      handle: async ({ owner, query }) => credentials.list(owner, intParam(query, "page_size"), query.get("page_token") ?? undefined),
    },
    { name: "credentials", method: "GET", path: CREDENTIAL, handle: async ({ owner }, [id]) => credentials.get(owner, credentialId(id)) },
    {
      name: "credentials",
      method: "PATCH",
      path: CREDENTIAL,
      handle: async ({ owner, query, readJson }, [id]) => credentials.update(owner, credentialId(id), await readJson(), query.get("update_mask") ?? undefined),
    },
    {
      name: "credentials",
      method: "DELETE",
      path: CREDENTIAL,
      handle: async ({ owner }, [id]) => {
        credentials.delete(owner, credentialId(id));
        return {};
      },
    },
    { name: "upload", method: ["POST", "PUT"], path: UPLOAD_CHUNK, upload: true, handle: (context, [session]) => uploads.chunk(context, session) },
    { name: "upload", method: ["PUT", "POST"], path: UPLOAD_START, upload: true, handle: (context, [id, path]) => uploads.start(context, id, path ?? "") },
    {
      name: "tool",
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
