/**
 * Options of `EnvironmentsClient`, their defaults, and their resolution against the process environment.
 * Bad options fail here, at construction, never on the first request.
 */
import type { Dispatcher } from "undici";
import { ConfigurationError } from "./errors";

// ---------------------------------------------------------------------------------------------
// Defaults (one block, with units)
// ---------------------------------------------------------------------------------------------

export const DEFAULTS = {
  baseUrl: "https://generativelanguage.googleapis.com",
  apiVersion: "v1beta",
  timeoutMs: 60_000, // 60 s for each attempt (until the whole JSON body, or until a download's headers)
  retry: {
    maxAttempts: 5, // first attempt included
    initialDelayMs: 250, // 250 ms, doubled for each retry: 250, 500, 1000, 2000 ms …
    maxDelayMs: 8_000, // 8 s cap on one computed backoff (Retry-After is honoured beyond it)
    totalTimeMs: 30_000, // 30 s: no retry starts (or sleeps) past this, counted from the first attempt
    jitter: 0.25, // each backoff is shortened by a random 0–25 %
  },
} as const;

/** The environment variables the client reads, highest priority first. */
export const API_KEY_ENV_VARS = ["GOOGLE_API_KEY", "GEMINI_API_KEY"] as const;
export const BASE_URL_ENV_VAR = "GOOGLE_GEMINI_BASE_URL";

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

export interface RetryOptions {
  /** Attempts in total, the first included; `1` turns retries off. Default 5. */
  maxAttempts?: number;
  /** Backoff before the first retry, doubled for each further one. Default 250 ms. Example: `{ initialDelayMs: 10 }` in tests. */
  initialDelayMs?: number;
  /** Cap on one computed backoff. Default 8000 ms. A server's `Retry-After` is not capped by it. */
  maxDelayMs?: number;
  /**
   * Bound on the time spent retrying, counted from the start of the first attempt: a retry whose
   * backoff would end after it is not made, and the last error is thrown instead. Default 30 000 ms.
   * Each attempt itself is bounded by `timeoutMs`.
   */
  totalTimeMs?: number;
  /** Fraction (0–1) by which each computed backoff is randomly shortened. Default 0.25. */
  jitter?: number;
  /** Called before each retry's sleep, e.g. to log it: `onRetry: (e) => log(e.attempt, e.delayMs, e.error.message)`. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** Number of the attempt that just failed (1 for the first). */
  attempt: number;
  /** How long the client now waits before the next attempt. */
  delayMs: number;
  /** Why the attempt failed. */
  error: Error;
}

export interface EnvironmentsClientOptions {
  /** API key sent as `x-goog-api-key`. Default: env `GOOGLE_API_KEY`, else `GEMINI_API_KEY`. */
  apiKey?: string;
  /**
   * Origin, optionally with a path prefix that is kept: `http://127.0.0.1:8080` or `https://proxy/gl/`.
   * Default: env `GOOGLE_GEMINI_BASE_URL`, else `https://generativelanguage.googleapis.com`.
   */
  baseUrl?: string;
  /** Path segment after the base URL, e.g. `v1beta` (the default) or `v1alpha`. */
  apiVersion?: string;
  /** Client-side timeout of each attempt, in ms. Default 60 000. Example: `{ timeoutMs: 5_000 }`. */
  timeoutMs?: number;
  /** Retry policy; see `RetryOptions`. Example: `{ retry: { maxAttempts: 1 } }` to turn retries off. */
  retry?: RetryOptions;
  /**
   * undici dispatcher to send requests through (e.g. a `ProxyAgent` or `MockAgent`). Default: an `Agent`
   * owned by the client and closed by `client.close()`. A dispatcher passed here is never closed by the client.
   */
  dispatcher?: Dispatcher;
  /** Extra headers on every request, e.g. `{ "x-goog-user-project": "my-project" }`. */
  headers?: Record<string, string>;
  /** Where to read the environment variables above. Default `process.env`; tests pass their own. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Options after defaults and validation: what the client actually uses. */
export interface ResolvedConfig {
  apiKey: string;
  /** `https://host:port`, no trailing slash. */
  origin: string;
  /** `/prefix/v1beta`: everything before `/environments`. */
  pathPrefix: string;
  /** `/prefix/upload/v1beta`: everything before `/environments` in an upload's start request. */
  uploadPathPrefix: string;
  timeoutMs: number;
  retry: Required<Omit<RetryOptions, "onRetry">> & Pick<RetryOptions, "onRetry">;
  headers: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

export function resolveConfig(options: EnvironmentsClientOptions = {}): ResolvedConfig {
  const env = options.env ?? process.env;

  const apiKey = nonEmpty(options.apiKey) ?? API_KEY_ENV_VARS.map((name) => nonEmpty(env[name])).find(Boolean);
  if (apiKey === undefined) {
    throw new ConfigurationError(
      "apiKey",
      `no API key: pass the apiKey option or set ${API_KEY_ENV_VARS.join(" or ")} in the environment`,
    );
  }
  if (/[\r\n\0]/.test(apiKey)) throw new ConfigurationError("apiKey", "the API key contains CR, LF or NUL");

  const baseUrl = nonEmpty(options.baseUrl) ?? nonEmpty(env[BASE_URL_ENV_VAR]) ?? DEFAULTS.baseUrl;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new ConfigurationError("baseUrl", `${JSON.stringify(baseUrl)} is not a URL, e.g. http://127.0.0.1:8080`, { cause });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigurationError("baseUrl", `${JSON.stringify(baseUrl)} must start with http:// or https://`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigurationError("baseUrl", `${JSON.stringify(baseUrl)} may not carry a query, fragment or credentials`);
  }

  const apiVersion = options.apiVersion ?? DEFAULTS.apiVersion;
  if (!/^[A-Za-z0-9._-]+$/.test(apiVersion)) {
    throw new ConfigurationError("apiVersion", `${JSON.stringify(apiVersion)} is not a version segment such as v1beta`);
  }

  const retry = options.retry ?? {};
  const resolved: ResolvedConfig = {
    apiKey,
    origin: url.origin,
    pathPrefix: `${url.pathname.replace(/\/+$/, "")}/${apiVersion}`,
    uploadPathPrefix: `${url.pathname.replace(/\/+$/, "")}/upload/${apiVersion}`,
    timeoutMs: positive("timeoutMs", options.timeoutMs ?? DEFAULTS.timeoutMs),
    retry: {
      maxAttempts: positive("retry.maxAttempts", retry.maxAttempts ?? DEFAULTS.retry.maxAttempts, true),
      initialDelayMs: nonNegative("retry.initialDelayMs", retry.initialDelayMs ?? DEFAULTS.retry.initialDelayMs),
      maxDelayMs: nonNegative("retry.maxDelayMs", retry.maxDelayMs ?? DEFAULTS.retry.maxDelayMs),
      totalTimeMs: nonNegative("retry.totalTimeMs", retry.totalTimeMs ?? DEFAULTS.retry.totalTimeMs),
      jitter: fraction("retry.jitter", retry.jitter ?? DEFAULTS.retry.jitter),
      onRetry: retry.onRetry,
    },
    headers: { ...options.headers },
  };
  return resolved;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function positive(option: string, value: number, integer = false): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new ConfigurationError(option, `must be a positive ${integer ? "integer" : "number"} (got ${value})`);
  }
  return value;
}

function nonNegative(option: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new ConfigurationError(option, `must be a number ≥ 0 (got ${value})`);
  return value;
}

function fraction(option: string, value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new ConfigurationError(option, `must be between 0 and 1 (got ${value})`);
  return value;
}
