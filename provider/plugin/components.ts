/**
 * The plugin's `construct`: component resources for every language, built by the same classes a
 * TypeScript program uses. `GuardedEnvironment` is the TypeScript component with its child
 * Environment served by the plugin (a dynamic resource cannot be serialized from here).
 *
 * Loaded on the first `construct` only: it needs all of `@pulumi/pulumi`.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ConstructResult } from "@pulumi/pulumi/provider";
import type { EnvironmentArgs, EnvironmentResource } from "../environment";
import { GUARDED_ENVIRONMENT_TYPE, GuardedEnvironment } from "../guarded-environment";
import { HookBundle } from "../hook-bundle";
import { Environment } from "../plugin-resources";

class PluginGuardedEnvironment extends GuardedEnvironment {
  protected override createEnvironment(name: string, args: EnvironmentArgs, opts: pulumi.CustomResourceOptions): EnvironmentResource {
    return new Environment(name, args, opts);
  }
}

export async function construct(name: string, type: string, inputs: pulumi.Inputs, options: pulumi.ComponentResourceOptions): Promise<ConstructResult> {
  if (type !== GUARDED_ENVIRONMENT_TYPE) throw new Error(`unknown component type ${type} (this provider builds ${GUARDED_ENVIRONMENT_TYPE})`);
  const hooks = known(inputs.hooks, "hooks") as { config?: Record<string, never>; scripts?: Record<string, string>; providedScripts?: string[] } | undefined;
  if (hooks?.config === undefined) throw new pulumi.InputPropertyError({ propertyPath: "hooks.config", reason: "is required: the hooks.json groups" });
  const bundle = new HookBundle({
    hooks: hooks.config,
    scripts: Object.fromEntries(Object.entries(hooks.scripts ?? {}).map(([script, content]) => [script, { content }])),
    providedScripts: hooks.providedScripts,
  });
  const component = new PluginGuardedEnvironment(
    name,
    {
      hooks: bundle,
      network: inputs.network,
      sources: inputs.sources,
      acknowledgedWarnings: known(inputs.acknowledgedWarnings, "acknowledgedWarnings") as never,
    },
    options,
  );
  return {
    urn: component.urn,
    state: { environmentId: component.environmentId, status: component.status, fileCount: component.fileCount, sizeBytes: component.sizeBytes },
  };
}

/**
 * A value the component needs while the program runs (the hooks are linted and serialized then): an
 * output of another resource, or a secret, cannot be.
 */
function known(value: unknown, property: string): unknown {
  if (pulumi.Output.isInstance(value)) {
    throw new pulumi.InputPropertyError({ propertyPath: property, reason: "must be known when the program runs: plain values, not a secret nor another resource's output" });
  }
  return value;
}
