/**
 * `Credential`: a server-managed secret that the egress proxy injects, referenced by id from an
 * allowlist entry.
 *
 * ```ts
 * const github = new Credential("github", {
 *   credentialId: "gh-token",
 *   type: "bearer_token",
 *   token: config.requireSecret("githubToken"),
 * });
 * const env = new Environment("agent", {
 *   network: NetworkPolicy.allowlist().allow("api.github.com", { credential: github }).toNetworkArgs(),
 * });
 * ```
 *
 * A change of `credentialId` or `type` replaces the credential; any other change — a rotated token
 * included — updates it in place. The secret inputs (`token`, `value`, `clientSecret`,
 * `refreshToken`) are made Pulumi secrets whatever their origin, so the state holds them encrypted.
 */
import * as pulumi from "../contracts/pulumi-sdk";
import * as implementation from "./dynamic-provider";
import { CredentialComputed, CredentialOutputs, SECRET_PROPERTIES, defaultCredentialId, type CredentialArgs, type CredentialInputs } from "./inputs";
import type { OutputsOf } from "../contracts/resource-schema";
import { plainPromiseStacks } from "../contracts/promise-stacks";

/** What the engine serializes: the provider module itself, a `require` of the package (see environment.ts). */
const provider: pulumi.dynamic.ResourceProvider<CredentialInputs, CredentialOutputs> = implementation;

/** The arguments, derived from the inputs' schemas (credential/inputs.ts, described in schema.json). */
export type { CredentialArgs } from "./inputs";
export { defaultCredentialId } from "./inputs";

/** Its outputs: `credentialId` (also its id), `type`, `status` (`active` or `revoked`), `createTime`, `updateTime`, and the inputs (secrets as secrets). */
export interface Credential extends OutputsOf<CredentialOutputs> {}

export class Credential extends pulumi.dynamic.Resource {
  constructor(name: string, args: CredentialArgs, opts?: pulumi.CustomResourceOptions) {
    const { props, options } = credentialRegistration(name, args, opts);
    const restore = plainPromiseStacks(); // the SDK's debug stacks, four per property (contracts/promise-stacks.ts)
    try {
      super(provider, name, props, options, "gemini-environments", "Credential");
    } finally {
      restore();
    }
  }
}

/**
 * A Credential's properties and options as registered, whichever provider serves it: the default
 * `credentialId`, and the secret inputs made secrets (also as outputs) whatever their origin.
 */
export function credentialRegistration(name: string, args: CredentialArgs, opts?: pulumi.CustomResourceOptions) {
  const additionalSecretOutputs = [...(opts?.additionalSecretOutputs ?? []), ...SECRET_PROPERTIES];
  // A read by id (`get`): the provider's read gives every property.
  if (opts?.id !== undefined) return { props: Object.fromEntries(Object.keys(CredentialOutputs.shape).map((property) => [property, undefined])), options: { ...opts, additionalSecretOutputs } };
  const props: Record<string, unknown> = {
    ...Object.fromEntries(Object.keys(CredentialComputed.shape).map((property) => [property, undefined])),
    ...args,
    credentialId: args.credentialId ?? defaultCredentialId(name, pulumi.getProject(), pulumi.getStack()),
  };
  for (const property of SECRET_PROPERTIES) {
    if (args[property] !== undefined) props[property] = pulumi.secret(args[property]);
  }
  return { props, options: { ...opts, additionalSecretOutputs } };
}
