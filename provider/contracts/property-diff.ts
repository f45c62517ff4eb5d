/**
 * Structural differences between two plain values, as Pulumi property paths
 * (`sources[1].content`), so that a preview names exactly what forces a replacement. The paths are
 * written as issue paths are (`formatIssuePath`): one notation for a place in a value.
 */
import { formatIssuePath } from "../../client/issues";

export type ChangeKind = "add" | "delete" | "update";

/** The changed paths under `property` (`""`: the values themselves), added to `changes`. */
export function propertyChanges(before: unknown, after: unknown, property: string, changes = new Map<string, ChangeKind>()): Map<string, ChangeKind> {
  collectChanges(before, after, property === "" ? [] : [property], changes);
  return changes;
}

function collectChanges(before: unknown, after: unknown, path: Array<string | number>, changes: Map<string, ChangeKind>): void {
  if (before === undefined && after === undefined) return;
  if (before === undefined) {
    changes.set(formatIssuePath(path), "add");
  } else if (after === undefined) {
    changes.set(formatIssuePath(path), "delete");
  } else if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) collectChanges(before[i], after[i], [...path, i], changes);
  } else if (isRecord(before) && isRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) collectChanges(before[key], after[key], [...path, key], changes);
  } else if (before !== after) {
    changes.set(formatIssuePath(path), "update");
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
