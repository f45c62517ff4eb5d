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
import * as pulumi from "@pulumi/pulumi";
import * as implementation from "./environment-provider";
import type { EnvironmentInputs, EnvironmentOutputs } from "./environment-inputs";

/**
 * What the engine serializes: the provider module itself. Installed from npm, a module under
 * `node_modules` is captured as a `require` of the package, so the serialized text is one `require`
 * (about 300 bytes) and holds no credentials. Its size counts: the state holds it twice per resource
 * (inputs and outputs), it travels with every RPC, and the engine rewrites the whole state at each
 * step; an object of delegating arrow functions serialized to about 2 KB, a third of a fleet's state.
 */
const provider: pulumi.dynamic.ResourceProvider<EnvironmentInputs, EnvironmentOutputs> = implementation;

export interface SourceArgs {
  /** `inline`, `repository`, `gcs` or `skill_registry`. */
  type: pulumi.Input<"inline" | "repository" | "gcs" | "skill_registry">;
  /** Inline content: UTF-8 text, or base64 with `encoding: "base64"`. Pass `pulumi.secret(...)` to keep it secret in state. */
  content?: pulumi.Input<string>;
  encoding?: pulumi.Input<"base64">;
  /** Where to copy from, for non-inline sources, e.g. `github://owner/repo@main`. */
  source?: pulumi.Input<string>;
  /** Path relative to the environment root (the sandbox's `/`), e.g. `.agents/hooks.json`. */
  target?: pulumi.Input<string>;
}

export interface AllowlistEntryArgs {
  /** `api.example.com`, `*.example.com` (subdomains, not the apex) or `*`. */
  domain: pulumi.Input<string>;
  /** Headers the egress proxy injects; values may be `pulumi.secret(...)`. */
  transform?: pulumi.Input<Record<string, pulumi.Input<string>> | Array<pulumi.Input<Record<string, pulumi.Input<string>>>>>;
  /** Id of a server-managed Credential to inject. */
  credential?: pulumi.Input<string>;
}

export type NetworkArgs = "disabled" | { allowlist: pulumi.Input<pulumi.Input<AllowlistEntryArgs>[] | "disabled"> };

export interface EnvironmentArgs {
  /** What to put into the environment. Any change replaces the environment. */
  sources?: pulumi.Input<pulumi.Input<SourceArgs>[]>;
  /** Egress policy: omitted (all allowed), `"disabled"`, or an allowlist. Any change replaces the environment. */
  network?: pulumi.Input<NetworkArgs>;
  /** Start from a copy of another environment's current files (`env_…`). */
  fromEnvironment?: pulumi.Input<string>;
  /**
   * Bring an existing environment under management instead of creating one: `up` reads it, checks
   * that it holds the declared `sources` and `network`, and from then on owns it (destroy deletes it).
   */
  adopt?: pulumi.Input<string>;
}

/** What an Environment resource offers, whichever provider serves it (the dynamic one here, or the plugin: plugin-resources.ts). */
export interface EnvironmentResource extends pulumi.CustomResource {
  readonly status: pulumi.Output<string>;
  readonly created: pulumi.Output<string>;
  readonly updated: pulumi.Output<string>;
  readonly lastAccessed: pulumi.Output<string>;
  readonly fileCount: pulumi.Output<number>;
  readonly sizeBytes: pulumi.Output<number>;
  readonly sources: pulumi.Output<EnvironmentInputs["sources"]>;
  readonly network: pulumi.Output<EnvironmentInputs["network"]>;
  readonly fromEnvironment: pulumi.Output<string | undefined>;
}

/** The outputs the API computes, declared (undefined) in a resource's properties so that the engine fills them in. */
export const ENVIRONMENT_COMPUTED = { status: undefined, created: undefined, updated: undefined, lastAccessed: undefined, fileCount: undefined, sizeBytes: undefined };

export class Environment extends pulumi.dynamic.Resource implements EnvironmentResource {
  /** `active`, or `expired` once idle too long (the next `up` after a refresh replaces it). */
  declare readonly status: pulumi.Output<string>;
  declare readonly created: pulumi.Output<string>;
  declare readonly updated: pulumi.Output<string>;
  declare readonly lastAccessed: pulumi.Output<string>;
  declare readonly fileCount: pulumi.Output<number>;
  declare readonly sizeBytes: pulumi.Output<number>;
  declare readonly sources: pulumi.Output<EnvironmentInputs["sources"]>;
  declare readonly network: pulumi.Output<EnvironmentInputs["network"]>;
  declare readonly fromEnvironment: pulumi.Output<string | undefined>;

  constructor(name: string, args: EnvironmentArgs = {}, opts?: pulumi.CustomResourceOptions) {
    super(provider, name, { ...ENVIRONMENT_COMPUTED, ...args }, opts, "gemini-environments", "Environment");
  }

  /** A read-only view of an existing environment by id (nothing is created, changed or deleted). */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Environment {
    return new Environment(name, {}, { ...opts, id });
  }
}
