/**
 * Materialising an environment's sources into a scratch directory, in order, one module per type:
 * inline (here), repository (repository.ts), gcs (gcs.ts), skill_registry (skill-registry.ts). Targets
 * were validated by the wire schema (relative, normalised, no duplicates); writes still refuse to
 * pass through anything that is not a plain directory, so nothing lands outside the tree.
 *
 * The scratch directory is private to this request, and a tree of many small files is written with
 * synchronous calls: thousands of thread-pool round trips cost several times the work itself.
 */
import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Source } from "../../client/schemas";
import { HttpError, invalidArgument } from "../errors";
import type { TreeStats } from "../trees";
import { spend, type Budget } from "./_copy";
import { materializeGcs } from "./gcs";
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
  /**
   * Cloud Storage JSON API that gcs sources read, unauthenticated, e.g. `http://127.0.0.1:4443`
   * (normalised by `normaliseGcsEndpoint`). Default: storage.googleapis.com with Google's
   * application default credentials.
   */
  gcsEndpoint?: string;
  /** Limit on one gcs source, listing and downloads together. Default 60 s. */
  gcsTimeoutMs?: number;
}

/** Writes the sources under `dir` and returns what it wrote (regular files). */
export async function materializeSources(sources: readonly Source[], dir: string, options: SourceOptions): Promise<TreeStats> {
  const budget: Budget = { files: 0, bytes: 0, maxFiles: options.maxFiles, maxBytes: options.maxBytes };
  const directories = new Set<string>([""]);
  for (const [index, source] of sources.entries()) {
    switch (source.type) {
      case "inline": {
        const content = Buffer.from(source.content ?? "", source.encoding === "base64" ? "base64" : "utf8");
        spend(budget, content.length);
        writeInside(dir, source.target!, content, `sources[${index}].target`, directories);
        break;
      }
      case "repository":
        // Clones go next to the scratch directory, in the data dir's tmp/ (swept at start-up).
        await materializeRepository(source, index, dir, { workDir: path.dirname(dir), gitTimeoutMs: options.gitTimeoutMs }, budget);
        break;
      case "gcs":
        await materializeGcs(source, index, dir, { endpoint: options.gcsEndpoint, timeoutMs: options.gcsTimeoutMs }, budget);
        break;
      case "skill_registry":
        await materializeSkill(source, index, dir, options.skillRegistryDir, budget);
        break;
      default:
        throw new HttpError(
          "UNIMPLEMENTED",
          `sources[${index}].type: "${source.type}" sources are not supported by this emulator`,
        );
    }
  }
  return { fileCount: budget.files, sizeBytes: budget.bytes };
}

/** Writes `relative` under `root`, creating parents; fails if any parent is not a real directory. */
function writeInside(root: string, relative: string, content: Buffer, field: string, directories: Set<string>): void {
  const segments = relative.replace(/\/+$/, "").split("/");
  for (let depth = 1; depth < segments.length; depth++) {
    const parent = segments.slice(0, depth).join("/");
    if (directories.has(parent)) continue;
    const absolute = path.join(root, parent);
    try {
      mkdirSync(absolute, { mode: 0o755 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (!lstatSync(absolute).isDirectory()) throw invalidArgument(`${field}: "${relative}" needs "${parent}" to be a directory`);
    }
    directories.add(parent);
  }
  try {
    writeFileSync(path.join(root, relative), content, { flag: "wx", mode: 0o644 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw invalidArgument(`${field}: "${relative}" already exists in the environment`);
    if (code === "EISDIR") throw invalidArgument(`${field}: "${relative}" is a directory`);
    throw error;
  }
}
