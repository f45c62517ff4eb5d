/**
 * Every error the client throws. Callers branch on the class, on `code`, or on the Google `status`
 * (`isNotFound(err)`), never on `message`.
 *
 *   EnvironmentsError                 base: `code`, `cause`
 *   ├─ EnvironmentsApiError           the server answered with a non-2xx status
 *   ├─ UnexpectedResponseError        the server answered 2xx with a body that is not the documented shape
 *   ├─ ValidationError                a request was refused before anything was sent (`issues` name the fields)
 *   ├─ ConfigurationError             bad client options, thrown by the constructor
 *   ├─ ConnectionError                no HTTP response: refused, reset, DNS, TLS …
 *   │  └─ TimeoutError                no response within `timeoutMs`
 *   └─ AbortedError                   the caller's `signal` fired
 */
import { z } from "zod";
import { GoogleErrorBody } from "./schemas";
import { describeIssues, type Issue } from "./issues";

export abstract class EnvironmentsError extends Error {
  /** Stable machine-readable code of the class, e.g. `GENV_API`. */
  abstract readonly code: string;
}

// ---------------------------------------------------------------------------------------------
// Server errors
// ---------------------------------------------------------------------------------------------

/** Google canonical status for an HTTP status, used when the body does not carry one (google/rpc/code.proto). */
const STATUS_BY_HTTP: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  408: "DEADLINE_EXCEEDED",
  409: "ABORTED",
  412: "FAILED_PRECONDITION",
  416: "OUT_OF_RANGE",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

export interface ApiErrorFields {
  httpStatus: number;
  status: string;
  body: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  details?: unknown[];
}

/** A non-2xx answer. `message` is the Google error message when the body is `{"error": {…}}`. */
export class EnvironmentsApiError extends EnvironmentsError {
  override name = "EnvironmentsApiError";
  readonly code = "GENV_API";
  /** HTTP status code, e.g. 404. */
  readonly httpStatus: number;
  /** Google canonical status, e.g. `NOT_FOUND`: from the body, else derived from `httpStatus` (`UNKNOWN` if none fits). */
  readonly status: string;
  /** The raw response body as text (may be HTML from a proxy). */
  readonly body: string;
  /** Response headers (lower-case names). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** `error.details` of the Google envelope, when present. */
  readonly details?: unknown[];

  constructor(message: string, fields: ApiErrorFields, options?: ErrorOptions) {
    super(message, options);
    this.httpStatus = fields.httpStatus;
    this.status = fields.status;
    this.body = fields.body;
    this.headers = fields.headers;
    if (fields.details !== undefined) this.details = fields.details;
  }
}

const PartialEnvelope = z.object({ error: GoogleErrorBody.shape.error.partial() });

/** Builds the error for a non-2xx response; never throws, whatever the body is. */
export function apiErrorFromResponse(
  httpStatus: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: string,
): EnvironmentsApiError {
  const fallbackStatus = STATUS_BY_HTTP[httpStatus] ?? "UNKNOWN";
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const envelope = PartialEnvelope.safeParse(json);
  if (envelope.success) {
    const { message, status, details } = envelope.data.error;
    return new EnvironmentsApiError(message || `HTTP ${httpStatus}`, {
      httpStatus,
      status: status || fallbackStatus,
      body,
      headers,
      details,
    });
  }
  const snippet = textSnippet(body);
  return new EnvironmentsApiError(snippet ? `HTTP ${httpStatus}: ${snippet}` : `HTTP ${httpStatus}`, {
    httpStatus,
    status: fallbackStatus,
    body,
    headers,
  });
}

/** The readable text of a non-JSON body (an HTML error page from a proxy, plain text), shortened. */
function textSnippet(body: string): string {
  const text = body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** A 2xx answer whose body is not JSON or not the documented shape. */
export class UnexpectedResponseError extends EnvironmentsError {
  override name = "UnexpectedResponseError";
  readonly code = "GENV_BAD_RESPONSE";
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly body: string,
    readonly issues: Issue[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

// ---------------------------------------------------------------------------------------------
// Client-side errors
// ---------------------------------------------------------------------------------------------

/** A request refused before sending; `issues` name each field, e.g. `["sources", 0, "target"]` (client/issues.ts). */
export class ValidationError extends EnvironmentsError {
  override name = "ValidationError";
  readonly code = "GENV_VALIDATION";
  constructor(
    what: string,
    readonly issues: Issue[],
  ) {
    super(`invalid ${what}: ${describeIssues(issues)}`);
  }
}

/** A client option that cannot work, thrown by the constructor. */
export class ConfigurationError extends EnvironmentsError {
  override name = "ConfigurationError";
  readonly code = "GENV_CONFIG";
  constructor(
    /** The option at fault, e.g. `apiKey` or `retry.maxAttempts`. */
    readonly option: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`EnvironmentsClient option ${option}: ${message}`, options);
  }
}

// ---------------------------------------------------------------------------------------------
// Transport errors
// ---------------------------------------------------------------------------------------------

/** No HTTP response. `networkCode` is the underlying code (`ECONNREFUSED`, `UND_ERR_SOCKET`, …). */
export class ConnectionError extends EnvironmentsError {
  override name = "ConnectionError";
  readonly code: string = "GENV_CONNECTION";
  /** Code of the underlying Node or undici error, when it has one. */
  readonly networkCode?: string;
  /** True when the connection was refused: the request provably never reached the server. */
  readonly refused: boolean;
  constructor(message: string, fields: { networkCode?: string; refused?: boolean }, options?: ErrorOptions) {
    super(message, options);
    if (fields.networkCode !== undefined) this.networkCode = fields.networkCode;
    this.refused = fields.refused ?? false;
  }
}

/** No complete response within the per-attempt timeout. The server may still have processed the request. */
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
  override readonly code: string = "GENV_TIMEOUT";
  constructor(
    message: string,
    readonly timeoutMs: number | undefined,
    options?: ErrorOptions & { networkCode?: string },
  ) {
    super(message, { networkCode: options?.networkCode }, options);
  }
}

/** The caller's `AbortSignal` fired; `cause` is the signal's reason. */
export class AbortedError extends EnvironmentsError {
  override name = "AbortedError";
  readonly code = "GENV_ABORTED";
}

// ---------------------------------------------------------------------------------------------
// Predicates
// ---------------------------------------------------------------------------------------------

/** True for an `EnvironmentsApiError` whose Google status is `status`, e.g. `hasStatus(err, "NOT_FOUND")`. */
export function hasStatus(err: unknown, status: string): err is EnvironmentsApiError {
  return err instanceof EnvironmentsApiError && err.status === status;
}

export const isNotFound = (err: unknown): err is EnvironmentsApiError => hasStatus(err, "NOT_FOUND");
export const isAlreadyExists = (err: unknown): err is EnvironmentsApiError => hasStatus(err, "ALREADY_EXISTS");
export const isInvalidArgument = (err: unknown): err is EnvironmentsApiError => hasStatus(err, "INVALID_ARGUMENT");
export const isPermissionDenied = (err: unknown): err is EnvironmentsApiError => hasStatus(err, "PERMISSION_DENIED");
export const isUnauthenticated = (err: unknown): err is EnvironmentsApiError => hasStatus(err, "UNAUTHENTICATED");
export const isResourceExhausted = (err: unknown): err is EnvironmentsApiError => hasStatus(err, "RESOURCE_EXHAUSTED");
export const isFailedPrecondition = (err: unknown): err is EnvironmentsApiError => hasStatus(err, "FAILED_PRECONDITION");
