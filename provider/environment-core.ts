/**
 * The Environment resource's core (resource-core.ts): check, diff, create, read, update and delete,
 * called by the dynamic provider (environment-provider.ts) and the plugin (plugin/provider.ts).
 *
 * Expired environments: `read` (refresh) keeps an expired environment in state with
 * `status: "expired"`, and `diff` then replaces it, so the next `up` creates a fresh one and
 * deletes the expired one — nothing is dropped from state while it still exists on the server.
 */
import type { EnvironmentsClient } from "../sdk/client";
import { isNotFound } from "../sdk/errors";
import { CreateEnvironmentRequest, Source, type Environment } from "../sdk/schemas";
import { validationIssues } from "../sdk/validation";
import { hooksCheckFailures } from "./hooks-check";
import { containsUnknown, EnvironmentComputed, EnvironmentInputs, type EnvironmentOutputs } from "./environment-inputs";
import { propertyChanges, type ChangeKind } from "./property-diff";
import { addChanges, type CheckFailure, type ResourceCore, type ResourceDiff } from "./resource-core";
import { isNumber, propertiesOf, wireNames } from "./resource-schema";

// ---------------------------------------------------------------------------------------------
// Properties, from their schemas (environment-inputs.ts)
// ---------------------------------------------------------------------------------------------

type InputProperty = keyof EnvironmentInputs;
const INPUTS = propertiesOf(EnvironmentInputs);
const OUTPUTS = propertiesOf(EnvironmentComputed);
const { toInput: WIRE_TO_INPUT } = wireNames(EnvironmentInputs);

// ---------------------------------------------------------------------------------------------
// The core
// ---------------------------------------------------------------------------------------------

