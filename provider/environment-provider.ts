/**
 * The Environment resource's provider methods. The serialized dynamic provider only holds a
 * `require` of this module, so credentials and clients never enter the serialized text or state:
 * each call builds its client from the stack config or the environment.
 *
 * Expired environments: `read` (refresh) keeps an expired environment in state with
 * `status: "expired"`, and `diff` then replaces it, so the next `up` creates a fresh one and
 * deletes the expired one — nothing is dropped from state while it still exists on the server.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { EnvironmentsClient } from "../sdk/client";
import { createEnvironmentConverging } from "../sdk/converge";
import { isNotFound } from "../sdk/errors";
import { CreateEnvironmentRequest, Source, type Environment } from "../sdk/schemas";
import { validationIssues } from "../sdk/validation";
import { providerClient, setStackConfig } from "./configuration";
import { hooksCheckFailures } from "./hooks-check";
import { containsUnknown, INPUT_DEFAULTS, REPLACING_PROPERTIES, WIRE_FIELD, type EnvironmentInputs, type EnvironmentOutputs } from "./environment-inputs";
import { propertyChanges, type ChangeKind } from "./property-diff";

type Provider = pulumi.dynamic.ResourceProvider<EnvironmentInputs, EnvironmentOutputs>;

const WIRE_TO_INPUT: Record<string, string> = Object.fromEntries(Object.entries(WIRE_FIELD).map(([input, wire]) => [wire, input]));
const ENVIRONMENT_ID = /^(environments\/)?[A-Za-z0-9_-]+$/;

export const configure: NonNullable<Provider["configure"]> = async (request) => {
  setStackConfig(request.config);
};

export const check: NonNullable<Provider["check"]> = async (_olds, news) => {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const fail = (path: string, message: string) => {
    const property = path.split(/[.[]/)[0];
    failures.push({ property, reason: path ? `${path}: ${message}` : message });
  };

  const request: Record<string, unknown> = {};
  if (news.network !== undefined && !containsUnknown(news.network)) request.network = news.network;
  if (news.fromEnvironment !== undefined && !containsUnknown(news.fromEnvironment)) request.from_environment = news.fromEnvironment;
  // mode decides whether the self-hosted fields are allowed: they are checked once it is known.
  if (!containsUnknown(news.mode)) {
    if (news.mode !== undefined) request.mode = news.mode;
    if (news.systemInstruction !== undefined && !containsUnknown(news.systemInstruction)) request.system_instruction = news.systemInstruction;
    if (news.customConfig !== undefined && !containsUnknown(news.customConfig)) request.custom_config = news.customConfig;
  }
  if (news.sources !== undefined && !containsUnknown(news.sources)) {
    request.sources = news.sources;
  } else if (Array.isArray(news.sources)) {
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
      fail(issue.path.replace(/^[a-z_]+/, (key) => WIRE_TO_INPUT[key] ?? key), issue.message.replace("from_environment", "fromEnvironment"));
    }
  }
  // The hooks linter over an inline .agents/hooks.json (provider/hooks-check.ts).
  failures.push(...hooksCheckFailures(news.sources, news.network));
  if (news.adopt !== undefined && !containsUnknown(news.adopt)) {
    if (typeof news.adopt !== "string" || !ENVIRONMENT_ID.test(news.adopt)) fail("adopt", "must be an environment id such as env_abc123");
    if (news.fromEnvironment !== undefined) fail("adopt", "cannot be combined with fromEnvironment: adopt takes an existing environment as it is");
  }
  return { inputs: news, failures };
};

export const diff: NonNullable<Provider["diff"]> = async (_id, olds, news) => {
  const changes = new Map<string, ChangeKind>();
  for (const property of REPLACING_PROPERTIES) {
    propertyChanges(olds[property] ?? INPUT_DEFAULTS[property], news[property] ?? INPUT_DEFAULTS[property], property, changes);
  }
  if (olds.status === "expired") changes.set("status", "update");
  // Dynamic providers have no detailed diff, so `replaces` carries the property paths themselves.
  const replaces = [...changes.keys()];
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
};

export const create: Provider["create"] = async (inputs) => {
  const client = providerClient();
  if (inputs.adopt !== undefined) return adoptExisting(client, inputs, inputs.adopt);
  // A create whose answer is lost (a reset, a timeout, a 5xx) is found again rather than made twice:
  // sdk/converge.ts says how, and what it relies on.
  const { environment } = await createEnvironmentConverging(client, {
    sources: inputs.sources,
    network: inputs.network,
    from_environment: inputs.fromEnvironment,
    mode: inputs.mode,
    system_instruction: inputs.systemInstruction,
    custom_config: inputs.customConfig,
  });
  // The create response is the only one that carries a self_hosted environment's key.
  return { id: environment.id, outs: outputsOf(environment, inputs, environment.environment_key) };
};

export const read: NonNullable<Provider["read"]> = async (id, props) => {
  const client = providerClient();
  try {
    const environment = await client.get(id);
    // Get never returns the key: keep the one captured at create.
    return { id, props: outputsOf(environment, inputsOf(props), props?.environmentKey) };
  } catch (error) {
    if (isNotFound(error)) return { id: "" };
    throw error;
  }
};

export const update: NonNullable<Provider["update"]> = async (id) => {
  // The API cannot change an environment in place, and diff always asks for a replacement.
  throw new Error(`Environment ${id}: the Environments API has no update; a changed input must replace the environment (please report this)`);
};

export const remove: NonNullable<Provider["delete"]> = async (id) => {
  const client = providerClient();
  try {
    await client.delete(id);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
};
/**
 * The provider's `delete` (a reserved word, hence `remove` above). This module is the provider the
 * engine serializes (a `require` of it), so it exports the provider's methods under their names.
 */
