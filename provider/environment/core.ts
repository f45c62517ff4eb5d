/**
 * The Environment resource's core (contracts/resource-core.ts): check, diff, create, read, update and delete,
 * called by the dynamic provider (environment-provider.ts) and the plugin (plugin/provider.ts).
 *
 * Updates: an edited or added inline source is uploaded (update); any other change replaces the
 * environment (inline-files.ts says which is which). Refresh compares the declared hook files with
 * the environment's (`driftedHookFiles`), and the next update uploads them again.
 *
 * Expired environments: `read` (refresh) keeps an expired environment in state with
 * `status: "expired"`, and `diff` then replaces it, so the next `up` creates a fresh one and
 * deletes the expired one — nothing is dropped from state while it still exists on the server.
 *
 * Self-hosted environments: `mode` omitted means its `absent` value (`on_demand`), so declaring the
 * default is no change; `environmentKey` comes in the create response only (meta `once`), and
 * `read` keeps the state's value.
 */
import { isDeepStrictEqual } from "node:util";
import type { z } from "zod";
import type { EnvironmentsClient } from "../../client/client";
import { createEnvironmentConverging } from "../../client/converge";
import { isNotFound } from "../../client/errors";
import { createEnvironmentRequest, Source, type CreateEnvironmentRequest, type Environment } from "../../client/schemas";
import { atPath, issueAt, validationIssues, type Issue } from "../../client/issues";
import { InvalidInputError } from "../contracts/errors";
import type * as HooksCheck from "./hooks-check";
import { containsUnknown, EnvironmentComputed, EnvironmentInputs, type EnvironmentOutputs } from "./inputs";
import { propertyChanges, type ChangeKind } from "../contracts/property-diff";
import { changedFiles, declaredHookFiles, driftedHookFiles, updatableInPlace } from "./inline-files";
import { addChanges, checkFailure, PartialUpdateError, type ResourceCore, type ResourceDiff } from "../contracts/resource-core";
import { declaredValue, normalValue, outputValue, propertiesOf, propertyMeta, wireNames, wireValue, type PropertyMeta } from "../contracts/resource-schema";

// ---------------------------------------------------------------------------------------------
// Properties, from their schemas (environment/inputs.ts)
// ---------------------------------------------------------------------------------------------

type InputProperty = keyof EnvironmentInputs;
const INPUTS = propertiesOf(EnvironmentInputs);
const OUTPUTS = propertiesOf(EnvironmentComputed);
const { toInput: WIRE_TO_INPUT } = wireNames(EnvironmentInputs);
/** The create request's schema, its messages naming fields by their input names (`fromEnvironment`). */
const InputsRequest = createEnvironmentRequest((wire) => WIRE_TO_INPUT[wire] ?? wire);
/** Inputs only a `self_hosted` environment takes (client/schemas.ts checks them against `mode`). */
const SELF_HOSTED_ONLY = ["systemInstruction", "customConfig"] as const;
/** What adopt compares between the existing environment and the declared inputs. */
const ADOPT_COMPARED = ["sources", "network", "mode", "systemInstruction", "customConfig"] as const;

// ---------------------------------------------------------------------------------------------
// The core
// ---------------------------------------------------------------------------------------------

