/**
 * `NetworkPolicy`: an environment's egress policy, built up step by step and read in review.
 *
 * ```ts
 * const token = new pulumi.Config().requireSecret("telemetryToken");
 * const network = NetworkPolicy.allowlist()
 *   .allow("telemetry.example.com", { transform: { Authorization: pulumi.interpolate`Bearer ${token}` } })
 *   .allow("*")
 *   .allowHookHosts(bundle);
 * ```
 *
 * Immutable: each method returns a new policy. Header values given in `transform` are wrapped in
 * `pulumi.secret`, so they are encrypted in state and masked in previews whatever their origin.
 * Domains and header names are plain strings, checked with the wire schema as they are added.
 */
import * as pulumi from "../contracts/pulumi-sdk";
import { domainMatches } from "../../hooks/egress-match";
import { AllowlistEntry } from "../../client/schemas";
import { issueAt, validationIssues } from "../../client/issues";
import { InvalidInputError } from "../contracts/errors";
import { Credential } from "../credential/resource";
import type { AllowlistEntryArgs, EgressPolicyArgs } from "../environment/resource";
import type { HookBundle } from "./hook-bundle";

/** Headers the egress proxy injects on requests to a domain; values may be secrets. */
export type TransformArgs = Record<string, pulumi.Input<string>>;

export interface AllowOptions {
  /** Headers to inject, e.g. `{Authorization: pulumi.interpolate\`Bearer ${token}\`}`; a list of maps is applied in order. */
  transform?: TransformArgs | TransformArgs[];
  /**
   * A server-managed Credential whose secret the proxy injects: a `Credential` resource (the entry then
   * depends on it), or its id, e.g. `"gh-token"`.
   */
  credential?: Credential | pulumi.Input<string>;
}

interface Entry {
  domain: string;
  transform?: TransformArgs | TransformArgs[];
  credential?: pulumi.Input<string>;
}

type State = { kind: "unrestricted" } | { kind: "disabled" } | { kind: "allowlist"; entries: Entry[]; hookBundles: HookBundle[] };

export class NetworkPolicy {
  private constructor(private readonly state: State) {}

  /** No network at all (`"disabled"`): the sandbox cannot reach anything, HTTP hooks included. */
  static disabled(): NetworkPolicy {
    return new NetworkPolicy({ kind: "disabled" });
  }

  /** Network omitted: all egress allowed, no header injection. */
  static unrestricted(): NetworkPolicy {
    return new NetworkPolicy({ kind: "unrestricted" });
  }

  /** Only the domains added with `allow` (and `allowHookHosts`); an empty allowlist allows nothing. */
  static allowlist(): NetworkPolicy {
    return new NetworkPolicy({ kind: "allowlist", entries: [], hookBundles: [] });
  }

  /**
   * Allows `domain` (`api.example.com`, `*.example.com` for subdomains only, or `*` for every domain),
   * optionally injecting headers or a credential. Throws on a malformed domain or header name.
   */
  allow(domain: string, options: AllowOptions = {}): NetworkPolicy {
    const state = this.allowlistState("allow");
    const { transform } = options;
    const credential = options.credential instanceof Credential ? options.credential.credentialId : options.credential;
    const entry: Entry = { domain, ...(transform && { transform }), ...(credential !== undefined && { credential }) };
    assertValidEntry(entry);
    return new NetworkPolicy({ ...state, entries: [...state.entries, entry] });
  }

  /**
   * Allows the hosts the bundle's HTTP hooks POST to, each unless an entry added with `allow` already
   * covers it (whatever the order of calls).
   */
  allowHookHosts(bundle: HookBundle): NetworkPolicy {
    const state = this.allowlistState("allowHookHosts");
    return new NetworkPolicy({ ...state, hookBundles: [...state.hookBundles, bundle] });
  }

  /** The `network` input of an Environment; undefined when unrestricted. Transform values are secrets. */
  toNetworkArgs(): EgressPolicyArgs | undefined {
    const entries = this.entries();
    if (entries === undefined) return undefined;
    if (entries === "disabled") return "disabled";
    return {
      allowlist: entries.map((entry): AllowlistEntryArgs => {
        const out: AllowlistEntryArgs = { domain: entry.domain };
        if (entry.transform !== undefined) {
          out.transform = Array.isArray(entry.transform) ? entry.transform.map(secretValues) : secretValues(entry.transform);
        }
        if (entry.credential !== undefined) out.credential = entry.credential;
        return out;
      }),
    };
  }

  /** Entries in order: explicit ones, then hook hosts no explicit entry covers. */
  private entries(): Entry[] | "disabled" | undefined {
    if (this.state.kind === "unrestricted") return undefined;
    if (this.state.kind === "disabled") return "disabled";
    const entries = [...this.state.entries];
    for (const host of this.state.hookBundles.flatMap((bundle) => bundle.httpHosts())) {
      if (!entries.some((entry) => domainMatches(entry.domain, host))) entries.push({ domain: host });
    }
    return entries;
  }

  private allowlistState(method: string): Extract<State, { kind: "allowlist" }> {
    if (this.state.kind !== "allowlist") {
      throw new InvalidInputError([issueAt([], "no-allowlist", `a ${this.state.kind} policy has no allowlist; start from NetworkPolicy.allowlist()`)], { what: `NetworkPolicy.${method}` });
    }
    return this.state;
  }
}

function secretValues(map: TransformArgs): Record<string, pulumi.Input<string>> {
  return Object.fromEntries(Object.entries(map).map(([name, value]) => [name, pulumi.secret(value)]));
}

/** Validates the entry's shape with the wire schema, header values and a credential output elided (they may be unknown or secret). */
function assertValidEntry(entry: Entry): void {
  const elide = (map: TransformArgs) => Object.fromEntries(Object.keys(map).map((name) => [name, "x"]));
  const transform = entry.transform === undefined ? undefined : Array.isArray(entry.transform) ? entry.transform.map(elide) : elide(entry.transform);
  const credential = entry.credential === undefined || typeof entry.credential === "string" ? entry.credential : "x";
  const shape = { ...entry, ...(transform && { transform }), ...(credential !== undefined && { credential }) };
  const parsed = AllowlistEntry.safeParse(shape);
  if (!parsed.success) throw new InvalidInputError(validationIssues(parsed.error), { what: "NetworkPolicy.allow" });
}
