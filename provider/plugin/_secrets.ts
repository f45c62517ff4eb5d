/**
 * Secrets between the engine and the cores. The plugin accepts secrets (its `configure` says so), so
 * property values arrive as the engine marshals them: a secret is
 * `{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": …}` wherever it
 * sits, a resource reference a signed object with its `urn` and `id`. The cores work on plain values:
 * `reveal` unwraps them and records where the secrets were, `conceal` wraps the same paths (and the
 * resource's always-secret properties) again on the way back, so one secret `content` stays one
 * secret, not the whole `sources` list.
 */
export const SIGNATURE_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIGNATURE = "1b47061264138c4ac30d75fd1eb44270";
const RESOURCE_SIGNATURE = "5cf8f73096256a8f31e491e813e4eb8e";

export type Path = ReadonlyArray<string | number>;

/** A plain copy of `value` and the paths of the secrets found in it. */
export function reveal(value: unknown, at: Path = [], secrets: Path[] = []): { plain: unknown; secrets: Path[] } {
  if (Array.isArray(value)) return { plain: value.map((item, index) => reveal(item, [...at, index], secrets).plain), secrets };
  if (value === null || typeof value !== "object") return { plain: value, secrets };
  const record = value as Record<string, unknown>;
  if (record[SIGNATURE_KEY] === SECRET_SIGNATURE) {
    secrets.push(at);
    return reveal(record.value, at, secrets);
  }
  // A resource reference stands for its id (a custom resource) or its URN (a component).
  if (record[SIGNATURE_KEY] === RESOURCE_SIGNATURE) return { plain: record.id || record.urn, secrets };
  const plain: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) plain[key] = reveal(item, [...at, key], secrets).plain;
  return { plain, secrets };
}

/** `plain` with the value at each of `paths` that is still there wrapped as a secret. */
export function conceal(plain: unknown, paths: readonly Path[]): unknown {
  let result = plain;
  for (const path of paths) result = wrapAt(result, path);
  return result;
}

export function secret(value: unknown): unknown {
  return { [SIGNATURE_KEY]: SECRET_SIGNATURE, value };
}

function wrapAt(value: unknown, path: Path): unknown {
  if (value === undefined) return value;
  if (path.length === 0) return isSecret(value) ? value : secret(value);
  if (value === null || typeof value !== "object" || isSecret(value)) return value;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>;
  if (!(head in copy)) return value;
  copy[head] = wrapAt(copy[head], rest);
  return copy;
}

function isSecret(value: unknown): boolean {
  return value !== null && typeof value === "object" && (value as Record<string, unknown>)[SIGNATURE_KEY] === SECRET_SIGNATURE;
}
