/**
 * HTTP surface of the emulator on node:http: authentication, the route table (`routes.ts`) over the
 * raw request target, and one place that renders errors as Google's `{"error": …}` body. Routing
 * works on the raw target because the official client encodes differently per call (SDK_WIRE §3)
 * and frameworks decode or normalise exactly the parts we must see as sent.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError } from "../errors";
import type { FaultInjector } from "./faults";
import { readJson, sendJson, type RouteContext } from "./_request";
import { matchRoute, routeNameOf, targetOf, type Route } from "./routes";
import { UPLOAD_STATUS } from "./uploads";

export type { RouteContext } from "./_request";
export { routes, type Route, type Services } from "./routes";
export { Uploads, UPLOAD_DEFAULTS } from "./uploads";

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
  /** Faults on purpose (`--faults`): drawn per request before it is handled. */
  faults?: FaultInjector;
}

/**
 * Bodies above this many bytes are handled one at a time: a JSON body costs several times its size
 * while it is parsed, validated and written (a 200 MiB inline create peaked at 1.5 GiB, two at once
 * at 2.3 GiB), so the emulator's memory is bounded by one of them, not by how many arrive together.
 */
export const LARGE_BODY_BYTES = 16 * 1024 * 1024; // 16 MiB

/** Whose data a request sees: the sha256 (hex) of its API key. */
export function ownerOf(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex");
}

export function createHandler(routes: readonly Route[], options: HttpOptions) {
  const unbounded = handlerOf(routes, options);
  const large = oneAtATime();
  const handle = (request: IncomingMessage, response: ServerResponse): Promise<void> =>
    Number(request.headers["content-length"]) > LARGE_BODY_BYTES && !request.url?.startsWith("/upload/")
      ? large(() => unbounded(request, response))
      : unbounded(request, response);
  const faults = options.faults;
  if (!faults) return handle;
  return (request: IncomingMessage, response: ServerResponse): Promise<void> =>
    faults.apply(faults.decide(routeNameOf(routes, request.method ?? "GET", targetOf(request.url ?? "/"))), request, response, () => handle(request, response));
}

function handlerOf(routes: readonly Route[], options: HttpOptions) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = performance.now();
    const url = request.url ?? "/";
    const target = targetOf(url);
    const { path: rawPath, query, upload } = target;
    response.on("finish", () => {
      options.onRequest?.({
        method: request.method ?? "GET",
        path: redactKey(url),
        status: response.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    });
    try {
      if (target.rest === undefined) throw new HttpError("NOT_FOUND", `no API at ${rawPath}: paths start with /v1, /v1beta or /v1alpha`);
      const apiKey = authenticate(request, query, options.apiKeys);
      const context: RouteContext = {
        request,
        response,
        apiKey,
        owner: ownerOf(apiKey),
        query,
        rest: target.rest,
        readJson: () => readJson(request, options.maxBodyBytes),
      };
      const match = matchRoute(routes, request.method ?? "", target);
      if (match === undefined) throw new HttpError("NOT_FOUND", `method ${request.method} ${rawPath} not found`);
      if (match.params === undefined) throw match.error;
      const body = await match.route.handle(context, match.params);
      if (body !== undefined) sendJson(response, 200, body);
    } catch (error) {
      if (!(error instanceof HttpError)) options.onInternalError?.(error);
      // Every reply on an upload URL says where the session stands, errors included: a client that
      // finds no X-Goog-Upload-Status re-sends the chunk (google-genai for Python: 3 times, 1 + 2 + 4 s)
      // and then reports that retry's answer. Routes that leave the session open say `active` first.
      if (upload && !response.headersSent && !response.hasHeader(UPLOAD_STATUS)) response.setHeader(UPLOAD_STATUS, "final");
      sendError(response, error);
    }
  };
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

/** Runs the functions it is given one after another, each once the previous one has settled. */
function oneAtATime(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
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
