/**
 * The host-side operations on an environment tree that the tool route needs: one walk, one unlink
 * and one truncate. The tree is written by untrusted agent code, so none of them follows a symlink:
 * the walk descends only into real directories (`d_type`/lstat, never a link to one), and the unlink
 * and the truncate act only when every parent of the path is a real directory and the file itself is
 * the regular file (same inode) that the walk saw. They run when nothing in the sandbox is alive
 * (calls on a tree are serialised and a call's processes are killed with its cgroup), so the checks
 * and the acts do not race the agent.
 *
 * This file is the one place to swap for a race-free confinement module (O_NOFOLLOW walks from
 * directory descriptors, `/proc/self/fd/N/name`): the signatures say what the callers rely on.
 */
import { createHash } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import path from "node:path";

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
   * A hash of every file and directory (path, inode, size, mtime, ctime in ns): a write, a same-size
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
  const walk = async (dir: string, relative: string): Promise<void> => {
    const dirents = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of dirents) {
      if (!dirent.isDirectory() && !dirent.isFile()) continue;
      const child = path.join(dir, dirent.name);
      const stat = await fs.lstat(child, { bigint: true }).catch(() => undefined);
      if (!stat) continue;
      const childRelative = relative === "" ? dirent.name : `${relative}/${dirent.name}`;
      hash.update(`${childRelative}\0${stat.ino}\0${stat.size}\0${stat.mtimeNs}\0${stat.ctimeNs}\n`);
      if (stat.isDirectory()) await walk(child, childRelative);
      else if (stat.isFile()) {
        files.set(childRelative, { ino: stat.ino, size: Number(stat.size) });
        sizeBytes += Number(stat.size);
      }
    }
  };
  await walk(root, "");
  return { files, fileCount: files.size, sizeBytes, fingerprint: hash.digest("hex") };
}

/** Unlinks `relative` when it is still the regular file `ino`; false when it is not (or is gone). */
export async function removeFile(root: string, relative: string, ino: bigint): Promise<boolean> {
  const target = await confined(root, relative);
  if (!target) return false;
  const stat = await fs.lstat(target, { bigint: true }).catch(() => undefined);
  if (!stat?.isFile() || stat.ino !== ino) return false;
  return fs.unlink(target).then(() => true, () => false);
}

/**
 * Cuts `relative` down to `size` bytes when it is still the regular file `ino`: opened without
 * following a symlink and without blocking (a FIFO put there meanwhile), checked on the handle, then
 * truncated through it. False when it is another file, or cannot be opened.
 */
export async function truncateFile(root: string, relative: string, ino: bigint, size: number): Promise<boolean> {
  const target = await confined(root, relative);
  if (!target) return false;
  const handle = await fs.open(target, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return false;
  try {
    const stat = await handle.stat({ bigint: true });
    if (!stat.isFile() || stat.ino !== ino) return false;
    if (stat.size > BigInt(size)) await handle.truncate(size);
    return true;
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}

/** The host path of `relative` when every directory above it (under `root`) is a real directory. */
async function confined(root: string, relative: string): Promise<string | undefined> {
  const segments = relative.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return undefined;
  let dir = root;
  for (const segment of segments.slice(0, -1)) {
    dir = path.join(dir, segment);
    const stat = await fs.lstat(dir).catch(() => undefined);
    if (!stat?.isDirectory()) return undefined;
  }
  return path.join(dir, segments[segments.length - 1]);
}
