/**
 * `skill_registry` sources: `source` names a directory of the registry the emulator was started with
 * (`genv serve --skill-registry DIR`, `startEmulator({ skillRegistryDir })`), e.g. `skills/my-skill`,
 * copied to `target` (default: the same path as `source`).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { targetPathProblem, type Source } from "../../client/schemas";
import { HttpError, invalidArgument } from "../errors";
import { copyTree, type Budget } from "./_copy";

export async function materializeSkill(source: Source, index: number, root: string, registryDir: string | undefined, budget: Budget): Promise<void> {
  const field = `sources[${index}].source`;
  const name = source.source!;
  if (!registryDir) {
    throw new HttpError(
      "FAILED_PRECONDITION",
      `${field}: skill_registry sources need a skill registry; start the emulator with --skill-registry DIR (startEmulator({ skillRegistryDir }))`,
    );
  }
  const problem = targetPathProblem(name);
  if (problem) throw invalidArgument(`${field}: ${problem}`);
  const registry = await fs.realpath(registryDir);
  let directory: string;
  try {
    directory = await fs.realpath(path.join(registry, name));
  } catch {
    throw invalidArgument(`${field}: no skill "${name}" in the skill registry`);
  }
  const inside = directory.startsWith(registry + path.sep);
  if (!inside || !(await fs.stat(directory)).isDirectory()) throw invalidArgument(`${field}: no skill "${name}" in the skill registry`);
  await copyTree(directory, root, source.target ?? name.replace(/\/+$/, ""), budget, ["sources", index]);
}
