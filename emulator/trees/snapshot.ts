/**
 * The host-side operations on an environment tree that the tool route needs: one walk, one unlink
 * and one truncate, all through `confine/` (names resolved in held directories, no symlink followed
 * by the kernel). The unlink and the truncate act only on the regular file (same inode) that the walk
 * saw, reached through real directories.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { inParent, walk, withTree, type Directory } from "../../confine";

/** A regular file as the walk saw it. */
export interface FileEntry {
  ino: bigint;
  size: number;
}

/** A walk of a tree: the regular files by path, their count and bytes, and a change fingerprint. */
export interface TreeWalk {
  /** `workspace/a.txt` → inode and size. Symlinks and other non-regular files are not listed. */
  files: Map<string, FileEntry>;
  fileCount: number;
  sizeBytes: number;
  /**
   * A hash of every file and directory (path, inode, size, mtime, ctime): a write, a same-size
   * rewrite, a rename or a deletion changes it. The root's own times are left out: they move on every
   * call (the sandbox's mount points come and go).
   */
  fingerprint: string;
}

/** Walks the tree at `root`, regular files and real directories only, in sorted order. */
export async function walkTree(root: string): Promise<TreeWalk> {
  const hash = createHash("sha256");
  const files = new Map<string, FileEntry>();
  let sizeBytes = 0;
  await withTree(root, async (tree) => {
    for await (const { relative, kind, stat } of walk(tree)) {
      if (kind !== "directory" && kind !== "file") continue;
      hash.update(`/${relative}\0${stat.ino}\0${stat.size}\0${stat.mtimeMs}\0${stat.ctimeMs}\n`);
      if (kind === "file") {
        files.set(relative, { ino: BigInt(stat.ino), size: stat.size });
        sizeBytes += stat.size;
      }
    }
  });
  return { files, fileCount: files.size, sizeBytes, fingerprint: hash.digest("hex") };
}

/** Unlinks `relative` when it is still the regular file `ino`; false when it is not (or is gone). */
export async function removeFile(root: string, relative: string, ino: bigint): Promise<boolean> {
  return inRealParent(root, relative, async (parent, name) => {
    const stat = await parent.lstat(name);
    if (!stat?.isFile() || BigInt(stat.ino) !== ino) return false;
    return fs.unlink(parent.at(name)).then(() => true, () => false);
  });
}

/**
 * Cuts `relative` down to `size` bytes when it is still the regular file `ino`: opened without
 * following a symlink and without blocking (a FIFO put there meanwhile), checked on the handle, then
 * truncated through it. False when it is another file, or cannot be opened.
 */
export async function truncateFile(root: string, relative: string, ino: bigint, size: number): Promise<boolean> {
  return inRealParent(root, relative, async (parent, name) => {
    const opened = await parent.openFile(name, { write: true }).catch(() => undefined);
    if (!opened) return false;
    try {
      if (BigInt(opened.stat.ino) !== ino) return false;
      if (opened.stat.size > size) await opened.handle.truncate(size);
      return true;
    } catch {
      return false;
    } finally {
      await opened.handle.close();
    }
  });
}

/** Runs `fn` in the real directory that holds `relative`; false when there is none. */
async function inRealParent(root: string, relative: string, fn: (parent: Directory, name: string) => Promise<boolean>): Promise<boolean> {
  if (relative.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) return false;
  return withTree(root, async (tree) => (await inParent(tree, relative, fn)) ?? false);
}
