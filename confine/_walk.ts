/** Walk: every entry under a directory held open, symlinks reported and never followed. */
import type { Dirent, Stats } from "node:fs";
import type { Directory } from "./_directory";

export type EntryKind = "directory" | "file" | "symlink" | "special";

export interface WalkEntry {
  /** Tree-relative path, `/`-separated. */
  relative: string;
  kind: EntryKind;
  /** lstat of the entry (never of a symlink's target). */
  stat: Stats;
  /** The directory that holds it, open while the walk is at this entry: act on `name` in it. */
  parent: Directory;
  name: string;
}

export interface WalkOptions {
  /** Names left out wherever they appear, with their contents (e.g. `.git`). */
  skip?: ReadonlySet<string>;
  /** Tree-relative path of `directory`, prefixed to every entry. */
  prefix?: string;
}

/**
 * Every entry under `directory`, depth first in name order (which is path order), directories before
 * their contents; symlinks are reported, never followed. An entry that vanishes or changes kind while
 * it is walked is passed over.
 */
export async function* walk(directory: Directory, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const prefix = options.prefix ?? "";
  for (const dirent of await directory.entries().catch(() => [] as Dirent[])) {
    if (options.skip?.has(dirent.name)) continue;
    const stat = await directory.lstat(dirent.name);
    if (!stat) continue;
    const relative = prefix ? `${prefix}/${dirent.name}` : dirent.name;
    const kind = kindOf(stat);
    yield { relative, kind, stat, parent: directory, name: dirent.name };
    if (kind !== "directory") continue;
    let child: Directory;
    try {
      child = await directory.child(dirent.name);
    } catch {
      continue; // swapped for something else since the lstat
    }
    try {
      yield* walk(child, { ...options, prefix: relative });
    } finally {
      await child.close();
    }
  }
}

export function kindOf(stat: Stats): EntryKind {
  if (stat.isDirectory()) return "directory";
  if (stat.isFile()) return "file";
  if (stat.isSymbolicLink()) return "symlink";
  return "special";
}

/** Regular files and their bytes under `directory` (what an environment's `file_count`/`size_bytes` count). */
export async function countFiles(directory: Directory): Promise<{ fileCount: number; sizeBytes: number }> {
  let fileCount = 0;
  let sizeBytes = 0;
  for await (const entry of walk(directory)) {
    if (entry.kind !== "file") continue;
    fileCount += 1;
    sizeBytes += entry.stat.size;
  }
  return { fileCount, sizeBytes };
}