export { remove as delete };

/** Takes an existing environment under management after checking it holds what is declared. */
async function adoptExisting(client: EnvironmentsClient, inputs: EnvironmentInputs, adoptId: string) {
  const environment = await client.get(adoptId);
  if (environment.status === "expired") {
    throw new Error(`adopt: environment ${environment.id} is expired; remove adopt to create a new environment`);
  }
  const differences = new Map<string, ChangeKind>();
  propertyChanges(environment.sources, inputs.sources, "sources", differences);
  propertyChanges(environment.network, inputs.network, "network", differences);
  propertyChanges(environment.mode ?? INPUT_DEFAULTS.mode, inputs.mode ?? INPUT_DEFAULTS.mode, "mode", differences);
  propertyChanges(environment.system_instruction, inputs.systemInstruction, "systemInstruction", differences);
  propertyChanges(environment.custom_config, inputs.customConfig, "customConfig", differences);
  if (differences.size > 0) {
    throw new Error(
      `adopt: environment ${environment.id} does not hold what is declared; it differs at ${[...differences.keys()].join(", ")}. ` +
        `Declare its sources, network and mode exactly as created (\`genv env get ${environment.id}\` shows them), then run up again.`,
    );
  }
  return { id: environment.id, outs: outputsOf(environment, inputs) };
}

function inputsOf(props: EnvironmentInputs | undefined): EnvironmentInputs {
  if (!props) return {};
  const { sources, network, fromEnvironment, adopt, mode, systemInstruction, customConfig } = props;
  return { sources, network, fromEnvironment, adopt, mode, systemInstruction, customConfig };
}

function outputsOf(environment: Environment, inputs: EnvironmentInputs, environmentKey?: string): EnvironmentOutputs {
  const outputs: EnvironmentOutputs = {
    status: environment.status ?? "active",
    created: environment.created ?? "",
    updated: environment.updated ?? "",
    lastAccessed: environment.last_accessed ?? "",
    fileCount: Number(environment.file_count ?? 0),
    sizeBytes: Number(environment.size_bytes ?? 0),
  };
  for (const [key, value] of Object.entries(inputsOf(inputs))) {
    if (value !== undefined) (outputs as unknown as Record<string, unknown>)[key] = value;
  }
  if (environmentKey !== undefined) outputs.environmentKey = environmentKey;
  return outputs;
}
