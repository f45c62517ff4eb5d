/**
 * The Environment resource's inputs and outputs as the provider sees them (plain values, secrets
 * unwrapped), and their validation with the sdk's wire schemas.
 */
import type { EnvironmentMode, Network, Source } from "../sdk/schemas";

export interface EnvironmentInputs {
  sources?: Source[];
  network?: Network;
  /** Id (`env_…` or `environments/env_…`) of an environment whose files to start from. */
  fromEnvironment?: string;
  /** Id of an existing environment to bring under management instead of creating one. */
  adopt?: string;
  /** `on_demand` (the API's default) or `self_hosted`. */
  mode?: EnvironmentMode;
  /** Wire `system_instruction`; self_hosted only. */
  systemInstruction?: string;
  /** Wire `custom_config`: any JSON object, passed to the self-hosted poller; self_hosted only. */
  customConfig?: Record<string, unknown>;
}

export interface EnvironmentOutputs extends EnvironmentInputs {
  /** `active` or `expired`. */
  status: string;
  created: string;
  updated: string;
  lastAccessed: string;
  fileCount: number;
  sizeBytes: number;
  /**
   * A self_hosted environment's key, from the create response (Get never returns it): kept across
   * refresh, a secret in state (the resource lists it in additionalSecretOutputs).
   */
  environmentKey?: string;
}

/** The properties whose change forces a new environment (the API has no update). */
export const REPLACING_PROPERTIES = ["sources", "network", "fromEnvironment", "mode", "systemInstruction", "customConfig"] as const;

/** What an omitted input means, so that declaring the default is no change. */
export const INPUT_DEFAULTS: Partial<Record<(typeof REPLACING_PROPERTIES)[number], unknown>> = { mode: "on_demand" };

/** Input property → wire field, where they differ. */
export const WIRE_FIELD = { fromEnvironment: "from_environment", systemInstruction: "system_instruction", customConfig: "custom_config" } as const;

/** The value Pulumi passes for a value not known until apply (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}
