/**
 * Materialising an environment's sources into a scratch directory. Targets were validated by the
 * wire schema (relative, normalised, no duplicates); writes still refuse to pass through anything
 * that is not a plain directory, so nothing lands outside the tree.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Source } from "../sdk/schemas";
import { HttpError, invalidArgument } from "./errors";

export interface SourceLimits {
  /** Most files one environment may hold. */
  maxFiles: number;
  /** Most bytes one environment may hold. */
  maxBytes: number;
}

export type SourceOptions = SourceLimits;

export async function materializeSources(sources: readonly Source[], dir: string, limits: SourceLimits): Promise<void> {
  let files = 0;
  let bytes = 0;
  for (const [index, source] of sources.entries()) {
    if (source.type !== "inline") {
      throw new HttpError(
        "UNIMPLEMENTED",
        `sources[${index}].type: "${source.type}" sources are not supported by this emulator yet; use inline sources`,
      );
    }
    const content = Buffer.from(source.content ?? "", source.encoding === "base64" ? "base64" : "utf8");
    files += 1;
    bytes += content.length;
    if (files > limits.maxFiles) throw invalidArgument(`sources: more than ${limits.maxFiles} files; split the environment or raise --max-files`);
    if (bytes > limits.maxBytes) throw invalidArgument(`sources: more than ${limits.maxBytes} bytes in total; raise --max-bytes or use fewer files`);
    await writeInside(dir, source.target!, content, `sources[${index}].target`);
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
