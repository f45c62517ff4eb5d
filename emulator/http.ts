/**
 * HTTP surface of the emulator on node:http. Routing works on the raw request target, because the
 * official client encodes differently per call (SDK_WIRE §3: literal slashes in file paths, `%2F`
 * inside an environment segment, `%` encoded by list but not by download) and frameworks decode or
 * normalise exactly the parts we must see as sent.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { HttpError, invalidArgument } from "./errors";
import type { FaultInjector } from "./faults";
import { ownerOf, type EnvironmentsService } from "./service";

export interface RequestLogEntry {
  method: string;
  /** Path and query, with any `key=` query parameter redacted. */
  path: string;
  status: number;
  ms: number;
}

export interface HttpOptions {
  /** Keys accepted in `x-goog-api-key` (or `?key=`). */
  apiKeys: ReadonlySet<string>;
  /** Largest JSON request body accepted. */
  maxBodyBytes: number;
  onRequest?: (entry: RequestLogEntry) => void;
  /** Called with failures that are the emulator's fault (rendered to the client as INTERNAL). */
  onInternalError?: (error: unknown) => void;
  /** Extra routes (tools, uploads, credentials) tried after the environment routes. */
  extraRoutes?: readonly Route[];
  /** Faults on purpose (`--faults`): drawn per request before it is handled. */
  faults?: FaultInjector;
}

export interface RouteContext {
  request: IncomingMessage;
  response: ServerResponse;
  owner: string;
  apiKey: string;
  query: URLSearchParams;
  /** The path after the API version, raw (still percent-encoded). */
  rest: string;
  readJson: () => Promise<unknown>;
}

/** Returns true when it handled the request. */
export type Route = (context: RouteContext) => Promise<boolean>;

/** Read size for downloads: 1 MiB chunks move a large file at several times the speed of the 64 KiB default. */
const DOWNLOAD_CHUNK_BYTES = 1024 * 1024;

const VERSIONED = /^\/(v1|v1beta|v1alpha)\/(.*)$/;
const ENVIRONMENT = /^environments\/(?:environments\/)?([^/]*)(\/files(?:\/(.*))?)?$/;

/**
 * Bodies above this many bytes are handled one at a time: a JSON body costs several times its size
 * while it is parsed, validated and written (a 200 MiB inline create peaked at 1.5 GiB, two at once
 * at 2.3 GiB), so the emulator's memory is bounded by one of them, not by how many arrive together.
 */
export const LARGE_BODY_BYTES = 16 * 1024 * 1024; // 16 MiB

export function createHandler(service: EnvironmentsService, options: HttpOptions) {
  const unbounded = handlerOf(service, options);
  const large = oneAtATime();
  const handle = (request: IncomingMessage, response: ServerResponse): Promise<void> =>
    Number(request.headers["content-length"]) > LARGE_BODY_BYTES && !request.url?.startsWith("/upload/")
      ? large(() => unbounded(request, response))
      : unbounded(request, response);
  const faults = options.faults;
  if (!faults) return handle;
  return (request: IncomingMessage, response: ServerResponse): Promise<void> =>
    faults.apply(faults.decide(request), request, response, () => handle(request, response));
}

function handlerOf(service: EnvironmentsService, options: HttpOptions) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = performance.now();
    const target = request.url ?? "/";
    const queryAt = target.indexOf("?");
    const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = new URLSearchParams(queryAt === -1 ? "" : target.slice(queryAt + 1));
    response.on("finish", () => {
      options.onRequest?.({
        method: request.method ?? "GET",
        path: redactKey(target),
        status: response.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    });
    try {
      const version = VERSIONED.exec(rawPath.startsWith("/upload/") ? rawPath.slice("/upload".length) : rawPath);
      if (!version) throw new HttpError("NOT_FOUND", `no API at ${rawPath}: paths start with /v1, /v1beta or /v1alpha`);
      const apiKey = authenticate(request, query, options.apiKeys);
      const context: RouteContext = {
        request,
        response,
        apiKey,
        owner: ownerOf(apiKey),
        query,
        rest: version[2],
        readJson: () => readJson(request, options.maxBodyBytes),
      };
      if (await routeEnvironments(service, context)) return;
      for (const route of options.extraRoutes ?? []) if (await route(context)) return;
      throw new HttpError("NOT_FOUND", `method ${request.method} ${rawPath} not found`);
    } catch (error) {
      if (!(error instanceof HttpError)) options.onInternalError?.(error);
      // Every reply on an upload URL says where the session stands, errors included: a client that
      // finds no X-Goog-Upload-Status re-sends the chunk (google-genai for Python: 3 times, 1 + 2 + 4 s)
      // and then reports that retry's answer. Routes that leave the session open say `active` first.
      if (rawPath.startsWith("/upload/") && !response.headersSent && !response.hasHeader(UPLOAD_STATUS)) response.setHeader(UPLOAD_STATUS, "final");
      sendError(response, error);
    }
  };
}

