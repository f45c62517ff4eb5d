/**
 * Materialising an environment's sources into a scratch directory. Targets were validated by the
 * wire schema (relative, normalised, no duplicates); writes still refuse to pass through anything
 * that is not a plain directory, so nothing lands outside the tree.
 *
 * The scratch directory is private to this request, and a tree of many small files is written with
 * synchronous calls: thousands of thread-pool round trips cost several times the work itself.
 */
import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Source } from "../sdk/schemas";
import { HttpError, invalidArgument } from "./errors";
import type { TreeStats } from "./trees";

export interface SourceLimits {
  /** Most files one environment may hold. */
  maxFiles: number;
  /** Most bytes one environment may hold. */
  maxBytes: number;
}

/** Writes the sources under `dir` and returns what it wrote. */
export async function materializeSources(sources: readonly Source[], dir: string, limits: SourceLimits): Promise<TreeStats> {
  const stats: TreeStats = { fileCount: 0, sizeBytes: 0 };
  const directories = new Set<string>([""]);
  for (const [index, source] of sources.entries()) {
    if (source.type !== "inline") {
      throw new HttpError(
        "UNIMPLEMENTED",
        `sources[${index}].type: "${source.type}" sources are not supported by this emulator yet; use inline sources`,
      );
    }
    const content = Buffer.from(source.content ?? "", source.encoding === "base64" ? "base64" : "utf8");
    stats.fileCount += 1;
    stats.sizeBytes += content.length;
    if (stats.fileCount > limits.maxFiles) throw invalidArgument(`sources: more than ${limits.maxFiles} files; split the environment or raise --max-files`);
    if (stats.sizeBytes > limits.maxBytes) throw invalidArgument(`sources: more than ${limits.maxBytes} bytes in total; raise --max-bytes or use fewer files`);
    writeInside(dir, source.target!, content, `sources[${index}].target`, directories);
  }
  return stats;
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
