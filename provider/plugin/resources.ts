/**
 * The resources as the plugin serves them, for TypeScript programs: `gemini-environments:index:*`
 * custom resources (and a remote component) instead of dynamic ones, with the same arguments.
 *
 * ```ts
 * import { plugin } from "pulumi-gemini-environments";
 * const env = new plugin.Environment("agent", { sources: [{ type: "inline", target: "a.txt", content: "a" }] });
 * ```
 *
 * What the plugin adds over the dynamic provider: `pulumi import`, previews with per-property diffs
 * (replace or update), and an explicit provider resource (`new plugin.Provider("p", { apiKey, baseUrl })`).
 * What it needs: the plugin, which the engine installs on demand from the version and download URL
 * each registers (docs/provider.md, "From any Pulumi language").
 */
import * as pulumi from "../contracts/pulumi-sdk";
import type { LintCode } from "../../hooks/lint";
import type { FailOpenAcknowledgement } from "../../hooks/probe/run";
import { issueAt } from "../../client/issues";
import { credentialRegistration, type CredentialArgs } from "../credential/resource";
import type { CredentialOutputs } from "../credential/inputs";
import { ENVIRONMENT_COMPUTED, environmentOptions, type EnvironmentArgs, type EnvironmentResource, type EgressPolicyArgs, type SourceArgs } from "../environment/resource";
import type { EnvironmentOutputs, UpdateStrategy } from "../environment/inputs";
import type { OutputsOf } from "../contracts/resource-schema";
import { GUARDED_ENVIRONMENT_TYPE } from "../components/guarded-environment";
import type { HookBundleInput } from "../components/guarded-environment-inputs";
import type { HookBundle } from "../components/hook-bundle";
import type { HookBundleArgs } from "../types/input";
import { FAIL_CLOSED_SCRIPT_NAME } from "../../hooks/on-failure";
import { InvalidInputError } from "../contracts/errors";
import { NetworkPolicy } from "../components/network-policy";
import { plainPromiseStacks } from "../contracts/promise-stacks";
import { withPluginRegistration } from "../contracts/package-identity";

/** The functions through the plugin's Invoke: `plugin.getEnvironment`, `plugin.getEnvironmentOutput`, … */
export * from "../functions/invoked";

const PACKAGE = "gemini-environments";

/** The provider resource: what it leaves out comes from the stack's `gemini-environments:` config, then the environment. */
export interface ProviderArgs {
  /** API key; made secret in the state whatever its origin. */
  apiKey?: pulumi.Input<string>;
  /** Base URL of the Environments API, e.g. `http://127.0.0.1:8765` for `genv serve`. */
  baseUrl?: pulumi.Input<string>;
}

export class Provider extends pulumi.ProviderResource {
  constructor(name: string, args: ProviderArgs = {}, opts?: pulumi.ResourceOptions) {
    super(PACKAGE, name, { ...args, ...(args.apiKey !== undefined && { apiKey: pulumi.secret(args.apiKey) }) }, withPluginRegistration(opts));
  }
}

export interface Environment extends OutputsOf<EnvironmentOutputs> {}

export class Environment extends pulumi.CustomResource implements EnvironmentResource {
  constructor(name: string, args: EnvironmentArgs = {}, opts?: pulumi.CustomResourceOptions) {
    const restore = plainPromiseStacks(); // the SDK's debug stacks, four per property (contracts/promise-stacks.ts)
    try {
      super(`${PACKAGE}:index:Environment`, name, { ...ENVIRONMENT_COMPUTED, ...(opts?.id === undefined ? args : {}) }, environmentOptions(withPluginRegistration(opts)));
    } finally {
      restore();
    }
  }

  /** A read-only view of an existing environment by id. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Environment {
    return new Environment(name, {}, { ...opts, id });
  }
}

export interface Credential extends OutputsOf<CredentialOutputs> {}

export class Credential extends pulumi.CustomResource {
  constructor(name: string, args: CredentialArgs, opts?: pulumi.CustomResourceOptions) {
    const { props, options } = credentialRegistration(name, args, withPluginRegistration(opts));
    const restore = plainPromiseStacks(); // the SDK's debug stacks, four per property (contracts/promise-stacks.ts)
    try {
      super(`${PACKAGE}:index:Credential`, name, props, options);
    } finally {
      restore();
    }
  }

  /** A read-only view of an existing credential by id (its secrets are write-only: they read back as absent). */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Credential {
    return new Credential(name, {} as CredentialArgs, { ...opts, id });
  }
}

