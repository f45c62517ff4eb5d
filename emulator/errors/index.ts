/**
 * The one error type emulator code throws for a client-visible failure; the HTTP layer renders it
 * as Google's `{"error": {"code", "message", "status"}}` envelope.
 */

/** Canonical Google status names and their HTTP codes. */
export const CANONICAL_STATUS = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
} as const;
export type CanonicalStatus = keyof typeof CANONICAL_STATUS;

export class HttpError extends Error {
  override name = "HttpError";
  readonly httpStatus: number;
  constructor(
    readonly status: CanonicalStatus,
    message: string,
    options?: { cause?: unknown; httpStatus?: number },
  ) {
    super(message, { cause: options?.cause });
    this.httpStatus = options?.httpStatus ?? CANONICAL_STATUS[status];
  }

  toBody(): { error: { code: number; message: string; status: string } } {
    return { error: { code: this.httpStatus, message: this.message, status: this.status } };
  }
}

export const invalidArgument = (message: string) => new HttpError("INVALID_ARGUMENT", message);
export const notFound = (message: string) => new HttpError("NOT_FOUND", message);
