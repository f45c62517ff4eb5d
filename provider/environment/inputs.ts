/**
 * The Environment resource's properties, once (contracts/resource-schema.ts): inputs and computed outputs as
 * zod schemas whose `.meta` gives each one's description, wire field and what a change does. The
 * TypeScript types, the Args of the resource classes, check, create and import (environment/core.ts)
 * and schema.json (scripts/generate-schema.ts) all follow. A new input — say `mode` — is one entry in
 * `EnvironmentInputs`; a new output one entry in `EnvironmentComputed`.
 */
import { z } from "zod";
import { AllowlistEntry, DEFAULT_ENVIRONMENT_MODE, EnvironmentMode, HeaderMap, Network, Source } from "../../client/schemas";
import { bindableOr, type InputsOf } from "../contracts/resource-schema";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const UPDATE_STRATEGY_ERROR = 'must be "in_place" (upload changed inline files) or "replace" (a new environment)';

export const UpdateStrategy = z.enum(["in_place", "replace"], { error: UPDATE_STRATEGY_ERROR }).meta({
  description: "How an Environment applies a change to its inline sources: `in_place` uploads the files, `replace` creates a new environment.",
  valueDescriptions: {
    in_place: "Upload the changed and added inline files and keep the environment, its id and the files the agent wrote (the default).",
    replace: "Create a new environment for any change.",
  },
});

/** `in_place`'s name before 0.2.0, still read (as `in_place`): every other value is snake_case, as the API's are. */
const RENAMED_UPDATE_STRATEGY = "inPlace";

/**
 * An updateStrategy as declared: a value of `UpdateStrategy`, or its former name `inPlace`, which it
 * reads as `in_place` (in a program, and in a state written before 0.2.0).
 */
export const UpdateStrategyDeclared = bindableOr(UpdateStrategy, z.literal(RENAMED_UPDATE_STRATEGY), { error: UPDATE_STRATEGY_ERROR }).transform((value) =>
  value === RENAMED_UPDATE_STRATEGY ? "in_place" : value,
);

/**
 * The egress policy as every language declares it (schema.json's `EgressPolicy`, `NetworkAllowlist`
 * before 0.2.0): one object whose
 * fields each have one type, because the API's unions (`"disabled"` or an object; a list or
 * `"disabled"`; one header map or a list) do not bind in Python and Go. `networkToWire` makes the
 * API's form of it. The API's own forms stay accepted as they are (`NetworkDeclared`).
 */
export const AllowlistEntryInput = AllowlistEntry.extend({
  transform: z
    .array(HeaderMap)
    .optional()
    .meta({ description: "Headers to inject, as a list of maps applied in order, e.g. `[{Authorization: \"Bearer …\"}]`. Secret: they often carry tokens.", secret: true }),
}).meta({ description: "A domain the sandbox may reach, and the headers or credential the egress proxy injects on requests to it." });

export const NetworkInput = z
  .strictObject({
    allowlist: z
      .array(AllowlistEntryInput)
      .optional()
      .meta({ description: "Allowed domains, in order (their transforms apply in that order); an empty list allows nothing. Leave it out with `disabled: true`." }),
    disabled: z.boolean().optional().meta({ description: "`true`: no network access at all, HTTP hooks included (the API's `\"disabled\"`)." }),
  })
  .superRefine((network, ctx) => {
    if (network.disabled === true && network.allowlist !== undefined) {
      ctx.addIssue({ code: "custom", path: ["allowlist"], message: "must be left out when disabled is true: a disabled network allows nothing" });
    } else if (network.disabled !== true && network.allowlist === undefined) {
      ctx.addIssue({ code: "custom", path: ["allowlist"], message: "is required unless disabled is true (leave network out to allow all egress)" });
    }
  })
  .meta({ description: "Egress policy: `allowlist` (only the listed domains) or `disabled: true` (no network); leave the network out to allow all egress." });
export type NetworkInput = z.infer<typeof NetworkInput>;

/** A network as declared: the form above, or one of the API's (`"disabled"`, `{allowlist: "disabled"}`, a single transform map). */
export const NetworkDeclared = bindableOr(NetworkInput, Network, {
  error: 'must be {allowlist: [{domain: "…"}]} or {disabled: true} (the API\'s "disabled" and {"allowlist": […]} are accepted too)',
});
export type NetworkDeclared = z.infer<typeof NetworkDeclared>;

/** The API's form of a declared network: `{disabled: true}` is `"disabled"`; the API's own forms are kept. */
export function networkToWire(network: NetworkDeclared): Network {
  if (network === null || typeof network !== "object" || network.allowlist === "disabled") return network as Network;
  if ("disabled" in network && network.disabled === true) return "disabled";
  return { allowlist: (network.allowlist ?? []) as Array<z.infer<typeof AllowlistEntry>> };
}

/** The declared form of the API's network: `"disabled"` (either way) is `{disabled: true}`, and a transform a list of maps. */
export function networkFromWire(network: Network): NetworkInput {
  if (network === "disabled" || (typeof network === "object" && network !== null && network.allowlist === "disabled")) return { disabled: true };
  if (typeof network !== "object" || network === null || !Array.isArray(network.allowlist)) return network as unknown as NetworkInput;
  return {
    allowlist: network.allowlist.map(({ transform, ...entry }) => ({ ...entry, ...(transform !== undefined && { transform: Array.isArray(transform) ? transform : [transform] }) })),
  };
}

