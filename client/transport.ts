/**
 * What a call of the client carries and how an API group sends it: the per-call options every method
 * takes, and `Send`, the client's retrying transport that `EnvironmentsClient` hands to the API groups
 * it composes (`credentials.ts`), so that they need not import the client.
 */
import type { Attempt, TextResponse } from "./_http";
import type { RetryMode } from "./retry";

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call at once, including during a retry's backoff; the call rejects with `AbortedError`. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for each attempt of this call. */
  timeoutMs?: number;
}

/** How the client sends one request with its retry policy; given by `EnvironmentsClient`. */
export type Send = (mode: RetryMode, method: Attempt["method"], path: string, options?: CallOptions, body?: string) => Promise<TextResponse>;