/** Google's resumable upload protocol: `active` while a session takes more chunks, `final` once it is over. */
export const UPLOAD_STATUS = "X-Goog-Upload-Status";

async function routeEnvironments(service: EnvironmentsService, context: RouteContext): Promise<boolean> {
  const { request, response, owner, query, rest } = context;
  const method = request.method;
  if (rest === "environments") {
    if (method === "POST") return sendJson(response, 200, await service.create(owner, await context.readJson()));
    if (method === "GET") {
      return sendJson(response, 200, service.list(owner, intParam(query, "page_size"), query.get("page_token") || undefined, query.get("mode") || undefined));
    }
    return false;
  }
  const match = ENVIRONMENT.exec(rest);
  if (!match || match[1].includes(":")) return false;
  const id = decodeSegment(match[1]).replace(/^environments\//, "");
  if (id === "") throw invalidArgument("name: the environment id is empty; use environments/{id}");
  if (match[2] === undefined) {
    if (method === "GET") return sendJson(response, 200, service.get(owner, id));
    if (method === "DELETE") {
      await service.delete(owner, id);
      return sendJson(response, 200, {});
    }
    return false;
  }
  if (method !== "GET") return false;
  const segments = (match[3] ?? "").split("/").filter((segment) => segment !== "").map(decodeSegment);
  if (query.get("alt") === "media") {
    const file = await service.download(owner, id, segments);
    response.writeHead(200, { "Content-Type": file.mimeType, "Content-Length": file.sizeBytes });
    if (file.sizeBytes === 0) {
      await file.handle.close();
      response.end();
      return true;
    }
    try {
      // Only the bytes that Content-Length announced, should the agent append meanwhile.
      await pipeline(file.handle.createReadStream({ highWaterMark: DOWNLOAD_CHUNK_BYTES, end: file.sizeBytes - 1 }), response);
    } catch (error) {
      // A client that hangs up mid-download is not the emulator's failure.
      if ((error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") throw error;
    }
    return true;
  }
  const recursive = boolParam(query, "recursive");
  return sendJson(
    response,
    200,
    await service.files(owner, id, segments, {
      recursive,
      pageSize: intParam(query, "page_size"),
      pageToken: query.get("page_token") ?? undefined,
    }),
  );
}

function authenticate(request: IncomingMessage, query: URLSearchParams, apiKeys: ReadonlySet<string>): string {
  const header = request.headers["x-goog-api-key"];
  const key = (Array.isArray(header) ? header[0] : header) ?? query.get("key") ?? undefined;
  if (!key) {
    // What Google's front end answers for a request without credentials.
    throw new HttpError(
      "PERMISSION_DENIED",
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  if (!apiKeys.has(key)) throw new HttpError("INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
  return key;
}

/** Percent-decodes one path segment; a malformed escape (the download call does not encode `%`) is kept literally. */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** An integer query parameter such as `page_size`; a non-integer is a 400 naming it. */
export function intParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^-?\d+$/.test(raw)) throw invalidArgument(`${name}: must be an integer (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

function boolParam(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  if (raw === null || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  throw invalidArgument(`${name}: must be true or false (got ${JSON.stringify(raw)})`);
}

/** Runs the functions it is given one after another, each once the previous one has settled. */
function oneAtATime(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

async function readJson(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw invalidArgument(`request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidArgument(`Invalid JSON payload received. ${(error as Error).message}`);
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "Content-Type": "application/json; charset=UTF-8",
    "Content-Length": Buffer.byteLength(text),
  });
  response.end(text);
  return true;
}

function sendError(response: ServerResponse, error: unknown): void {
  const httpError =
    error instanceof HttpError ? error : new HttpError("INTERNAL", "internal error; see the emulator's log", { cause: error });
  if (response.headersSent) {
    response.destroy(httpError);
    return;
  }
  sendJson(response, httpError.httpStatus, httpError.toBody());
}

function redactKey(target: string): string {
  return target.replace(/([?&]key=)[^&]*/g, "$1REDACTED");
}
