/**
 * An environment's byte and file limits (`maxBytes`, `maxFiles`) held against tool calls, whose code
 * writes the tree directly. Before a call the tree's remaining bytes bound each file the call writes
 * (RLIMIT_FSIZE, so one file cannot overshoot); after it the tree is walked, and a call that left it
 * over a limit has its growth undone: the regular files it created are removed and the files it grew
 * are cut back to their size before the call. Directories and symlinks are not counted, and stay.
 *
 * The "before" of a call is the walk after the previous one, kept in a `SnapshotCache` so that a call
 * walks its tree once; any other change to the tree (an upload) moves the environment's `updated_ms`,
 * which invalidates it.
 */
import { formatBytes, formatCount } from "../../client/units";
import { removeFile, truncateFile, type FileEntry, type TreeWalk } from "./snapshot";

export interface TreeLimits {
  /** Regular files in the tree. Example: `100_000`. */
  maxFiles: number;
  /** Bytes of the regular files in the tree. Example: `1024 ** 3`. */
  maxBytes: number;
}

/** What an undo did: paths removed, paths cut back, and those it could not touch (changed meanwhile). */
export interface Undo {
  removed: number;
  truncated: number;
  failed: number;
}

const MIN_FILE_CAP = 64 * 1024; // 64 KiB: bwrap writes the sandbox's /etc files under the same rlimit
const FSIZE_UNIT = 512; // dash's `ulimit -f` counts 512-byte blocks; a whole number keeps the fast path

/**
 * RLIMIT_FSIZE for a call: the tree's remaining bytes, rounded up to 512 bytes, at least 64 KiB and at
 * most `maxFileBytes`. The floor and the rounding may let a file overshoot by that much; the walk
 * after the call catches it.
 */
export function fileSizeCap(before: TreeWalk, limits: TreeLimits, maxFileBytes: number): number {
  const remaining = Math.max(0, limits.maxBytes - before.sizeBytes);
  return Math.min(maxFileBytes, Math.max(MIN_FILE_CAP, Math.ceil(remaining / FSIZE_UNIT) * FSIZE_UNIT));
}

/** Whether the call grew the tree past a limit (a tree already over one may still shrink). */
export function exceeds(before: TreeWalk, after: TreeWalk, limits: TreeLimits): boolean {
  return (
    (after.sizeBytes > limits.maxBytes && after.sizeBytes > before.sizeBytes) ||
    (after.fileCount > limits.maxFiles && after.fileCount > before.fileCount)
  );
}

/**
 * What to undo, from the walks before and after (pure). A file is the call's own unless its inode was
 * in the tree before: at its old path, or moved to a new one (a rename; the first path to claim an
 * inode keeps it, so a hard link the call added is removed). A kept file larger than before is cut
 * back. An inode number the call freed and the file system reused counts as the old file: cut back to
 * the old size, which still holds the limits.
 */
export function undoPlan(before: ReadonlyMap<string, FileEntry>, after: ReadonlyMap<string, FileEntry>) {
  const remove: { path: string; ino: bigint }[] = [];
  const truncate: { path: string; ino: bigint; size: number }[] = [];
  const claimed = new Set<bigint>();
  const moved: [string, FileEntry][] = [];
  for (const [path, entry] of after) {
    const old = before.get(path);
    if (old?.ino !== entry.ino) {
      moved.push([path, entry]);
      continue;
    }
    claimed.add(entry.ino);
    if (entry.size > old.size) truncate.push({ path, ino: entry.ino, size: old.size });
  }
  const oldByIno = new Map<bigint, FileEntry>();
  if (moved.length > 0) for (const entry of before.values()) oldByIno.set(entry.ino, entry);
  for (const [path, entry] of moved) {
    const old = oldByIno.get(entry.ino);
    if (!old || claimed.has(entry.ino)) {
      remove.push({ path, ino: entry.ino });
      continue;
    }
    claimed.add(entry.ino);
    if (entry.size > old.size) truncate.push({ path, ino: entry.ino, size: old.size });
  }
  return { remove, truncate };
}

/** Undoes the call's growth of the tree at `root` (see `undoPlan`). */
export async function undoGrowth(root: string, before: TreeWalk, after: TreeWalk): Promise<Undo> {
  const plan = undoPlan(before.files, after.files);
  const undo: Undo = { removed: 0, truncated: 0, failed: 0 };
  for (const { path, ino } of plan.remove) {
    if (await removeFile(root, path, ino)) undo.removed += 1;
    else undo.failed += 1;
  }
  for (const { path, ino, size } of plan.truncate) {
    if (await truncateFile(root, path, ino, size)) undo.truncated += 1;
    else undo.failed += 1;
  }
  return undo;
}

/**
 * The tool result's error for a call that went over:
 * `environment limit exceeded: the call would leave 15 MiB in 4 files (limit 8 MiB and 50 files); the
 * 3 files it created were removed and the 1 file it grew was cut back to its size before the call`.
 */
export function limitMessage(attempted: TreeWalk, limits: TreeLimits, undo: Undo): string {
  const done = [
    undo.removed > 0 && `the ${formatCount(undo.removed, "file")} it created ${undo.removed === 1 ? "was" : "were"} removed`,
    undo.truncated > 0 &&
      `the ${formatCount(undo.truncated, "file")} it grew ${undo.truncated === 1 ? "was" : "were"} cut back to ${undo.truncated === 1 ? "its size" : "their sizes"} before the call`,
    undo.failed > 0 && `${formatCount(undo.failed, "file")} changed meanwhile and ${undo.failed === 1 ? "was" : "were"} left as ${undo.failed === 1 ? "it is" : "they are"}`,
  ].filter((part): part is string => typeof part === "string");
  return (
    `environment limit exceeded: the call would leave ${formatBytes(attempted.sizeBytes)} in ${formatCount(attempted.fileCount, "file")} ` +
    `(limit ${formatBytes(limits.maxBytes)} and ${formatCount(limits.maxFiles, "file")})` +
    (done.length > 0 ? `; ${done.join(" and ")}` : "")
  );
}

/**
 * The walk after each environment's last call, least recently used first out, bounded by the files
 * held in all (each environment counts one more, so empty trees are bounded too). An entry is valid
 * only for the `updated_ms` it was taken at: any other change to the tree moves that.
 */
export class SnapshotCache {
  private readonly entries = new Map<string, { walk: TreeWalk; stamp: number }>();
  private held = 0;

  /** @param maxEntries files held across environments, e.g. 200,000 (≈ 150 bytes each). */
  constructor(private readonly maxEntries: number) {}

  /** The walk of `id` taken at `stamp`, or undefined (then walk the tree). */
  get(id: string, stamp: number): TreeWalk | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.delete(id);
    if (entry.stamp !== stamp) return undefined;
    this.set(id, stamp, entry.walk); // most recently used
    return entry.walk;
  }

  set(id: string, stamp: number, walk: TreeWalk): void {
    this.delete(id);
    const size = walk.files.size + 1;
    if (size > this.maxEntries) return;
    this.entries.set(id, { walk, stamp });
    this.held += size;
    for (const [oldest] of this.entries) {
      if (this.held <= this.maxEntries) break;
      this.delete(oldest);
    }
  }

  delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.held -= entry.walk.files.size + 1;
  }

  /** Files held across environments (for tests). */
  get size(): number {
    return this.held;
  }
}
