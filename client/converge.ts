/**
 * Creates that converge under faults: what a pipeline needs when a create's answer can be lost.
 *
 * CreateEnvironment has no idempotency key and environments have no labels, so an attempt that failed
 * ambiguously — no answer (a reset, a timeout) or a 500/502/504 — may or may not have made an
 * environment. `createEnvironmentConverging` then looks before it tries again: it lists the
 * environments created since the first such attempt began (less `clockSkewMs`) whose echoed spec
 * equals the request's (`specKey`), and
 * - one match: that is the attempt's environment, adopted (`adopted: true`);
 * - none: the server did not act, so the create is made again (up to `maxAttempts`);
 * - several: it refuses to guess (`AmbiguousCreateError`, naming them), as it cannot tell its own.
 * A `self_hosted` environment found so is deleted and made again: its `environment_key` came only
 * with the lost answer.
 *
 * What it relies on: the server has finished with an attempt by the time the client gave up on it
 * (the emulator's faults behave so; a hosted request still queued after the client's timeout would
 * make a duplicate). And what it cannot rule out: another caller with the same API key creating the
 * same spec in the same seconds — the same match; keep such pipelines on keys of their own.
 *
 * Credentials have client-chosen ids, so `createCredentialConverging` needs no search: an ambiguous
 * attempt is made again, and an `ALREADY_EXISTS` after one is answered by reading the credential
 * (of the same type, it is the attempt's; of another, the conflict is real and thrown).
 */
import type { CallOptions, EnvironmentsClient } from "./client";
import { ConnectionError, EnvironmentsApiError, EnvironmentsError, isAlreadyExists } from "./errors";
import { sleep } from "./retry";
import type { CreateCredentialRequest, CreateEnvironmentRequest, Credential, Environment } from "./schemas";

export interface ConvergeOptions extends CallOptions {
  /** Attempts in all, each after an ambiguous failure with no match. Default 5. */
  maxAttempts?: number;
  /** How far before an attempt's start an environment's `created` may be (server clock, whole seconds). Default 5 s. */
  clockSkewMs?: number;
  /** Wait before looking, after an ambiguous failure. Default 500 ms. */
  settleMs?: number;
  now?: () => number;
}

/** An ambiguous create whose outcome cannot be told apart from others' creates. */
export class AmbiguousCreateError extends EnvironmentsError {
  readonly code = "GENV_AMBIGUOUS_CREATE";
  override name = "AmbiguousCreateError";
  constructor(readonly candidates: readonly string[], options?: ErrorOptions) {
    super(
      `CreateEnvironment failed without an answer, and ${candidates.length} environments with the same spec were created meanwhile ` +
        `(${candidates.join(", ")}): one may be this request's; none was adopted. Check them (genv env list) and delete the extra ones.`,
      options,
    );
  }
}

/** Whether a failed attempt may have acted: no answer, or an answer that says nothing about it. */
export function isAmbiguous(error: unknown): boolean {
  if (error instanceof EnvironmentsApiError) return [408, 500, 502, 504].includes(error.httpStatus);
  return error instanceof ConnectionError && !error.refused;
}

/** Whether a failed attempt provably did not act and may simply be made again. */
function notActed(error: unknown): boolean {
  if (error instanceof EnvironmentsApiError) return [429, 503].includes(error.httpStatus);
  return error instanceof ConnectionError && error.refused;
}

export async function createEnvironmentConverging(
  client: EnvironmentsClient,
  request: CreateEnvironmentRequest,
  options: ConvergeOptions = {},
): Promise<{ environment: Environment; adopted: boolean }> {
  const maxAttempts = options.maxAttempts ?? 5;
  const now = options.now ?? Date.now;
  let since: number | undefined;
  for (let attempt = 1; ; attempt++) {
    since ??= now();
    try {
      return { environment: await client.create(request, options), adopted: false };
    } catch (error) {
      if (attempt >= maxAttempts || !(isAmbiguous(error) || notActed(error))) throw error;
      if (notActed(error)) continue; // the client's own backoff already waited
      await sleep(options.settleMs ?? 500, options.signal);
      // Since the first ambiguous attempt: an earlier one may be the one that acted.
      const matches = await environmentsCreatedLike(client, request, { from: since - (options.clockSkewMs ?? 5_000) }, options);
      if (matches.length === 1 && request.mode === "self_hosted") {
        // Its key came only with the lost answer: without it the environment is no use; made again.
        await client.delete(matches[0].id, options).catch(() => undefined);
        since = undefined;
        continue;
      }
      if (matches.length === 1) return { environment: matches[0], adopted: true };
      if (matches.length > 1) throw new AmbiguousCreateError(matches.map((environment) => environment.id), { cause: error });
    }
  }
}

export async function createCredentialConverging(
  client: EnvironmentsClient,
  request: CreateCredentialRequest,
  options: ConvergeOptions = {},
): Promise<{ credential: Credential; adopted: boolean }> {
  const maxAttempts = options.maxAttempts ?? 5;
  let ambiguous = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return { credential: await client.credentials.create(request, options), adopted: false };
    } catch (error) {
      if (ambiguous && isAlreadyExists(error)) {
        const existing = await client.credentials.get(request.id, options);
        if (existing.type === request.type) return { credential: existing, adopted: true };
        throw error;
      }
      if (attempt >= maxAttempts || !(isAmbiguous(error) || notActed(error))) throw error;
      ambiguous ||= isAmbiguous(error);
    }
  }
}

/** A span of server time in ms since the epoch; `to` omitted, until now. */
export interface CreationWindow {
  from: number;
  to?: number;
}

/**
 * The environments whose echoed spec equals `request`'s (`specKey`) and whose `created` falls in
 * `window` (whole seconds on the server: `from` is rounded down to its second), oldest first: the
 * ones a create of `request` in that window may have made. Also the recovery's search
 * (provider/recovery.ts) for what an interrupted deploy's creates made.
 */
export async function environmentsCreatedLike(client: EnvironmentsClient, request: CreateEnvironmentRequest, window: CreationWindow, options: CallOptions = {}): Promise<Environment[]> {
  const wanted = specKey(request);
  const from = Math.floor(window.from / 1000) * 1000;
  const matches: Environment[] = [];
  for await (const environment of client.listAll({}, options)) {
    const created = environment.created === undefined ? Number.NaN : Date.parse(environment.created);
    if (created >= from && (window.to === undefined || created <= window.to) && specKey(environment) === wanted) matches.push(environment);
  }
  return matches.sort((a, b) => Date.parse(a.created ?? "") - Date.parse(b.created ?? "") || (a.id < b.id ? -1 : 1));
}

/**
 * What identifies a create's outcome: the spec as the server echoes it (`sources`, `network`,
 * `mode`, `custom_config`, `system_instruction`; the API does not echo `from_environment`, so forks
 * of the same network all look alike), keys in a stable order.
 */
function specKey(spec: { sources?: unknown; network?: unknown; mode?: unknown; custom_config?: unknown; system_instruction?: unknown }): string {
  return stableJson({
    sources: spec.sources ?? [],
    network: spec.network ?? null,
    mode: spec.mode ?? "on_demand",
    custom_config: spec.custom_config ?? null,
    system_instruction: spec.system_instruction ?? null,
  });
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
