/**
 * The resources and lookups as a Terraform provider (tfplugin6): a thin adapter that hands each call
 * to the resource's core (contracts/resource-core.ts) or the function's (contracts/function-core.ts),
 * as the Pulumi plugin does (plugin/provider.ts), served over gRPC by server.ts.
 *
 * Values: Terraform's objects (values.ts) converted to the cores' by the schema's table (schema.ts).
 * A resource's state holds the configuration's own values for its inputs (what Terraform requires
 * of a plan: an input as configured) and the core's answer for the computed attributes.
 *
 * Plan: the core's `check` (errors at their attribute), then its `diff`: a change it replaces for is
 * `RequiresReplace` at that path (`sources[1].content`, `network`), an in-place one an update whose
 * computed attributes Terraform learns at apply. An expired environment (status) and hook files an
 * agent rewrote (drifted_hook_files, found by ReadResource as `pulumi refresh` does) plan as the
 * core's diff says: a replacement, an upload.
 */
import { renderIssue } from "../../client/issues";
import { callFunction, type FunctionCore } from "../contracts/function-core";
import { providerClient, setProviderConfig } from "../contracts/configuration";
import { InvalidInputError } from "../contracts/errors";
import { PartialUpdateError, type ResourceCore } from "../contracts/resource-core";
import { UNKNOWN } from "../environment/inputs";
import { errorDiagnostic, failureDiagnostic, parsePath, terraformPath, type Diagnostic } from "./diagnostics";
import { readHooks } from "./hooks";
import { DATA_SOURCE_FUNCTIONS, PROVIDER_NAME, WRITE_ONLY_ENGINES, terraformSchema, type TerraformAttribute, type TerraformBlock } from "./schema";
import { coreValue, conformed, decodeValue, encodeValue, hasUnknown, terraformValue, type DynamicValue, type TerraformObject } from "./values";
import { upgradeState } from "./upgrade";
import { FUNCTIONS } from "./functions";
import { createCredentialRecorded, createRecorded, settle } from "./_pending-creates";

type AnyCore = ResourceCore<object, object>;

interface ResourceType {
  block: TerraformBlock;
  core: () => AnyCore;
  /** Computed attributes an update leaves as they were (planned known); the others are unknown until apply. */
  kept: readonly string[];
  /** Computed attributes an update empties (planned null): hook files found rewritten are uploaded again. */
  cleared: readonly string[];
  /** Its identity (protocol 6.9, Terraform and OpenTofu 1.12): the one attribute that names it for good. */
  identity: { attribute: string; description: string };
}

const RESOURCES: Record<string, Omit<ResourceType, "block">> = {
  [`${PROVIDER_NAME}_environment`]: {
    core: () => (require("../environment/core") as typeof import("../environment/core")).environmentCore as unknown as AnyCore,
    kept: ["id", "created", "environment_key"],
    cleared: ["drifted_hook_files"],
    identity: { attribute: "id", description: "The environment's id, e.g. `env_abc123`." },
  },
  [`${PROVIDER_NAME}_credential`]: {
    core: () => (require("../credential/core") as typeof import("../credential/core")).credentialCore as unknown as AnyCore,
    kept: ["id", "create_time"],
    cleared: [],
    identity: { attribute: "credential_id", description: "The credential's id, e.g. `gh-token`." },
  },
};

/**
 * Loads every module a call may load (scripts/pack-plugin traces what the plugin needs this way).
 * @public (called by scripts/pack-plugin, which knip does not read)
 */
export function loadEverything(): void {
  loadCores();
  require("@grpc/grpc-js");
  require("@grpc/proto-loader");
  require("@msgpack/msgpack");
  require("../../client/client");
}

/**
 * Loads what the calls of every start need and a V8 startup snapshot can hold (JavaScript that opens
 * nothing: the cores, the schema, the hooks linter), as the single executable's snapshot is made.
 */
export function loadCores(): void {
  for (const type of Object.values(RESOURCES)) type.core();
  providerSchemaResponse();
  require("../../hooks/lint");
}

