/**
 * The provider's functions (protocol 6.5: GetFunctions and CallFunction, and in GetProviderSchema;
 * Terraform 1.8 and OpenTofu 1.7 and newer), called in HCL as `provider::geminienvironments::<name>(…)`.
 *
 * `egress_allowed(network, url)`: would the egress proxy let a request to `url` out of a sandbox
 * whose network is `network` (the environment's `network` attribute, or null: no policy)? It asks
 * the proxy's own policy (emulator/egress/policy.ts over hooks/egress-match.ts, after the host
 * normalised as the proxy does), so that a `check` block or a `terraform test` assertion answers as
 * the proxy will.
 */
import type { Network } from "../../client/schemas";
import { renderIssue, validationIssues } from "../../client/issues";
import { normaliseHost, policyRefusal } from "../../emulator/egress/policy";
import { NetworkInput, networkToWire } from "../environment/inputs";
import { PROVIDER_NAME, terraformSchema, type CtyType, type TerraformAttribute } from "./schema";
import { coreValue } from "./values";

export interface FunctionParameter {
  name: string;
  type: CtyTypeJson;
  allowNull: boolean;
  description: string;
}

/** A cty type in JSON, as a function's signature carries it (an object's optional attributes its third element). */
export type CtyTypeJson = CtyType | ["object", Record<string, CtyTypeJson>, string[]] | ["list", CtyTypeJson];

export interface TerraformFunction {
  summary: string;
  description: string;
  parameters: FunctionParameter[];
  returns: CtyTypeJson;
  /** The result, or an error naming the argument (its index) at fault. */
  call(args: unknown[]): { result: unknown } | { error: string; argument?: number };
}

/** The environment's `network` attribute, whose type the function's `network` parameter takes. */
function networkAttribute(): TerraformAttribute {
  return terraformSchema().resources[`${PROVIDER_NAME}_environment`].attributes.find((attribute) => attribute.name === "network")!;
}

/** The cty type of an attribute's value: a nested one an object (its optional attributes optional), or a list of them. */
function ctyTypeOf(attribute: TerraformAttribute): CtyTypeJson {
  if (!attribute.nested) return attribute.type!;
  const fields = attribute.nested.attributes;
  const object: CtyTypeJson = ["object", Object.fromEntries(fields.map((field) => [field.name, ctyTypeOf(field)])), fields.filter((field) => !field.required).map((field) => field.name)];
  return attribute.nested.nesting === "list" ? ["list", object] : object;
}

const egressAllowed: TerraformFunction = {
  summary: "Whether the egress proxy lets a request to a URL out under a network policy",
  description:
    "Whether a sandbox whose `network` is the first argument may reach the second, an http(s) URL: " +
    "by the same policy the egress proxy applies (`*` every host, `*.example.com` its subdomains but not the apex, other domains exactly, " +
    "case and a trailing dot ignored; `{ disabled = true }` and an empty allowlist nothing; null every host). " +
    'E.g. `provider::geminienvironments::egress_allowed(geminienvironments_environment.agent.network, "https://api.github.com/user")`. ' +
    "It reads the policy alone: the proxy also refuses, when the request is made, a host that resolves to a private address. " +
    "An environment's `network` is sensitive in part (an allowlist entry's `transform`), and Terraform marks what is computed from it sensitive too: `nonsensitive(…)` to output the bool.",
  get parameters() {
    return [
      { name: "network", type: ctyTypeOf(networkAttribute()), allowNull: true, description: "The environment's `network` (`{ allowlist = [...] }` or `{ disabled = true }`), or null: no policy, every host allowed." },
      { name: "url", type: "string" as const, allowNull: false, description: 'An http or https URL, e.g. `"https://api.github.com/user"`.' },
    ];
  },
  returns: "bool",
  call([network, url]) {
    let parsed: URL;
    try {
      parsed = new URL(String(url));
    } catch {
      return { error: `url: ${JSON.stringify(url)} is not a URL: write it whole, e.g. "https://api.github.com/user"`, argument: 1 };
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return { error: `url: ${JSON.stringify(url)} is not an http or https URL (the egress proxy carries those alone), e.g. "https://api.github.com/user"`, argument: 1 };
    }
    let policy: Network | undefined;
    if (network !== null && network !== undefined) {
      const checked = NetworkInput.safeParse(coreValue(networkAttribute().nested!.attributes, network));
      if (!checked.success) {
        return { error: renderIssue(validationIssues(checked.error, ["network"])[0]), argument: 0 };
      }
      policy = networkToWire(checked.data);
    }
    return { result: policyRefusal(policy, normaliseHost(parsed.hostname)) === undefined };
  },
};

/** The functions, by name. */
export const FUNCTIONS: Record<string, TerraformFunction> = { egress_allowed: egressAllowed };