/** The GuardedEnvironment component as the plugin's `construct` builds it (schema.json's inputs). */
export interface GuardedEnvironmentArgs {
  /** The hooks config and its scripts (text), as a `HookBundle` or in the schema's shape (hooks.json's names accepted too). */
  hooks: HookBundle | HookBundleArgs | HookBundleInput;
  /**
   * The egress policy, required as in the TypeScript component: left out, a guarded environment would
   * allow all egress. `NetworkPolicy.unrestricted()` says so explicitly (sent as `[{domain: "*"}]`).
   */
  network: NetworkPolicy | pulumi.Input<EgressPolicyArgs>;
  sources?: pulumi.Input<SourceArgs>[];
  /** The Environment's `updateStrategy`: `in_place` (default) or `replace`. */
  updateStrategy?: pulumi.Input<UpdateStrategy>;
  /** Warning codes reviewed and accepted; with the bundle's `probe` on, `fail-open:<group>:<tool>:<outcome>` too. */
  acknowledgedWarnings?: Array<LintCode | FailOpenAcknowledgement>;
}

/** `GuardedEnvironment` run by the plugin (a remote component): its child Environment is a plugin resource too. */
export class GuardedEnvironment extends pulumi.ComponentResource {
  declare readonly environmentId: pulumi.Output<string>;
  declare readonly status: pulumi.Output<string>;
  declare readonly fileCount: pulumi.Output<number>;
  declare readonly sizeBytes: pulumi.Output<number>;
  /** The bundle's fail-open probe at this preview or update; undefined with the probe off. */
  declare readonly failOpen: pulumi.Output<string | undefined>;

  constructor(name: string, args: GuardedEnvironmentArgs, opts?: pulumi.ComponentResourceOptions) {
    const network = args.network instanceof NetworkPolicy ? (args.network.toNetworkArgs() ?? EVERY_DOMAIN) : args.network;
    const props = {
      hooks: hooksInput(args.hooks),
      ...(network !== undefined && { network }),
      ...(args.sources !== undefined && { sources: args.sources }),
      ...(args.updateStrategy !== undefined && { updateStrategy: args.updateStrategy }),
      ...(args.acknowledgedWarnings !== undefined && { acknowledgedWarnings: args.acknowledgedWarnings }),
      environmentId: undefined,
      status: undefined,
      fileCount: undefined,
      sizeBytes: undefined,
      failOpen: undefined,
    };
    const restore = plainPromiseStacks(); // the SDK's debug stacks, four per property (contracts/promise-stacks.ts)
    try {
      super(GUARDED_ENVIRONMENT_TYPE, name, props, withPluginRegistration(opts), true);
    } finally {
      restore();
    }
  }
}

/** An unrestricted policy in the schema's form, which has no "omitted": every domain allowed. */
const EVERY_DOMAIN: EgressPolicyArgs = { allowlist: [{ domain: "*" }] };

/** A bundle in the schema's shape: the config, and each inline script's text (`.agents/hooks-scripts/<name>`). */
function hooksInput(hooks: GuardedEnvironmentArgs["hooks"]) {
  if (!("sources" in hooks)) return hooks;
  if (!hooks.writableByAgent) throw new InvalidInputError([issueAt([], "unsupported", "hooks from a repository are not supported by the plugin's component yet; use the TypeScript GuardedEnvironment")], { what: "plugin.GuardedEnvironment" });
  const scripts: Record<string, string> = {};
  for (const source of hooks.sources) {
    // The on_failure wrapper is the bundle's own: the plugin's bundle ships it again from the config.
    if (source.target === `.agents/hooks-scripts/${FAIL_CLOSED_SCRIPT_NAME}`) continue;
    if (source.target?.startsWith(".agents/hooks-scripts/") && source.content !== undefined) {
      if (source.encoding === "base64") throw new InvalidInputError([issueAt([], "binary-script", `script ${source.target} is binary; the plugin's component takes text scripts`)], { what: "plugin.GuardedEnvironment" });
      scripts[source.target.slice(".agents/hooks-scripts/".length)] = source.content;
    }
  }
  return { config: hooks.config, scripts, ...(hooks.probe !== "off" && { probe: hooks.probe }) };
}
