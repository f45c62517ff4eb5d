/**
 * Which allowlist entries let a request to a host out of the sandbox: the ONE domain-matching rule,
 * shared by the hooks linter and the emulator's egress proxy.
 *
 * - `*` matches every host;
 * - `*.example.com` matches subdomains at any depth (`a.example.com`, `a.b.example.com`) but NOT the
 *   apex `example.com` (list it separately);
 * - any other pattern is an exact host name;
 * - comparison is case-insensitive and ignores one trailing dot on either side (`Example.COM.` =
 *   `example.com`).
 *
 * Network policy: omitted (undefined) allows everything; `"disabled"` and `{allowlist: "disabled"}` allow
 * nothing; an allowlist allows the hosts one of its entries matches (an empty list allows nothing).
 */
import type { AllowlistEntry, Network } from "../client/schemas";

/** Does the allowlist `pattern` cover `host`? */
export function domainMatches(pattern: string, host: string): boolean {
  const p = normalise(pattern);
  const h = normalise(host);
  if (p === "*") return true;
  if (h.length === 0) return false;
  if (p.startsWith("*.")) {
    const suffix = p.slice(1); // ".example.com"
    return h.length > suffix.length && h.endsWith(suffix);
  }
  return p === h;
}

/**
 * The allowlist entries matching `host`, in declared order (the order in which the proxy applies
 * their `transform`s and credentials). Empty when the network is omitted or disabled: use
 * `egressAllowed` to know whether the request may leave at all.
 */
export function allowlistEntriesFor(network: Network | undefined, host: string): AllowlistEntry[] {
  if (network === undefined || network === "disabled" || network.allowlist === "disabled") return [];
  return network.allowlist.filter((entry) => domainMatches(entry.domain, host));
}

/** May a request to `host` leave the sandbox under `network`? */
export function egressAllowed(network: Network | undefined, host: string): boolean {
  if (network === undefined) return true;
  return allowlistEntriesFor(network, host).length > 0;
}

/** Lower case, without surrounding spaces and one trailing dot. */
function normalise(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}
