/**
 * What the egress proxy does with one request, as pure functions over the environment's `network`:
 * whether it may leave (the ONE matching rule of `hooks/egress-match.ts`), and which headers and
 * query parameters the proxy sets on it.
 *
 * Injection, for every allowlist entry matching the host, in declared order (a later value of the
 * same header wins):
 * 1. the entry's `transform`: one map or a list of maps, applied in order;
 * 2. the entry's `credential`, resolved by `(owner, id)`:
 *    - `bearer_token`: header `header_name` (default `Authorization`) = `prefix token` (default prefix
 *      `Bearer`; `""` sends the bare token);
 *    - `environment_variable`: for each `injection_location`: `header` sets the header named by the
 *      credential id (`X-Api-Key` for a credential with id `X-Api-Key`), `query` sets the query
 *      parameter named by the id; `body` is not supported (nothing injected there). With a
 *      non-empty `trusted_domains`, only hosts one of them matches receive the value;
 *    - `oauth2`, or a credential that no longer exists: nothing is injected.
 * Every injected header replaces a header of the same name (case-insensitive) the sandbox sent.
 */
import type { Network } from "../../client/schemas";
import { allowlistEntriesFor, domainMatches, egressAllowed } from "../../hooks/egress-match";

/** A credential with its secret, as the credentials store reveals it (api7's `RevealedCredential`). */
export type EgressCredential =
  | { type: "bearer_token"; token: string; header_name?: string; prefix?: string }
  | {
      type: "environment_variable";
      value: string;
      injection_location: Location | readonly Location[];
      trusted_domains?: readonly string[];
    }
  | { type: "oauth2" };
type Location = "header" | "query" | "body";

/**
 * Looks up a credential's secret by its owner (the API key that created the environment) and id;
 * `undefined` when there is none. Example: `(owner, id) => credentials.reveal(owner, id)`.
 */
export type CredentialResolver = (
  owner: string,
  id: string,
) => EgressCredential | undefined | Promise<EgressCredential | undefined>;

/** What the proxy sets on one request. */
export interface Injection {
  /** Header name (as declared) → value; replaces the sandbox's header of the same name. */
  headers: Record<string, string>;
  /** Query parameter → value; replaces the sandbox's parameter of the same name. */
  query: Record<string, string>;
}

/** Nothing leaves: `"disabled"` or `{allowlist: "disabled"}`. */
export function networkDisabled(network: Network | undefined): boolean {
  return network === "disabled" || (network !== undefined && network.allowlist === "disabled");
}

/** Lower case, without brackets and one trailing dot: the form routes and policy compare. */
export function normaliseHost(host: string): string {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** Why `host` may not be reached under `network`, or undefined when it may. Never quotes a secret. */
export function policyRefusal(network: Network | undefined, host: string): string | undefined {
  if (egressAllowed(network, host)) return undefined;
  if (networkDisabled(network)) return `egress to ${host} is blocked: this environment's network is "disabled"`;
  const domains = network !== undefined && network !== "disabled" && Array.isArray(network.allowlist)
    ? network.allowlist.map((entry) => entry.domain)
    : [];
  const listed = domains.length === 0 ? "an empty allowlist" : `the allowlist [${domains.join(", ")}]`;
  return `egress to ${host} is blocked: ${host} does not match ${listed} of this environment's network`;
}

/** The headers and query parameters to set on a request to `host`. */
export async function injectionFor(
  network: Network | undefined,
  host: string,
  owner: string,
  resolveCredential: CredentialResolver | undefined,
): Promise<Injection> {
  const injection: Injection = { headers: {}, query: {} };
  for (const entry of allowlistEntriesFor(network, host)) {
    const maps = entry.transform === undefined ? [] : Array.isArray(entry.transform) ? entry.transform : [entry.transform];
    for (const map of maps) for (const [name, value] of Object.entries(map)) setHeader(injection.headers, name, value);
    if (entry.credential === undefined || resolveCredential === undefined) continue;
    const credential = await resolveCredential(owner, entry.credential);
    if (credential) applyCredential(injection, entry.credential, credential, host);
  }
  return injection;
}

function applyCredential(injection: Injection, id: string, credential: EgressCredential, host: string): void {
  if (credential.type === "bearer_token") {
    const prefix = credential.prefix ?? "Bearer";
    setHeader(injection.headers, credential.header_name ?? "Authorization", prefix === "" ? credential.token : `${prefix} ${credential.token}`);
    return;
  }
  if (credential.type !== "environment_variable") return;
  const trusted = credential.trusted_domains ?? [];
  if (trusted.length > 0 && !trusted.some((domain) => domainMatches(domain, host))) return;
  const locations: readonly Location[] = typeof credential.injection_location === "string" ? [credential.injection_location] : credential.injection_location;
  if (locations.includes("header")) setHeader(injection.headers, id, credential.value);
  if (locations.includes("query")) injection.query[id] = credential.value;
}

/** Sets `name` in `headers`, dropping an earlier entry that differs only in case. */
function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
  headers[name] = value;
}
