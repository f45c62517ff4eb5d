/**
 * Structural differences between two plain values, as Pulumi property paths
 * (`sources[1].content`), so that a preview names exactly what forces a replacement.
 */
export type ChangeKind = "add" | "delete" | "update";

export function propertyChanges(before: unknown, after: unknown, path: string, changes = new Map<string, ChangeKind>()): Map<string, ChangeKind> {
  if (before === undefined && after === undefined) return changes;
  if (before === undefined) return changes.set(path, "add");
  if (after === undefined) return changes.set(path, "delete");
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) propertyChanges(before[i], after[i], `${path}[${i}]`, changes);
    return changes;
  }
  if (isRecord(before) && isRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      propertyChanges(before[key], after[key], `${path}${propertyKey(key)}`, changes);
    }
    return changes;
  }
  if (before !== after) changes.set(path, "update");
  return changes;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function propertyKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
