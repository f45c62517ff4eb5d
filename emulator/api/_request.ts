/** A request as the routes see it: its context, its parts read as the official client sends them; JSON replies. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { invalidArgument } from "../errors";

/** A request as a route's handler sees it, authenticated. */
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

/** A boolean query parameter such as `recursive`: absent, empty or `false` is false; `true` is true; else a 400. */
export function boolParam(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  if (raw === null || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  throw invalidArgument(`${name}: must be true or false (got ${JSON.stringify(raw)})`);
}

/** A request header as one string (repeated ones joined by `, `). */
export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** The JSON body, at most `maxBytes`; an empty body is `{}`. */
export async function readJson(request: IncomingMessage, maxBytes: number): Promise<unknown> {
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

/** Reads and discards a request body, so that an early answer does not reset the connection. */
export async function drain(request: IncomingMessage): Promise<void> {
  for await (const _chunk of request) {
    // discard
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "Content-Type": "application/json; charset=UTF-8",
    "Content-Length": Buffer.byteLength(text),
  });
  response.end(text);
}
