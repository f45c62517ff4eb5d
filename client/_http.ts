/**
 * One HTTP attempt: send through the dispatcher with a per-attempt timeout and the caller's signal,
 * turn a non-2xx answer into `EnvironmentsApiError`, and every transport failure into `ConnectionError`,
 * `TimeoutError` or `AbortedError`. Private to the client; retries live in `retry.ts`.
 */
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { request } from "./_undici";
import { apiErrorFromResponse, ConnectionError, EnvironmentsError, TimeoutError } from "./errors";
import { abortedError } from "./retry";

export type Headers = Record<string, string | string[] | undefined>;

export interface Attempt {
  origin: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path and query, already encoded; sent verbatim. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface TextResponse {
  statusCode: number;
  headers: Headers;
  text: string;
}

export interface StreamResponse {
  statusCode: number;
  headers: Headers;
  body: Readable;
}

/** Sends one request and reads the whole body; the timeout covers headers and body. */
export async function sendForText(dispatcher: Dispatcher, attempt: Attempt): Promise<TextResponse> {
  const guard = new AttemptGuard(attempt);
  try {
    const response = await request(dispatcher, { ...requestOptions(attempt), signal: guard.signal });
    const text = await response.body.text();
    if (response.statusCode < 200 || response.statusCode > 299) {
      throw apiErrorFromResponse(response.statusCode, response.headers, text);
    }
    return { statusCode: response.statusCode, headers: response.headers, text };
  } catch (error) {
    throw guard.translate(error);
  } finally {
    guard.release();
  }
}

/**
 * Sends one request and returns the body as a stream once a 2xx status arrived. The timeout covers the
 * wait for the headers only; afterwards the caller's signal and undici's idle `bodyTimeout` apply.
 */
export async function sendForStream(dispatcher: Dispatcher, attempt: Attempt): Promise<StreamResponse> {
  const guard = new AttemptGuard(attempt);
  try {
    const response = await request(dispatcher, { ...requestOptions(attempt), signal: guard.signal });
    if (response.statusCode < 200 || response.statusCode > 299) {
      const text = await response.body.text();
      throw apiErrorFromResponse(response.statusCode, response.headers, text);
    }
    guard.stopTimer();
    response.body.once("close", () => guard.release());
    return { statusCode: response.statusCode, headers: response.headers, body: response.body };
  } catch (error) {
    guard.release();
    throw guard.translate(error);
  }
}

function requestOptions(attempt: Attempt): Dispatcher.RequestOptions {
  return {
    origin: attempt.origin,
    path: attempt.path,
    method: attempt.method,
    headers: attempt.headers,
    body: attempt.body,
  };
}

/** Links the per-attempt timeout and the caller's signal into one signal, and remembers which fired. */
class AttemptGuard {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #caller?: AbortSignal;
  readonly #timeoutMs: number;
  #timedOut = false;
  readonly #onCallerAbort = () => this.#controller.abort(this.#caller?.reason);

  constructor(attempt: Attempt) {
    this.#caller = attempt.signal;
    this.#timeoutMs = attempt.timeoutMs;
    if (this.#caller?.aborted) throw abortedError(this.#caller);
    this.#caller?.addEventListener("abort", this.#onCallerAbort, { once: true });
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort(new Error(`attempt timed out after ${this.#timeoutMs} ms`));
    }, this.#timeoutMs);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  stopTimer(): void {
    clearTimeout(this.#timer);
  }

  release(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener("abort", this.#onCallerAbort);
  }

  /** The client's error for whatever the attempt threw; errors that are not transport failures pass through. */
  translate(error: unknown): unknown {
    if (error instanceof EnvironmentsError) return error;
    if (this.#caller?.aborted) return abortedError(this.#caller);
    if (this.#timedOut) return new TimeoutError(`no response within ${this.#timeoutMs} ms`, this.#timeoutMs, { cause: error });
    const code = networkCode(error);
    if (code === undefined) return error;
    if (TIMEOUT_CODES.has(code)) return new TimeoutError(`${describe(error)} (${code})`, undefined, { cause: error, networkCode: code });
    return new ConnectionError(`${describe(error)} (${code})`, { networkCode: code, refused: isRefused(error) }, { cause: error });
  }
}

const TIMEOUT_CODES: ReadonlySet<string> = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);
const UNDICI_TRANSPORT_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_DESTROYED",
  "UND_ERR_INFO",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
  "UND_ERR_RES_EXCEEDED_MAX_SIZE",
  ...TIMEOUT_CODES,
]);

/** The code of a transport failure (`ECONNREFUSED`, `UND_ERR_SOCKET`, a TLS code …), else undefined. */
// Duck-typed on purpose: errors raised by Node's net module may come from another realm (jest's vm
// sandbox, worker contexts), where `instanceof Error` is false.
function networkCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") {
    // Happy-eyeballs connects report an AggregateError of the per-address failures.
    const inner = (error as { errors?: unknown }).errors;
    return Array.isArray(inner) ? networkCode(inner[0]) : undefined;
  }
  if (UNDICI_TRANSPORT_CODES.has(code)) return code;
  if (/^E[A-Z0-9_]+$/.test(code) || "syscall" in error) return code;
  if (/CERT|TLS|SSL/.test(code)) return code;
  return undefined;
}

/** True when every address refused the connection: nothing of the request was written. */
function isRefused(error: unknown): boolean {
  const inner = (error as { errors?: unknown } | null)?.errors;
  if (Array.isArray(inner) && inner.length > 0) return inner.every(isRefused);
  return (error as { code?: unknown } | null)?.code === "ECONNREFUSED";
}

function describe(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" && message ? message : "connection failed";
}
