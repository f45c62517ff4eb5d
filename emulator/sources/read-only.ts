/**
 * Which parts of an environment the sandbox mounts read-only: the targets of `repository` and
 * `skill_registry` sources. The hooks spec recommends mounting hooks from a read-only repository
 * where tamper resistance matters; an agent's tools and hooks can read these paths but not change
 * them. Inline sources stay writable, as the spec warns.
 */
import type { Source } from "../../client/schemas";
import { parseRepository } from "./repository";

export function readOnlyTargets(sources: readonly Source[]): string[] {
  const targets: string[] = [];
  sources.forEach((source, index) => {
    if (source.type === "repository") targets.push(source.target ?? parseRepository(source.source!, `sources[${index}].source`).name);
    if (source.type === "skill_registry") targets.push(source.target ?? source.source!.replace(/\/+$/, ""));
  });
  return targets.map((target) => target.replace(/\/+$/, ""));
}