let schemaResponse: Response | undefined;

/** GetProviderSchema's answer: the same at every call, made once (and kept in the single executable's startup snapshot). */
export function providerSchemaResponse(): Response {
  if (schemaResponse) return schemaResponse;
  const schema = terraformSchema();
  const blocks = (blocks: Record<string, TerraformBlock>) => Object.fromEntries(Object.entries(blocks).map(([name, block]) => [name, protoSchema(block)]));
  return (schemaResponse = {
    provider: protoSchema(schema.provider),
    resource_schemas: blocks(schema.resources),
    data_source_schemas: blocks(schema.dataSources),
    functions: protoFunctions(),
    server_capabilities: CAPABILITIES,
    diagnostics: [],
  });
}

/** A request's fields, as the proto loader gives them (keepCase). */
type Request = Record<string, unknown>;
/** A response, as the proto loader takes it. */
type Response = Record<string, unknown>;

export type Handlers = Record<string, (request: Request) => Promise<Response>>;

// ---------------------------------------------------------------------------------------------
// The provider
// ---------------------------------------------------------------------------------------------

export function terraformProvider(): Handlers {
  return {
    async GetMetadata() {
      const schema = terraformSchema();
      return {
        server_capabilities: CAPABILITIES,
        resources: Object.keys(schema.resources).map((type_name) => ({ type_name })),
        data_sources: Object.keys(schema.dataSources).map((type_name) => ({ type_name })),
        functions: Object.keys(FUNCTIONS).map((name) => ({ name })),
        diagnostics: [],
      };
    },

    async GetProviderSchema() {
      return providerSchemaResponse();
    },

    async GetResourceIdentitySchemas() {
      const identity_schemas = Object.fromEntries(
        Object.entries(RESOURCES).map(([name, { identity }]) => [
          name,
          { version: IDENTITY_VERSION, identity_attributes: [{ name: identity.attribute, type: Buffer.from(JSON.stringify("string")), required_for_import: true, description: identity.description }] },
        ]),
      );
      return { identity_schemas, diagnostics: [] };
    },

    async UpgradeResourceIdentity({ type_name, version, raw_identity }) {
      const type = resourceType(type_name as string);
      if (Number(version ?? 0) > IDENTITY_VERSION) {
        return { diagnostics: [{ severity: "ERROR", summary: `the identity of this ${String(type_name)} was written by a newer version of the provider (identity version ${String(version)}, this one knows ${IDENTITY_VERSION}): upgrade the provider`, detail: "" }] };
      }
      const stored = (decodeValue(raw_identity as DynamicValue) ?? {}) as TerraformObject;
      return { upgraded_identity: identityData(type, stored), diagnostics: [] };
    },

    async GetFunctions() {
      return { functions: protoFunctions(), diagnostics: [] };
    },

    async CallFunction({ name, arguments: args }) {
      const found = FUNCTIONS[name as string];
      if (!found) return { error: { text: `unknown function ${String(name)} (this provider serves ${Object.keys(FUNCTIONS).join(", ")})` } };
      const answer = found.call((args as DynamicValue[]).map((value) => decodeValue(value)));
      if ("error" in answer) return { error: { text: answer.error, ...(answer.argument !== undefined && { function_argument: answer.argument }) } };
      return { result: encodeValue(answer.result) };
    },

    async ValidateProviderConfig({ config }) {
      const { base_url: baseUrl } = (decodeValue(config as DynamicValue) ?? {}) as TerraformObject;
      const diagnostics: Diagnostic[] = [];
      if (typeof baseUrl === "string" && baseUrl !== UNKNOWN && !/^https?:\/\/[^\s/]+/.test(baseUrl)) {
        diagnostics.push({ severity: "ERROR", summary: `base_url: ${JSON.stringify(baseUrl)} is not an http(s) URL, e.g. http://127.0.0.1:8765`, detail: "", attribute: { steps: [{ attribute_name: "base_url" }] } });
      }
      return { diagnostics };
    },

    async ConfigureProvider({ config }) {
      const { api_key: apiKey, base_url: baseUrl } = (decodeValue(config as DynamicValue) ?? {}) as TerraformObject;
      // Unset (or not known yet): the environment's GEMINI_API_KEY / GOOGLE_GEMINI_BASE_URL, read by providerClient.
      const text = (value: unknown) => (typeof value === "string" && value !== "" && value !== UNKNOWN ? value : undefined);
      setProviderConfig({ apiKey: text(apiKey), baseUrl: text(baseUrl) });
      return { diagnostics: [] };
    },

    async ValidateResourceConfig({ type_name, config, client_capabilities }) {
      const type = resourceType(type_name as string);
      const configured = (decodeValue(config as DynamicValue) ?? {}) as TerraformObject;
      const allowed = (client_capabilities as { write_only_attributes_allowed?: boolean } | null)?.write_only_attributes_allowed === true;
      const { failures } = type.core().check({}, coreValue(coreInputsOf(type.block), configured));
      const named = namedAttributes(type.block, configured);
      return { diagnostics: [...writeOnlyDiagnostics(type.block, configured, allowed), ...failures.map((failure) => failureDiagnostic(named, failure))] };
    },

    async UpgradeResourceState({ type_name, version, raw_state }) {
      const type = resourceType(type_name as string);
      const stored = decodeValue(raw_state as DynamicValue);
      const upgraded = upgradeState(type_name as string, Number(version ?? 0), stored);
      return { upgraded_state: encodeValue(conformed(type.block.attributes, upgraded)), diagnostics: [] };
    },

    async ReadResource({ type_name, current_state, private: privateState }) {
      const type = resourceType(type_name as string);
      const current = decodeValue(current_state as DynamicValue) as TerraformObject | null;
      if (current === null) return { new_state: current_state, diagnostics: [], private: privateState };
      settle([current.id]);
      const result = await type.core().read(providerClient(), String(current.id), coreValue(type.block.attributes, current));
      // Gone (deleted outside Terraform): a null state, which Terraform removes and plans to create again.
      if (!result) return { new_state: encodeValue(null), diagnostics: [], private: privateState };
      const state = { ...current, ...computedValue(type.block, result.outs, result.id) };
      return { new_state: encodeValue(state), new_identity: identityData(type, state), diagnostics: [], private: privateState };
    },

    async PlanResourceChange({ type_name, prior_state, proposed_new_state, config, prior_private }) {
      const type = resourceType(type_name as string);
      const configured = (decodeValue(config as DynamicValue) ?? {}) as TerraformObject;
      const proposedState = decodeValue(proposed_new_state as DynamicValue) as TerraformObject | null;
      const prior = decodeValue(prior_state as DynamicValue) as TerraformObject | null;
      // The identity of what exists stays (a replacement's new one is planned as a create, prior null): a create's is known at apply.
      const planned = (state: unknown, requires_replace: unknown[] = []) => ({
        planned_state: encodeValue(state),
        requires_replace,
        planned_private: prior_private,
        ...(prior !== null && state !== null && { planned_identity: identityData(type, prior) }),
        diagnostics: [],
      });
      settle([prior?.id]);
      if (proposedState === null) return planned(null); // destroy
      // A write-only value is checked, but planned as null: neither plan nor state holds it.
      const proposed = withoutWriteOnly(type.block, proposedState, configured);
      const writeOnly = writeOnlyValues(type.block, configured);
      const core = type.core();
      const checked = core.check({}, coreValue(coreInputsOf(type.block), { ...proposed, ...writeOnly }));
      if (checked.failures.length > 0) return { diagnostics: checked.failures.map((failure) => failureDiagnostic(namedAttributes(type.block, configured), failure)) };
      const computed = type.block.attributes.filter((attribute) => attribute.computed);
      if (prior === null) return planned({ ...proposed, ...Object.fromEntries(computed.map((attribute) => [attribute.name, UNKNOWN])) });

      // What the state holds is compared: a write-only value never is (its version is, an input like any other).
      const stateInputs = Object.keys(writeOnly).length === 0 ? checked.inputs : core.check({}, coreValue(coreInputsOf(type.block), proposed)).inputs;
      const diff = core.diff(coreValue(type.block.attributes, prior), stateInputs);
      const replace = [...diff.changes].filter(([, change]) => change.replace).map(([path]) => terraformPath(type.block.attributes, parsePath(path).path).attribute);
      const inputsChanged = inputsOf(type.block).some((attribute) => JSON.stringify(proposed[attribute.name]) !== JSON.stringify(prior[attribute.name]));
      if (diff.changes.size === 0 && !inputsChanged) return planned(proposed);
      // What the update changes is known at apply: every computed attribute but those it keeps.
      const unknowns = computed.filter((attribute) => !type.kept.includes(attribute.name)).map((attribute) => [attribute.name, type.cleared.includes(attribute.name) ? null : UNKNOWN]);
      return planned({ ...proposed, ...Object.fromEntries(unknowns) }, replace);
    },

    async ApplyResourceChange({ type_name, prior_state, planned_state, config, planned_private }) {
      const type = resourceType(type_name as string);
      const core = type.core();
      const prior = decodeValue(prior_state as DynamicValue) as TerraformObject | null;
      const plannedState = decodeValue(planned_state as DynamicValue) as TerraformObject | null;
      const configured = (decodeValue(config as DynamicValue) ?? {}) as TerraformObject;
      const answer = (state: TerraformObject | null, diagnostics: Diagnostic[] = []) => ({
        new_state: encodeValue(state && withoutWriteOnly(type.block, state, configured)),
        ...(state !== null && { new_identity: identityData(type, state) }),
        private: planned_private,
        diagnostics,
      });
      if (plannedState === null) {
        await core.delete(providerClient(), String(prior!.id));
        return answer(null);
      }
      const inputs = inputsOf(type.block);
      const writeOnly = writeOnlyValues(type.block, configured);
      const checked = core.check({}, coreValue(coreInputsOf(type.block), { ...plannedState, ...writeOnly }));
      if (checked.failures.length > 0) return { diagnostics: checked.failures.map((failure) => failureDiagnostic(namedAttributes(type.block, configured), failure)) };
      // A write-only value is sent on create, and on update when its version changed: else the API keeps the one it has.
      const sent = writeOnlySent(type.block, writeOnly, prior, plannedState);
      const news = Object.keys(sent).length === Object.keys(writeOnly).length ? checked.inputs : core.check({}, coreValue(coreInputsOf(type.block), { ...plannedState, ...sent })).inputs;
      const declared = Object.fromEntries(inputs.map((attribute) => [attribute.name, plannedState[attribute.name]]));
      if (prior === null) {
        const { id, outs } = await created(type_name as string, core, news);
        return answer({ ...declared, ...computedValue(type.block, outs, id) });
      }
      const id = String(prior.id);
      try {
        const outs = await core.update(providerClient(), id, coreValue(type.block.attributes, prior), news);
        return answer({ ...declared, ...computedValue(type.block, outs, id) });
      } catch (error) {
        if (!(error instanceof PartialUpdateError)) throw error;
        // The state records what was applied (the inputs as uploaded), so the next plan finishes the job.
        return answer({ ...terraformValue(type.block.attributes, error.outs as object), id }, [errorDiagnostic(error)]);
      }
    },

    async ImportResourceState({ type_name, id: importId, identity }) {
      const type = resourceType(type_name as string);
      // By id (`terraform import`, an import block's `id`), or by identity (an import block's `identity = { id = … }`).
      const identified = (decodeValue((identity as { identity_data?: DynamicValue } | null)?.identity_data) ?? {}) as TerraformObject;
      const id = importId ? String(importId) : identified[type.identity.attribute];
      if (typeof id !== "string" || id === "") {
        return { imported_resources: [], diagnostics: [{ severity: "ERROR", summary: `import of ${String(type_name)}: give its id, or an identity with ${type.identity.attribute} (e.g. identity = { ${type.identity.attribute} = "…" })`, detail: "" }] };
      }
      const result = await type.core().read(providerClient(), id, undefined);
      if (!result) {
        return { imported_resources: [], diagnostics: [{ severity: "ERROR", summary: `${type_name} ${id} does not exist for this API key: check the id and the provider's api_key and base_url`, detail: "" }] };
      }
      const state = withoutWriteOnly(type.block, { ...terraformValue(inputsOf(type.block), result.inputs), ...computedValue(type.block, result.outs, result.id) }, {});
      return { imported_resources: [{ type_name, state: encodeValue(state), identity: identityData(type, state), private: Buffer.alloc(0) }], diagnostics: [] };
    },

    async ValidateDataResourceConfig({ type_name, config }) {
      if (type_name !== `${PROVIDER_NAME}_hooks`) return { diagnostics: [] };
      const args = decodeValue(config as DynamicValue);
      // Not known yet (a file() of a generated file): the plan's read checks it.
      if (hasUnknown(args)) return { diagnostics: [] };
      // Its errors stop validate; its warnings are the plan's (ReadDataSource), once.
      const { errors } = readHooks(coreValue(argumentsOf(dataBlock(type_name)), args) as never);
      return { diagnostics: hooksDiagnostics({ errors, warnings: [] }) };
    },

    async ReadDataSource({ type_name, config }) {
      const block = dataBlock(type_name as string);
      const configured = decodeValue(config as DynamicValue) as TerraformObject;
      const args = coreValue(argumentsOf(block), configured);
      const results = block.attributes.filter((attribute) => attribute.computed);
      if (type_name === `${PROVIDER_NAME}_hooks`) {
        const read = readHooks(args as never);
        const diagnostics = hooksDiagnostics(read);
        if (!read.result) return { diagnostics };
        return { state: encodeValue({ ...configured, ...terraformValue(results, read.result) }), diagnostics };
      }
      const core = DATA_SOURCE_FUNCTIONS[type_name as string] as FunctionCore;
      try {
        const outputs = await callFunction(core, providerClient, args);
        return { state: encodeValue({ ...configured, ...terraformValue(results, outputs) }), diagnostics: [] };
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        return { diagnostics: error.issues.map((issue) => failureDiagnostic(block.attributes, { property: String(issue.path[0] ?? ""), reason: renderIssue(issue) })) };
      }
    },

    async StopProvider() {
      return { Error: "" };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/**
 * A new resource, through the record of pending creates (_pending-creates.ts), which adopts what a
 * killed apply made (an environment of the same spec, the credential of the same id) instead of
 * making it twice or failing.
 */
async function created(typeName: string, core: AnyCore, inputs: object): Promise<{ id: string; outs: object }> {
  const client = providerClient();
  if (typeName === `${PROVIDER_NAME}_credential`) {
    const { credentialId, type } = inputs as { credentialId: string; type: string };
    return createCredentialRecorded(
      credentialId,
      () => core.create(client, inputs),
      async () => {
        const existing = await client.credentials.get(credentialId);
        if (existing.type !== type) throw new Error(`credential ${credentialId} already exists as a ${existing.type} credential: choose another credential_id, or delete it first`);
        // Every declared field sent (the old state names none of them), the secret included.
        return { id: credentialId, outs: await core.update(client, credentialId, { credentialId, type } as object, inputs) };
      },
    );
  }
  if ((inputs as { adopt?: string }).adopt !== undefined) return core.create(client, inputs);
  const { createRequestOf } = require("../environment/core") as typeof import("../environment/core");
  return createRecorded(
    client,
    createRequestOf(inputs as never),
    () => core.create(client, inputs),
    (id) => core.create(client, { ...inputs, adopt: id }),
  );
}

/**
 * get_provider_schema_optional: the schema is the same at every start, so Terraform (1.6+) and OpenTofu
 * ask for it once per command and not again at each of the provider's 3-5 starts.
 */
const CAPABILITIES = { plan_destroy: false, get_provider_schema_optional: true, move_resource_state: false };

function resourceType(name: string): ResourceType {
  const found = RESOURCES[name];
  const block = terraformSchema().resources[name];
  if (!found || !block) throw new Error(`unknown resource type ${name} (this provider serves ${Object.keys(RESOURCES).join(", ")})`);
  return { ...found, block };
}

function dataBlock(name: string): TerraformBlock {
  const block = terraformSchema().dataSources[name];
  if (!block) throw new Error(`unknown data source ${name} (this provider serves ${Object.keys(terraformSchema().dataSources).join(", ")})`);
  return block;
}

/** The identity schemas' version: bump it when an identity changes shape, and teach UpgradeResourceIdentity. */
const IDENTITY_VERSION = 0;

/** A resource's identity, from its state: `{ id }`, `{ credential_id }`. */
function identityData(type: ResourceType, state: TerraformObject): Response {
  const attribute = type.identity.attribute;
  return { identity_data: encodeValue({ [attribute]: state[attribute] ?? null }) };
}

/** A resource's input attributes: what the configuration sets. */
function inputsOf(block: TerraformBlock): TerraformAttribute[] {
  return block.attributes.filter((attribute) => !attribute.computed);
}

/** The inputs the core takes: all but a write-only attribute's version, which is Terraform's alone. */
function coreInputsOf(block: TerraformBlock): TerraformAttribute[] {
  return inputsOf(block).filter((attribute) => attribute.versionOf === undefined);
}

// ---------------------------------------------------------------------------------------------
// Write-only attributes (`token_wo`, with `token_wo_version`)
// ---------------------------------------------------------------------------------------------

const isSet = (value: unknown) => value !== null && value !== undefined;

/** The write-only attributes the configuration sets, by name. */
function writeOnlyValues(block: TerraformBlock, configured: TerraformObject): TerraformObject {
  return Object.fromEntries(block.attributes.filter((attribute) => attribute.writeOnly && isSet(configured[attribute.name])).map((attribute) => [attribute.name, configured[attribute.name]]));
}

/** Those to send: every one on create; on update, those whose version changed. */
function writeOnlySent(block: TerraformBlock, writeOnly: TerraformObject, prior: TerraformObject | null, planned: TerraformObject): TerraformObject {
  if (prior === null) return writeOnly;
  const changed = (name: string) => {
    const version = block.attributes.find((attribute) => attribute.name === name)!.writeOnly!.version;
    return JSON.stringify(planned[version] ?? null) !== JSON.stringify(prior[version] ?? null);
  };
  return Object.fromEntries(Object.entries(writeOnly).filter(([name]) => changed(name)));
}

/**
 * A state or plan without a secret in it: each write-only attribute null, and so is the plain
 * attribute of one the configuration sets (a core's outputs restate the secret it sent, as `token`).
 */
function withoutWriteOnly(block: TerraformBlock, state: TerraformObject, configured: TerraformObject): TerraformObject {
  const cleared = { ...state };
  for (const attribute of block.attributes) {
    if (!attribute.writeOnly) continue;
    cleared[attribute.name] = null;
    if (isSet(configured[attribute.name])) cleared[attribute.writeOnly.plain] = null;
  }
  return cleared;
}

/**
 * The attributes a check failure is named by: a failure about `token` names `token_wo` when that is
 * what the configuration sets (both share the core's property).
 */
function namedAttributes(block: TerraformBlock, configured: TerraformObject): TerraformAttribute[] {
  const replaced = new Set(block.attributes.filter((attribute) => attribute.writeOnly && isSet(configured[attribute.name])).map((attribute) => attribute.writeOnly!.plain));
  return block.attributes.filter((attribute) => !replaced.has(attribute.name));
}

/**
 * A write-only attribute needs an engine that keeps it out of the state (it says so in
 * ValidateResourceConfig's client capabilities); it conflicts with its plain attribute; its version
 * means nothing without it.
 */
function writeOnlyDiagnostics(block: TerraformBlock, configured: TerraformObject, allowed: boolean): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const at = (name: string, summary: string): Diagnostic => ({ severity: "ERROR", summary, detail: "", attribute: { steps: [{ attribute_name: name }] } });
  for (const attribute of block.attributes) {
    if (!attribute.writeOnly) continue;
    const { name, writeOnly } = attribute;
    if (isSet(configured[name]) && isSet(configured[writeOnly.plain])) {
      diagnostics.push(at(name, `${writeOnly.plain} and ${name}: set one of them, not both (${name} is write-only: the secret stays out of plan and state)`));
    }
    if (isSet(configured[name]) && !allowed) {
      diagnostics.push(at(name, `${name}: this engine does not take write-only attributes (${WRITE_ONLY_ENGINES} do): upgrade it, or set ${writeOnly.plain}, which the state keeps (sensitive)`));
    }
    if (isSet(configured[writeOnly.version]) && !isSet(configured[name])) {
      diagnostics.push(at(writeOnly.version, `${writeOnly.version}: set without ${name}: set ${name}, the secret it versions, or remove ${writeOnly.version}`));
    }
  }
  return diagnostics;
}

/** A data source's arguments. */
function argumentsOf(block: TerraformBlock): TerraformAttribute[] {
  return block.attributes.filter((attribute) => !attribute.computed);
}

/** The computed attributes of a core's outputs (`id` the resource's id). */
function computedValue(block: TerraformBlock, outs: object, id: string): TerraformObject {
  return terraformValue(
    block.attributes.filter((attribute) => attribute.computed),
    { ...outs, id },
  );
}

function hooksDiagnostics(read: ReturnType<typeof readHooks>): Diagnostic[] {
  const block = dataBlock(`${PROVIDER_NAME}_hooks`);
  const at = (severity: "ERROR" | "WARNING") => (issue: (typeof read.errors)[number]) =>
    failureDiagnostic(block.attributes, { property: String(issue.path[0] ?? ""), reason: renderIssue(issue) }, severity);
  return [...read.errors.map(at("ERROR")), ...read.warnings.map(at("WARNING"))];
}

/** The functions as GetFunctions and GetProviderSchema send them. */
function protoFunctions(): Record<string, Response> {
  const type = (cty: unknown) => Buffer.from(JSON.stringify(cty));
  return Object.fromEntries(
    Object.entries(FUNCTIONS).map(([name, found]) => [
      name,
      {
        parameters: found.parameters.map((parameter) => ({
          name: parameter.name,
          type: type(parameter.type),
          allow_null_value: parameter.allowNull,
          allow_unknown_values: false,
          description: parameter.description,
          description_kind: "MARKDOWN",
        })),
        return: { type: type(found.returns) },
        summary: found.summary,
        description: found.description,
        description_kind: "MARKDOWN",
      },
    ]),
  );
}

/** A block as GetProviderSchema sends it. */
function protoSchema(block: TerraformBlock): Response {
  return { version: block.version, block: { version: block.version, attributes: block.attributes.map(protoAttribute), description: block.description, description_kind: "MARKDOWN" } };
}

function protoAttribute(attribute: TerraformAttribute): Response {
  return {
    name: attribute.name,
    type: attribute.nested ? Buffer.alloc(0) : Buffer.from(JSON.stringify(attribute.type)),
    ...(attribute.nested && { nested_type: { attributes: attribute.nested.attributes.map(protoAttribute), nesting: attribute.nested.nesting.toUpperCase() } }),
    description: attribute.description,
    description_kind: "MARKDOWN",
    required: attribute.required,
    optional: attribute.optional,
    computed: attribute.computed,
    sensitive: attribute.sensitive,
    write_only: attribute.writeOnly !== undefined,
  };
}
