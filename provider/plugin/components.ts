/**
 * The plugin's `construct`: component resources for every language, built by the same classes a
 * TypeScript program uses. `GuardedEnvironment` is the TypeScript component with its child
 * Environment served by the plugin (a dynamic resource cannot be serialized from here).
 *
 * Loaded on the first `construct` only: it needs the resource parts of `@pulumi/pulumi`
 * (contracts/pulumi-sdk.ts), which check and diff never load.
 */
import * as pulumi from "../contracts/pulumi-sdk";
import type { ConstructResult } from "@pulumi/pulumi/provider";
import type { EnvironmentArgs, EnvironmentResource } from "../environment/resource";
import { GUARDED_ENVIRONMENT_TYPE, GuardedEnvironment } from "../components/guarded-environment";
import { HookBundleInput } from "../components/guarded-environment-inputs";
import { HookBundle } from "../components/hook-bundle";
import { hooksConfigToWire } from "../components/hooks-config-inputs";
import { formatIssuePath, validationIssues, type Issue } from "../../client/issues";
import { Environment } from "./resources";
import { schemaPath, withWireNames } from "../contracts/resource-schema";

class PluginGuardedEnvironment extends GuardedEnvironment {
  protected override createEnvironment(name: string, args: EnvironmentArgs, opts: pulumi.CustomResourceOptions): EnvironmentResource {
    return new Environment(name, args, opts);
  }
}

export async function construct(name: string, type: string, inputs: pulumi.Inputs, options: pulumi.ComponentResourceOptions): Promise<ConstructResult> {
  return withoutStackTraces(() => build(name, type, inputs, options));
}

/**
 * `body` run with no stacks captured where nothing asks for a full one. The SDK formats a stack for
 * each resource it registers (its source position: it raises Error.stackTraceLimit to Infinity for
 * that itself) and captures one for each promise it tracks (shown only when debugging promise
 * leaks): most of construct's own time once (about 4.7 ms of 6.5 per component in a profile, with
 * source-map-support, which main.ts now takes out), for positions inside the plugin's own files that
 * tell a user nothing. An error thrown here reaches the engine by its message alone (the gRPC
 * status), so no message changes. Synchronous: nothing else runs in between.
 */
function withoutStackTraces<T>(body: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return body();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function build(name: string, type: string, inputs: pulumi.Inputs, options: pulumi.ComponentResourceOptions): ConstructResult {
  if (type !== GUARDED_ENVIRONMENT_TYPE) throw new Error(`unknown component type ${type} (this provider builds ${GUARDED_ENVIRONMENT_TYPE})`);
  // The hooks as the schema declares them (components/guarded-environment-inputs.ts): each problem names its path.
  // schema.json names the hooks' fields in camelCase (toolCall), hooks.json in snake_case (tool_call).
  const hooks = withWireNames(HookBundleInput, known(inputs.hooks, "hooks")) as HookBundleInput;
  const parsed = HookBundleInput.safeParse(hooks);
  if (!parsed.success) throw invalidHooks(name, hooks, validationIssues(parsed.error));
  const bundle = new HookBundle({
    hooks: hooksConfigToWire(hooks.config),
    scripts: Object.fromEntries(Object.entries(hooks.scripts ?? {}).map(([script, content]) => [script, { content }])),
    providedScripts: hooks.providedScripts,
    tests: hooks.tests,
    probe: hooks.probe,
    onFailure: hooks.onFailure,
  });
  // The schema requires it and the SDKs check it; a program that bypasses them must not get all egress by omission.
  if (inputs.network === undefined || inputs.network === null) {
    throw new pulumi.InputPropertyError({ propertyPath: "network", reason: 'is required: a guarded environment states what its agent may reach, e.g. {disabled: true}, {allowlist: [{domain: "api.github.com"}]}, or {allowlist: [{domain: "*"}]} for every domain' });
  }
  const component = new PluginGuardedEnvironment(
    name,
    {
      hooks: bundle,
      network: inputs.network,
      sources: inputs.sources,
      acknowledgedWarnings: known(inputs.acknowledgedWarnings, "acknowledgedWarnings") as never,
      updateStrategy: inputs.updateStrategy,
    },
    options,
  );
  return {
    urn: component.urn,
    // The policy cases' outcome is part of the state, so that a failed case fails construct, and with it
    // the preview: an output registered only with registerOutputs would be logged, not fail it.
    state: {
      environmentId: component.environmentId,
      status: component.status,
      fileCount: component.fileCount,
      sizeBytes: component.sizeBytes,
      ...(component.policyTests && { policyTests: component.policyTests }),
      ...(component.failOpen && { failOpen: component.failOpen }),
    },
  };
}

/**
 * The error of hooks the schema refuses: a line per problem, in the engine's own layout, with the path
 * as the program declares it and the value there as JSON. It carries no property errors: given them,
 * the engine would print each value as Go formats a property value (`{…}`: an empty string reads '{}').
 */
function invalidHooks(name: string, hooks: unknown, issues: Issue[]): pulumi.InputPropertiesError {
  const problems = issues.map(({ path, message }) => {
    const property = formatIssuePath(["hooks", ...schemaPath(HookBundleInput, path)]);
    const value = valueAt(hooks, path);
    // A secret or another resource's output has no value to show while the program runs.
    if (value === undefined || pulumi.Output.isInstance(value)) return `property ${property} has a problem: ${message}`;
    return `property ${property} with value '${JSON.stringify(value)}' has a problem: ${message}`;
  });
  return new pulumi.InputPropertiesError({ message: [`${GUARDED_ENVIRONMENT_TYPE} ${name}: invalid hooks`, ...problems].join("\n\t\t- "), errors: [] });
}

/** The value at `path` in `value`, if there is one. */
function valueAt(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
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
