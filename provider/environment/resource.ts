/**
 * `Environment`: a Gemini Environment (an agent sandbox) as a Pulumi resource.
 *
 * ```ts
 * const env = new Environment("agent", {
 *   sources: [{ type: "inline", target: "main.py", content: "print('hi')" }],
 *   network: { allowlist: [{ domain: "api.github.com" }] },
 * });
 * export const environmentId = env.id;
 * ```
 */
import * as pulumi from "../contracts/pulumi-sdk";
import * as implementation from "./dynamic-provider";
import { EnvironmentComputed, type EnvironmentArgs, type EnvironmentInputs, type EnvironmentOutputs } from "./inputs";
import { propertiesOf, type OutputsOf } from "../contracts/resource-schema";
import { plainPromiseStacks } from "../contracts/promise-stacks";

/**
 * What the engine serializes: the provider module itself. Installed from npm, a module under
 * `node_modules` is captured as a `require` of the package, so the serialized text is one `require`
 * (about 300 bytes) and holds no credentials. Its size counts: the state holds it twice per resource
 * (inputs and outputs), it travels with every RPC, and the engine rewrites the whole state at each
 * step; an object of delegating arrow functions serialized to about 2 KB, a third of a fleet's state.
 */
const provider: pulumi.dynamic.ResourceProvider<EnvironmentInputs, EnvironmentOutputs> = implementation;

/** The arguments, derived from the inputs' schemas (environment/inputs.ts, described in schema.json). */
export type { AllowlistEntryArgs, EgressPolicyArgs, EnvironmentArgs, NetworkArgs, SourceArgs } from "./inputs";

/** What an Environment resource offers, whichever provider serves it (the dynamic one here, or the plugin: plugin/resources.ts). */
export interface EnvironmentResource extends pulumi.CustomResource, OutputsOf<EnvironmentOutputs> {}

/** The outputs the API computes, declared (undefined) in a resource's properties so that the engine fills them in. */
export const ENVIRONMENT_COMPUTED: Record<string, undefined> = Object.fromEntries(Object.keys(EnvironmentComputed.shape).map((property) => [property, undefined]));

/** The computed outputs that are secret whatever the engine version (`environmentKey`): listed in additionalSecretOutputs. */
export const ENVIRONMENT_SECRET_OUTPUTS: string[] = propertiesOf(EnvironmentComputed)
  .filter(([, meta]) => meta.secret)
  .map(([property]) => property);

/** An Environment's options with its secret outputs added to `additionalSecretOutputs`. */
export function environmentOptions<Options extends pulumi.CustomResourceOptions>(opts?: Options): Options {
  return { ...(opts as Options), additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...ENVIRONMENT_SECRET_OUTPUTS] };
}

/**
 * Its outputs: `status` (`active`, or `expired` once idle too long), `created`, `updated`, `lastAccessed`, `fileCount`, `sizeBytes`,
 * `environmentKey` (a self_hosted environment's secret key, from create, kept across refreshes), and the inputs.
 */
export interface Environment extends OutputsOf<EnvironmentOutputs> {}

export class Environment extends pulumi.dynamic.Resource implements EnvironmentResource {
  constructor(name: string, args: EnvironmentArgs = {}, opts?: pulumi.CustomResourceOptions) {
    // The key is secret in state and in every output derived from it, whatever the engine version.
    const restore = plainPromiseStacks(); // the SDK's debug stacks, four per property (contracts/promise-stacks.ts)
    try {
      super(provider, name, { ...ENVIRONMENT_COMPUTED, ...args }, environmentOptions(opts), "gemini-environments", "Environment");
    } finally {
      restore();
    }
  }

  /** A read-only view of an existing environment by id (nothing is created, changed or deleted). */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Environment {
    return new Environment(name, {}, { ...opts, id });
  }
}
