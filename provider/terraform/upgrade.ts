/**
 * UpgradeResourceState: Terraform hands every stored state to the provider with the schema version
 * it was written at (schema.ts, `SCHEMA_VERSIONS`), as JSON, on every plan. A state of an older
 * version goes through each step from its version to the current one; provider.ts then fits it to
 * the schema (an attribute added since is null, one removed is dropped).
 *
 * A step is a pure function of the stored JSON object: when an attribute changes shape, bump the
 * resource's version and add the step that carries the old shape to the new one, e.g.
 *
 * ```ts
 * geminienvironments_environment: [
 *   // 0 → 1: network.transform was one map, now a list of maps.
 *   (state) => ({ ...state, network: … }),
 * ],
 * ```
 */
import { PROVIDER_NAME, SCHEMA_VERSIONS } from "./schema";

type Step = (state: Record<string, unknown>) => Record<string, unknown>;

/** The steps of each resource type, the one at index n taking version n to n + 1. */
const STEPS: Record<string, Step[]> = {
  [`${PROVIDER_NAME}_environment`]: [],
  [`${PROVIDER_NAME}_credential`]: [],
};

const CURRENT: Record<string, number> = {
  [`${PROVIDER_NAME}_environment`]: SCHEMA_VERSIONS.environment,
  [`${PROVIDER_NAME}_credential`]: SCHEMA_VERSIONS.credential,
};

/** A stored state of `version`, in the current version's shape; a state from a newer provider is refused. */
export function upgradeState(typeName: string, version: number, stored: unknown): unknown {
  const current = CURRENT[typeName] ?? 0;
  if (version > current) {
    throw new Error(`the state of this ${typeName} was written by a newer version of the provider (schema version ${version}, this one knows ${current}): upgrade the provider`);
  }
  let state = (stored ?? {}) as Record<string, unknown>;
  for (let at = version; at < current; at++) state = STEPS[typeName][at](state);
  return state;
}