export const environmentCore: ResourceCore<EnvironmentInputs, EnvironmentOutputs> = {
  name: "Environment",
  secretProperties: [...INPUTS, ...OUTPUTS].filter(([, { secret }]) => secret).map(([property]) => property),
  inputProperties: INPUTS.map(([property]) => property),

  check(_olds, news) {
    const failures: CheckFailure[] = [];
    const fail = (path: string, message: string) => {
      const property = path.split(/[.[]/)[0];
      failures.push({ property, reason: path ? `${path}: ${message}` : message });
    };

    // Properties sent to the API are checked as the API's request; the others with their own schema.
    const request: Record<string, unknown> = {};
    for (const [property, { wire }, schema] of INPUTS) {
      const value = news[property];
      if (value === undefined || containsUnknown(value)) continue;
      if (wire !== undefined) {
        request[wire] = value;
      } else {
        const parsed = schema.safeParse(value);
        if (!parsed.success) for (const issue of validationIssues(parsed.error, [property])) fail(issue.path, issue.message);
      }
    }
    if (news.sources !== undefined && containsUnknown(news.sources) && Array.isArray(news.sources)) {
      // Some sources are not known until apply: check the known ones on their own.
      news.sources.forEach((source, index) => {
        if (containsUnknown(source)) return;
        const parsed = Source.safeParse(source);
        if (!parsed.success) for (const issue of validationIssues(parsed.error, ["sources", index])) fail(issue.path, issue.message);
      });
    }
    const parsed = CreateEnvironmentRequest.safeParse(request);
    if (!parsed.success) {
      for (const issue of validationIssues(parsed.error)) {
        const message = Object.entries(WIRE_TO_INPUT).reduce((text, [wire, property]) => text.replaceAll(wire, property), issue.message);
        fail(issue.path.replace(/^[a-z_]+/, (key) => WIRE_TO_INPUT[key] ?? key), message);
      }
    }
    // The hooks linter over an inline .agents/hooks.json (provider/hooks-check.ts).
    failures.push(...hooksCheckFailures(news.sources, news.network));
    if (news.adopt !== undefined && news.fromEnvironment !== undefined) {
      fail("adopt", "cannot be combined with fromEnvironment: adopt takes an existing environment as it is");
    }
    return { inputs: news, failures };
  },

  diff(olds, news) {
    const diff: ResourceDiff = { changes: new Map(), deleteBeforeReplace: false };
    for (const [property, { change }] of INPUTS) {
      if (change === undefined) continue;
      addChanges(diff, propertyChanges(olds[property], news[property], property), { replace: change === "replace", input: true });
    }
    if (olds.status === "expired") diff.changes.set("status", { kind: "update", replace: true, input: false });
    return diff;
  },

  async create(client, inputs) {
    if (inputs.adopt !== undefined) return adoptExisting(client, inputs, inputs.adopt);
    const request: Record<string, unknown> = {};
    for (const [property, { wire }] of INPUTS) if (wire !== undefined) request[wire] = inputs[property];
    const environment = await client.create(request as CreateEnvironmentRequest);
    return { id: environment.id, outs: outputsOf(environment, inputs) };
  },

  async read(client, id, props) {
    try {
      const environment = await client.get(id);
      // Refresh keeps the inputs in state; an import (no state) takes them from the API's answer.
      const inputs = props === undefined || Object.keys(props).length === 0 ? importedInputs(environment) : inputsOf(props);
      return { id, outs: outputsOf(environment, inputs), inputs };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  },

  async update(_client, id) {
    // The API cannot change an environment in place, and diff always asks for a replacement.
    throw new Error(`Environment ${id}: the Environments API has no update; a changed input must replace the environment (please report this)`);
  },

  async delete(client, id) {
    try {
      await client.delete(id);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  },
};

/** Takes an existing environment under management after checking it holds what is declared. */
async function adoptExisting(client: EnvironmentsClient, inputs: EnvironmentInputs, adoptId: string) {
  const environment = await client.get(adoptId);
  if (environment.status === "expired") {
    throw new Error(`adopt: environment ${environment.id} is expired; remove adopt to create a new environment`);
  }
  const differences = new Map<string, ChangeKind>();
  propertyChanges(environment.sources, inputs.sources, "sources", differences);
  propertyChanges(environment.network, inputs.network, "network", differences);
  if (differences.size > 0) {
    throw new Error(
      `adopt: environment ${environment.id} does not hold what is declared; it differs at ${[...differences.keys()].join(", ")}. ` +
        "Declare its sources and network exactly as created (`genv get` shows them), then run up again.",
    );
  }
  return { id: environment.id, outs: outputsOf(environment, inputs) };
}

/** The input properties among `props` (the state's outputs hold the inputs). */
function inputsOf(props: Partial<EnvironmentOutputs>): EnvironmentInputs {
  const inputs: Record<string, unknown> = {};
  for (const [property] of INPUTS) if (props[property as InputProperty] !== undefined) inputs[property] = props[property as InputProperty];
  return inputs as EnvironmentInputs;
}

/**
 * The inputs that declare an environment read by id alone (`pulumi import`): the wire fields the API
 * echoes, each source with only the fields a Source has, so that a program declaring exactly these
 * previews no change.
 */
function importedInputs(environment: Environment): EnvironmentInputs {
  const inputs: Record<string, unknown> = {};
  for (const [property, { wire }] of INPUTS) {
    const value = wire === undefined ? undefined : (environment as Record<string, unknown>)[wire];
    if (value !== undefined) inputs[property] = value;
  }
  if (Array.isArray(inputs.sources)) {
    const fields = Object.keys(Source.shape) as Array<keyof Source>;
    inputs.sources = (inputs.sources as Array<Record<string, unknown>>).map((source) =>
      Object.fromEntries(fields.filter((field) => source[field] !== undefined).map((field) => [field, source[field]])),
    );
  }
  return inputs as EnvironmentInputs;
}

function outputsOf(environment: Environment, inputs: EnvironmentInputs): EnvironmentOutputs {
  const outputs: Record<string, unknown> = {};
  for (const [property, { wire, absent }, schema] of OUTPUTS) {
    const value = (environment as Record<string, unknown>)[wire ?? property];
    // int64 values are decimal strings on the wire.
    outputs[property] = value === undefined ? (absent ?? (isNumber(schema) ? 0 : "")) : isNumber(schema) ? Number(value) : value;
  }
  for (const [property, value] of Object.entries(inputsOf(inputs))) outputs[property] = value;
  return outputs as unknown as EnvironmentOutputs;
}
