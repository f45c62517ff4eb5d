/**
 * When to retry a failed attempt, how long to wait, and the loop that does it.
 *
 * Reads and deletes are idempotent: they are retried on 408, 429, 500, 502, 503, 504, on connection
 * errors and on timeouts. CreateEnvironment is not: a second POST after a lost answer makes a second
 * environment. It is retried only when the server provably did not act on it — the connection was
 * refused (nothing was written), or the server answered 429 or 503 (refused before processing). A
 * timeout, a reset connection or a 500 on create is thrown to the caller, who can list and decide.
 *
 * The wait is the server's `retry-after-ms`, else its `Retry-After` (seconds or HTTP-date), else
 * `initialDelayMs × 2^(retry−1)` capped at `maxDelayMs` and shortened by up to `jitter`. No retry is
 * made whose wait would end after `totalTimeMs` from the first attempt: the last error is thrown then.
 *
 * Why not undici's `RetryHandler` / `RetryAgent`: it has no bound on total time, ignores
 * `retry-after-ms`, sleeps in a timer that the caller's signal cannot cut short, and, when retries run
 * out on a status code, throws a `RequestRetryError` without the response body — so the Google error
 * message would be lost. Its custom `retry` callback could express the create rule, but not the rest
 * without re-implementing it; this loop is shorter than that.
 */
import type { ResolvedConfig } from "./config";
import { AbortedError, ConnectionError, EnvironmentsApiError, TimeoutError } from "./errors";

export type RetryMode = "idempotent" | "create";
type RetryPolicy = ResolvedConfig["retry"];

const IDEMPOTENT_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
/** Statuses with which a server refuses a request before processing it. */
const CREATE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Whether an attempt that failed with `error` may be made again under `mode`. */
export function isRetryable(mode: RetryMode, error: unknown): boolean {
  if (error instanceof EnvironmentsApiError) {
    return (mode === "idempotent" ? IDEMPOTENT_STATUSES : CREATE_STATUSES).has(error.httpStatus);
  }
  if (error instanceof TimeoutError) return mode === "idempotent";
  if (error instanceof ConnectionError) return mode === "idempotent" || error.refused;
  return false;
}

/** The wait a server asked for, in ms: `retry-after-ms`, else `Retry-After` as seconds or an HTTP-date. */
export function retryAfterMs(headers: Readonly<Record<string, string | string[] | undefined>>, now = Date.now()): number | undefined {
  const ms = Number(first(headers["retry-after-ms"]));
  if (first(headers["retry-after-ms"]) !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = first(headers["retry-after"])?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Computed backoff before retry number `retry` (1 for the first retry). */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (retry - 1));
  return Math.round(base * (1 - policy.jitter * random()));
}

/** Runs `attempt` until it succeeds, fails for good, or the policy's attempts or time run out. */
export async function withRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: { mode: RetryMode; policy: RetryPolicy; signal?: AbortSignal },
): Promise<T> {
  const { mode, policy, signal } = options;
  const started = Date.now();
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (attemptNumber >= policy.maxAttempts || !isRetryable(mode, error)) throw error;
      const asked = error instanceof EnvironmentsApiError ? retryAfterMs(error.headers) : undefined;
      const delayMs = asked ?? backoffMs(policy, attemptNumber);
      if (Date.now() + delayMs - started > policy.totalTimeMs) throw error;
      policy.onRetry?.({ attempt: attemptNumber, delayMs, error: error as Error });
      await sleep(delayMs, signal);
    }
  }
}

/** Waits `ms`, or rejects with `AbortedError` as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function abortedError(signal: AbortSignal): AbortedError {
  return new AbortedError("the request was aborted by the caller", { cause: signal.reason });
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
