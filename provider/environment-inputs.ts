/**
 * The Environment resource's inputs and outputs as the provider sees them (plain values, secrets
 * unwrapped), and their validation with the sdk's wire schemas.
 */
import type { Network, Source } from "../sdk/schemas";

export interface EnvironmentInputs {
  sources?: Source[];
  network?: Network;
  /** Id (`env_…` or `environments/env_…`) of an environment whose files to start from. */
  fromEnvironment?: string;
  /** Id of an existing environment to bring under management instead of creating one. */
  adopt?: string;
}

export interface EnvironmentOutputs extends EnvironmentInputs {
  /** `active` or `expired`. */
  status: string;
  created: string;
  updated: string;
  lastAccessed: string;
  fileCount: number;
  sizeBytes: number;
}

/** The value Pulumi passes for a value not known until apply (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}