export const environmentCore: ResourceCore<EnvironmentInputs, EnvironmentOutputs> = {
  name: "Environment",
  secretProperties: [...INPUTS, ...OUTPUTS].filter(([, { secret }]) => secret).map(([property]) => property),
  restatedInputs: INPUTS.map(([property]) => property),

  check(_olds, news) {
    const issues: Issue[] = [];
    const inputs: Record<string, unknown> = { ...news };

    // Properties sent to the API are checked as the API's request; the others with their own schema.
    const request: Record<string, unknown> = {};
    for (const [property, meta, schema] of INPUTS) {
      const value = news[property];
      if (value === undefined || containsUnknown(value)) continue;
      const { wire } = meta;
      if (wire !== undefined && meta.toWire !== undefined) {
        // Declared in another form than the API's (network): that form is checked, then its API form.
        const parsed = schema.safeParse(value);
        if (parsed.success) request[wire] = wireValue(meta, value);
        else issues.push(...validationIssues(parsed.error, [property]));
      } else if (wire !== undefined) {
        request[wire] = value;
      } else {
        // An input the API never sees is kept as its schema reads it (updateStrategy `inPlace`, its
        // name before 0.2.0, as `in_place`).
        const parsed = schema.safeParse(value);
        if (parsed.success) inputs[property] = parsed.data;
        else issues.push(...validationIssues(parsed.error, [property]));
      }
    }
    if (news.sources !== undefined && containsUnknown(news.sources) && Array.isArray(news.sources)) {
      // Some sources are not known until apply: check the known ones on their own.
      news.sources.forEach((source, index) => {
        if (containsUnknown(source)) return;
        const parsed = Source.safeParse(source);
        if (!parsed.success) issues.push(...validationIssues(parsed.error, ["sources", index]));
      });
    }
    // mode decides whether the self-hosted fields are allowed: they are checked once it is known.
    if (containsUnknown(news.mode)) for (const property of SELF_HOSTED_ONLY) delete request[propertyMeta(EnvironmentInputs.shape[property]).wire as string];
    const parsed = InputsRequest.safeParse(request);
    if (!parsed.success) {
      // Paths start at the request: its first segment, a wire name, becomes the input property.
      for (const { path: [wire, ...rest], ...issue } of validationIssues(parsed.error)) {
        issues.push({ ...issue, path: wire === undefined ? [] : [WIRE_TO_INPUT[wire] ?? wire, ...rest] });
      }
    }
    // The hooks linter over an inline .agents/hooks.json (provider/environment/hooks-check.ts).
    const network = propertyMeta(EnvironmentInputs.shape.network);
    // The hooks linter (and RE2) loads on the first check: a destroy or a refresh never needs it.
    const { hooksCheckIssues } = require("./hooks-check") as typeof HooksCheck;
    issues.push(...atPath(["sources"], hooksCheckIssues(news.sources, containsUnknown(news.network) ? news.network : wireValue(network, news.network))));
    if (news.adopt !== undefined && news.fromEnvironment !== undefined) {
      issues.push(issueAt(["adopt"], "adopt-with-fork", "cannot be combined with fromEnvironment: adopt takes an existing environment as it is"));
    }
    return { inputs: inputs as EnvironmentInputs, failures: issues.map(checkFailure) };
  },

  diff(olds, news) {
    const diff: ResourceDiff = { changes: new Map(), deleteBeforeReplace: false };
    const replaceAll = news.updateStrategy === "replace";
    const sourcesInPlace = !replaceAll && updatableInPlace(olds.sources, news.sources);
    for (const [property, meta, schema] of INPUTS) {
      const { change, absent } = meta;
      if (change === undefined) continue;
      // An omitted input means its `absent` value (mode: on_demand): declaring that is no change. An
      // input the API never sees is compared as check keeps it, as its schema reads it: a state
      // written before 0.2.0 may hold updateStrategy `inPlace`, which is `in_place`.
      const [old, now] = [olds[property] ?? absent, news[property] ?? absent].map((value) => (meta.wire === undefined ? readAs(schema, value) : value));
      // Only sources may update or replace: inline-files.ts says which (sourcesInPlace).
      const replace = change === "replace" || (change === "updateOrReplace" && !sourcesInPlace);
      addChanges(diff, declaredChanges(meta, old, now, property), { replace, input: true });
    }
    // Hook files refresh found rewritten: uploading the declared content restores them.
    if (olds.driftedHookFiles?.length) diff.changes.set("driftedHookFiles", { kind: "update", replace: replaceAll, input: false });
    if (olds.status === "expired") diff.changes.set("status", { kind: "update", replace: true, input: false });
    return diff;
  },

  async create(client, inputs) {
    if (inputs.adopt !== undefined) return adoptExisting(client, inputs, inputs.adopt);
    const request = createRequestOf(inputs);
    // A create whose answer is lost (a reset, a timeout, a 5xx) is found again rather than made twice:
    // client/converge.ts says how, and what it relies on.
    const { environment } = await createEnvironmentConverging(client, request);
    // The create response is the only one that carries a self_hosted environment's key.
    return { id: environment.id, outs: outputsOf(environment, inputs) };
  },

  async read(client, id, props) {
    try {
      const environment = await client.get(id);
      // Refresh keeps the inputs in state; an import (no state) takes them from the API's answer.
      const inputs = props === undefined || Object.keys(props).length === 0 ? importedInputs(environment) : inputsOf(props);
      // Get never returns the key: outputsOf keeps the one captured at create (`props`).
      const outs = outputsOf(environment, inputs, props);
      if (environment.status !== "expired") {
        const drifted = await driftedHookFiles(client, id, inputs.sources);
        if (drifted.length > 0) outs.driftedHookFiles = drifted;
      }
      return { id, outs, inputs };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  },

  /**
   * Uploads (with overwrite) the inline files that changed or were added, then the declared content
   * of hook files refresh found rewritten; diff sends every other change to a replacement. Each
   * upload is recorded as it lands, so a failure part-way reports exactly what was applied.
   */
  async update(client, id, olds, news) {
    const files = changedFiles(olds.sources, news.sources);
    const declaredHooks = new Map(declaredHookFiles(news.sources).map((file) => [file.target, file]));
    for (const target of olds.driftedHookFiles ?? []) {
      const declared = declaredHooks.get(target);
      if (declared && !files.some((file) => file.target === target)) files.push(declared);
    }
    const applied = [...(olds.sources ?? [])];
    const drifted = new Set(olds.driftedHookFiles ?? []);
    let uploaded = 0;
    try {
      for (const file of files) {
        await client.files.upload({ environment: id, path: file.target, data: file.bytes, overwrite: true });
        applied[file.index] = (news.sources ?? [])[file.index];
        drifted.delete(file.target);
        uploaded += 1;
      }
      return outputsOf(await client.get(id), news, olds);
    } catch (error) {
      const failed = files[uploaded];
      const what = failed ? `uploading ${failed.target} failed (${uploaded} of ${files.length} files uploaded)` : `all ${files.length} files were uploaded, then reading it back failed`;
      const outs = partialOutputs(olds, { ...news, sources: uploaded === files.length ? news.sources : applied }, [...drifted]);
      throw new PartialUpdateError(
        `Environment ${id}: ${what}: ${(error as Error).message}. The state records the files that were uploaded; run up again to finish.`,
        id,
        outs,
        { cause: error },
      );
    }
  },

  async delete(client, id) {
    try {
      await client.delete(id);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  },
};

/** The CreateEnvironment request that `inputs` declare (wire names; what `create` sends). */
export function createRequestOf(inputs: EnvironmentInputs): CreateEnvironmentRequest {
  const request: Record<string, unknown> = {};
  for (const [property, meta] of INPUTS) if (meta.wire !== undefined && inputs[property] !== undefined) request[meta.wire] = wireValue(meta, inputs[property]);
  return request as CreateEnvironmentRequest;
}

/** Takes an existing environment under management after checking it holds what is declared. */
async function adoptExisting(client: EnvironmentsClient, inputs: EnvironmentInputs, adoptId: string) {
  const environment = await client.get(adoptId);
  if (environment.status === "expired") {
    throw new InvalidInputError([issueAt(["adopt"], "adopt-expired", `environment ${environment.id} is expired; remove adopt to create a new environment`)]);
  }
  const differences = new Map<string, ChangeKind>();
  for (const property of ADOPT_COMPARED) {
    const meta = propertyMeta(EnvironmentInputs.shape[property]);
    const { wire, absent } = meta;
    declaredChanges(meta, (environment as Record<string, unknown>)[wire ?? property] ?? absent, inputs[property] ?? absent, property, differences);
  }
  if (differences.size > 0) {
    const message =
      `environment ${environment.id} does not hold what is declared; it differs at ${[...differences.keys()].join(", ")}. ` +
      `Declare its sources, network and mode exactly as created (\`genv env get ${environment.id}\` shows them), then run up again.`;
    throw new InvalidInputError([issueAt(["adopt"], "adopt-differs", message)]);
  }
  return { id: environment.id, outs: outputsOf(environment, inputs) };
}

/** `value` as `schema` reads it; a value it refuses, as it is. */
function readAs(schema: z.ZodType, value: unknown): unknown {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : value;
}

/**
 * The changed paths of a property between two values, as `propertyChanges` names them; the same value
 * in another form (meta `toWire`: network `"disabled"` and `{disabled: true}`) is no change.
 */
function declaredChanges(meta: PropertyMeta, before: unknown, after: unknown, property: string, changes = new Map<string, ChangeKind>()): Map<string, ChangeKind> {
  if (meta.toWire !== undefined && isDeepStrictEqual(normalValue(meta, before), normalValue(meta, after))) return changes;
  return propertyChanges(before, after, property, changes);
}

/** The state after an update that stopped part-way: the computed outputs from before, the inputs as applied. */
function partialOutputs(olds: EnvironmentOutputs, applied: EnvironmentInputs, drifted: string[]): EnvironmentOutputs {
  const outputs: Record<string, unknown> = {};
  for (const [property] of OUTPUTS) if (olds[property] !== undefined) outputs[property] = olds[property];
  Object.assign(outputs, inputsOf(applied));
  if (drifted.length > 0) outputs.driftedHookFiles = drifted;
  else delete outputs.driftedHookFiles;
  return outputs as unknown as EnvironmentOutputs;
}

/** The input properties among `props` (the state's outputs hold the inputs). */
function inputsOf(props: Partial<EnvironmentOutputs>): EnvironmentInputs {
  const inputs: Record<string, unknown> = {};
  for (const [property] of INPUTS) if (props[property as InputProperty] !== undefined) inputs[property] = props[property as InputProperty];
  return inputs as EnvironmentInputs;
}

/**
 * The inputs that declare an environment read by id alone (`pulumi import`): the wire fields the API
 * echoes (but for the defaults it fills in), each source with only the fields a Source has, so that a
 * program declaring exactly these previews no change.
 */
function importedInputs(environment: Environment): EnvironmentInputs {
  const inputs: Record<string, unknown> = {};
  for (const [property, meta] of INPUTS) {
    const { wire, absent } = meta;
    // In the declared form (network `{disabled: true}`), which every language's generated code binds.
    const value = wire === undefined ? undefined : declaredValue(meta, (environment as Record<string, unknown>)[wire]);
    // The API echoes its defaults (mode: on_demand): an input left out means the same, and reads better.
    if (value !== undefined && value !== absent) inputs[property] = value;
  }
  if (Array.isArray(inputs.sources)) {
    const fields = Object.keys(Source.shape) as Array<keyof Source>;
    inputs.sources = (inputs.sources as Array<Record<string, unknown>>).map((source) =>
      Object.fromEntries(fields.filter((field) => source[field] !== undefined).map((field) => [field, source[field]])),
    );
  }
  return inputs as EnvironmentInputs;
}

/** The outputs: the API's answer, the inputs, and from `previous` (the state) what only create returns. */
function outputsOf(environment: Environment, inputs: EnvironmentInputs, previous?: Partial<EnvironmentOutputs>): EnvironmentOutputs {
  const outputs: Record<string, unknown> = {};
  for (const [property, meta, schema] of OUTPUTS) {
    let value = (environment as Record<string, unknown>)[meta.wire ?? property];
    if (value === undefined && meta.once) value = previous?.[property as keyof EnvironmentOutputs];
    // An optional output the answer leaves out stays out (environmentKey of an on_demand environment).
    const output = outputValue(meta, schema, value);
    if (output !== undefined) outputs[property] = output;
  }
  for (const [property, value] of Object.entries(inputsOf(inputs))) outputs[property] = value;
  return outputs as unknown as EnvironmentOutputs;
}
