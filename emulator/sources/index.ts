/**
 * Materialising an environment's sources into a scratch directory, in order, one module per type:
 * inline (here), repository (repository.ts), skill_registry (skill-registry.ts); gcs is 501. Targets
 * were validated by the wire schema (relative, normalised, no duplicates); writes still refuse to
 * pass through anything that is not a plain directory, so nothing lands outside the tree.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Source } from "../../sdk/schemas";
import { HttpError, invalidArgument } from "../errors";
import { spend, type Budget } from "./_copy";
import { materializeRepository } from "./repository";
import { materializeSkill } from "./skill-registry";

export interface SourceLimits {
  /** Most files one environment may hold. */
  maxFiles: number;
  /** Most bytes one environment may hold. */
  maxBytes: number;
}

export interface SourceOptions extends SourceLimits {
  /** Directory that `skill_registry` sources are resolved in; without it they are refused. */
  skillRegistryDir?: string;
  /** Limit on each git command of a repository source. Default 60 s. */
  gitTimeoutMs?: number;
}

export async function materializeSources(sources: readonly Source[], dir: string, options: SourceOptions): Promise<void> {
  const budget: Budget = { files: 0, bytes: 0, maxFiles: options.maxFiles, maxBytes: options.maxBytes };
  for (const [index, source] of sources.entries()) {
    switch (source.type) {
      case "inline": {
        const content = Buffer.from(source.content ?? "", source.encoding === "base64" ? "base64" : "utf8");
        spend(budget, content.length);
        await writeInside(dir, source.target!, content, `sources[${index}].target`);
        break;
      }
      case "repository":
        // Clones go next to the scratch directory, in the data dir's tmp/ (swept at start-up).
        await materializeRepository(source, index, dir, { workDir: path.dirname(dir), gitTimeoutMs: options.gitTimeoutMs }, budget);
        break;
      case "skill_registry":
        await materializeSkill(source, index, dir, options.skillRegistryDir, budget);
        break;
      default:
        throw new HttpError(
          "UNIMPLEMENTED",
          `sources[${index}].type: "${source.type}" sources are not supported by this emulator yet; use inline, repository or skill_registry sources`,
        );
    }
  }
}

/** Writes `relative` under `root`, creating parents; fails if any parent is not a real directory. */
async function writeInside(root: string, relative: string, content: Buffer, field: string): Promise<void> {
  const segments = relative.replace(/\/+$/, "").split("/");
  let current = root;
  for (const segment of segments.slice(0, -1)) {
    current = path.join(current, segment);
    try {
      await fs.mkdir(current, { mode: 0o755 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const stat = await fs.lstat(current);
      if (!stat.isDirectory()) throw invalidArgument(`${field}: "${relative}" needs "${path.relative(root, current)}" to be a directory`);
    }
  }
  const file = path.join(current, segments[segments.length - 1]);
  try {
    await fs.writeFile(file, content, { flag: "wx", mode: 0o644 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw invalidArgument(`${field}: "${relative}" already exists in the environment`);
    if ((error as NodeJS.ErrnoException).code === "EISDIR") throw invalidArgument(`${field}: "${relative}" is a directory`);
    throw error;
  }
}