export const EnvironmentInputs = z
  .object({
    sources: z.array(Source).optional().meta({
      description:
        "What to put into the environment. Editing an inline source's content, or adding inline sources at the end, uploads the files and keeps the environment (see `updateStrategy`); any other change replaces it: the API cannot remove a file.",
      wire: "sources",
      change: "updateOrReplace",
    }),
    network: NetworkDeclared.optional().meta({
      description: "Egress policy: omitted (all egress allowed), `{allowlist: [...]}` or `{disabled: true}`. Any change replaces the environment.",
      wire: "network",
      toWire: networkToWire,
      fromWire: networkFromWire,
      change: "replace",
    }),
    fromEnvironment: z
      .string()
      .optional()
      .meta({ description: "Start from a copy of another environment's current files (`env_…` or `environments/env_…`).", wire: "from_environment", change: "replace" }),
    adopt: z
      .string()
      .regex(/^(environments\/)?[A-Za-z0-9_-]+$/, { error: "must be an environment id such as env_abc123" })
      .optional()
      .meta({
        description:
          "Bring an existing environment under management instead of creating one (its id); it must hold the declared sources, network and mode fields. A self_hosted environment's key cannot be recovered so: `environmentKey` stays empty.",
      }),
    mode: EnvironmentMode.optional().meta({
      description:
        "`on_demand` (default: the service runs the sandbox) or `self_hosted` (your sandbox daemon polls for the work, authenticated by `environmentKey`). A change replaces the environment.",
      wire: "mode",
      change: "replace",
      absent: DEFAULT_ENVIRONMENT_MODE,
    }),
    systemInstruction: z.string().optional().meta({
      description: "System instruction for the interactions in this environment; self_hosted only. A change replaces the environment.",
      wire: "system_instruction",
      change: "replace",
    }),
    customConfig: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description: "Any JSON object, passed through to the self-hosted environment poller, e.g. `{pool: \"gpu\"}`; self_hosted only. A change replaces the environment.",
        wire: "custom_config",
        change: "replace",
      }),
    updateStrategy: UpdateStrategyDeclared.optional().meta({
      description:
        "How a change to inline sources' content is applied: `in_place` (default) uploads the changed and added files and keeps the environment, its id and the files the agent wrote; `replace` creates a new environment for any change. `inPlace`, its name before 0.2.0, is read as `in_place`.",
      change: "update",
      absent: "in_place",
    }),
  })
  .meta({
    description:
      "A Gemini Environment: an isolated sandbox in which agent code, tools and hooks run. Edited or added inline sources are uploaded in place; any other change to sources, and any change to network, fromEnvironment, mode, systemInstruction or customConfig, replaces it.",
  });

export const EnvironmentStatus = z.enum(["active", "expired"]).meta({
  description: "The state of an environment's container.",
  valueDescriptions: {
    active: "The environment can run work.",
    expired: "Idle too long: its container is gone; the next `up` after a refresh replaces it.",
  },
});

export const EnvironmentComputed = z.object({
  status: EnvironmentStatus.meta({ description: "`active`, or `expired` once idle too long (the next `up` after a refresh replaces it).", wire: "status", absent: "active" }),
  created: z.string().meta({ description: "Creation time, ISO 8601.", wire: "created" }),
  updated: z.string().meta({ description: "Last update time, ISO 8601.", wire: "updated" }),
  lastAccessed: z.string().meta({ description: "Last access time, ISO 8601.", wire: "last_accessed" }),
  fileCount: z.number().int().meta({ description: "Number of files in the environment.", wire: "file_count" }),
  sizeBytes: z.number().int().meta({ description: "Total size of the environment's files, in bytes.", wire: "size_bytes" }),
  environmentKey: z.string().optional().meta({
    description:
      "A self_hosted environment's secret key for its sandbox daemon: returned by the API at create only, kept in state (a secret) across refreshes; undefined for on_demand.",
    wire: "environment_key",
    secret: true,
    once: true,
  }),
  // Found by refresh, not sent by the API (no wire field: the API's answer never fills it in).
  driftedHookFiles: z
    .array(z.string())
    .optional()
    .meta({
      description:
        "Declared hook files (`.agents/hooks.json`, `.agents/hooks-scripts/*` from inline sources) that refresh found changed or removed in the environment, e.g. by an agent rewriting its own guardrails; the next `up` uploads the declared content again.",
    }),
});

export const EnvironmentOutputs = EnvironmentInputs.extend(EnvironmentComputed.shape);

// ---------------------------------------------------------------------------------------------
// Derived types
// ---------------------------------------------------------------------------------------------

/** The inputs as the provider sees them (plain values, secrets unwrapped). */
export type EnvironmentInputs = z.infer<typeof EnvironmentInputs>;
/** An updateStrategy as a program may declare it (`inPlace` included). */
export type UpdateStrategy = z.input<typeof UpdateStrategyDeclared>;
export type EnvironmentOutputs = z.infer<typeof EnvironmentOutputs>;

/** An Environment's arguments: `sources`, `network`, `fromEnvironment`, `adopt`, `mode`, `systemInstruction`, `customConfig` (schema.json describes each). */
export type EnvironmentArgs = InputsOf<z.input<typeof EnvironmentInputs>>;
export type SourceArgs = InputsOf<Source>;
export type AllowlistEntryArgs = InputsOf<AllowlistEntry>;
/** schema.json's EgressPolicy as declared, the API's `"disabled"` included. */
export type EgressPolicyArgs = "disabled" | InputsOf<Exclude<NetworkDeclared, "disabled">>;
/** @deprecated The schema's and every other SDK's name is `EgressPolicyArgs`; this one goes in 1.0. */
export type NetworkArgs = EgressPolicyArgs;

// ---------------------------------------------------------------------------------------------
// Values unknown during preview
// ---------------------------------------------------------------------------------------------

/** The value Pulumi passes for a value not known until apply (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}
