/** Write and extract: directories made, trees copied and handed over, links of what arrived checked. */
import { closeSync, constants, fchownSync, lchownSync, promises as fs, readdirSync } from "node:fs";
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { entryIn, join, MAX_SYMLINK_HOPS, NAMES_PER_TURN, openDirectorySync, type Directory, type Owner } from "./_directory";
import { ConfineError } from "./_errors";
import { walk } from "./_walk";

/** Opens the directory at `segments`, creating missing ones (owned by `owner`); no symlink is followed. */
export async function ensureDirectories(tree: Directory, segments: readonly string[], owner?: Owner): Promise<Directory> {
  let current = tree;
  try {
    for (const segment of segments) {
      let next: Directory;
      try {
        next = await current.ensureChild(segment, owner);
      } catch (error) {
        if (error instanceof ConfineError && error.code === "GENV_NOT_A_DIRECTORY") {
          const stat = await current.lstat(segment);
          const kind = stat?.isSymbolicLink() ? "a symlink" : "a file";
          throw new ConfineError("GENV_NOT_A_DIRECTORY", join(current.relative, segment), `needs "${join(current.relative, segment)}" to be a directory, but it is ${kind}`);
        }
        throw error;
      }
      if (current !== tree) await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    if (current !== tree) await current.close();
    throw error;
  }
}

export interface CopyResult {
  fileCount: number;
  sizeBytes: number;
  /** Sockets, FIFOs and devices left out, tree-relative. */
  skipped: string[];
}

/**
 * Copies the contents of `from` into the empty directory `into` (a trusted path the caller owns):
 * directories, regular files (sharing blocks where the file system can reflink), and symlinks as
 * links (their text, never their target). Special files are left out and listed.
 */
export async function copyContents(from: Directory, into: string, options: { owner?: Owner } = {}): Promise<CopyResult> {
  const result: CopyResult = { fileCount: 0, sizeBytes: 0, skipped: [] };
  for await (const entry of walk(from)) {
    const destination = path.join(into, entry.relative);
    if (entry.kind === "directory") {
      await fs.mkdir(destination, { mode: entry.stat.mode & 0o7777 });
    } else if (entry.kind === "symlink") {
      const target = await fs.readlink(entry.parent.at(entry.name)).catch(() => undefined);
      if (target !== undefined) await fs.symlink(target, destination);
    } else if (entry.kind === "file") {
      const opened = await entry.parent.openFile(entry.name).catch((error) => {
        if (error instanceof ConfineError) return undefined; // changed since the walk saw it
        throw error;
      });
      if (!opened) continue;
      try {
        // Copying from the descriptor's own magic link: the file we opened and checked, nothing else.
        await fs.copyFile(`/proc/self/fd/${opened.handle.fd}`, destination, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
        result.fileCount += 1;
        result.sizeBytes += opened.stat.size;
      } finally {
        await opened.handle.close();
      }
    } else {
      result.skipped.push(entry.relative);
    }
  }
  if (options.owner) await chownTree(into, options.owner);
  return result;
}

/**
 * Gives every entry of a tree we hold the trusted path of (its root included) to `owner`; links are
 * not followed. Synchronous within a directory (`_directory.ts`): an lchown is microseconds of work,
 * and a thread-pool round trip per name cost a 1,000-file create a sixth of its time.
 */
export async function chownTree(trustedPath: string, owner: Owner): Promise<void> {
  const fd = openDirectorySync(trustedPath);
  try {
    fchownSync(fd, owner.uid, owner.gid);
    await chownContents(fd, owner, { visited: 0 });
  } finally {
    closeSync(fd);
  }
}

async function chownContents(fd: number, owner: Owner, progress: { visited: number }): Promise<void> {
  for (const dirent of readdirSync(entryIn(fd, "."), { withFileTypes: true })) {
    const entry = entryIn(fd, dirent.name);
    lchownSync(entry, owner.uid, owner.gid);
    if (++progress.visited % NAMES_PER_TURN === 0) await nextTurn();
    if (!dirent.isDirectory()) continue;
    let child: number;
    try {
      child = openDirectorySync(entry);
    } catch {
      continue; // no longer a directory
    }
    try {
      await nextTurn();
      await chownContents(child, owner, progress);
    } finally {
      closeSync(child);
    }
  }
}

/**
 * Whether the symlink at `root/relative` (in a directory only the emulator writes: a checkout, an
 * unpacked archive) resolves inside `root`, following further symlinks as the
 * kernel would (a lexical check is not enough: with `d -> .`, `l -> d/../x` leaves the tree).
 * Absolute targets count as outside. Missing components are resolved lexically.
 */
export async function symlinkStaysInside(root: string, relative: string): Promise<boolean> {
  const resolved = relative.split("/").slice(0, -1);
  let queue = (await fs.readlink(path.join(root, relative))).split("/");
  if (queue[0] === "") return false; // absolute
  let hops = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (resolved.length === 0) return false;
      resolved.pop();
      continue;
    }
    const candidate = path.join(root, ...resolved, part);
    let stat;
    try {
      stat = await fs.lstat(candidate);
    } catch {
      resolved.push(part);
      continue;
    }
    if (!stat.isSymbolicLink()) {
      resolved.push(part);
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) return false;
    const target = await fs.readlink(candidate);
    if (target.startsWith("/")) return false;
    queue = [...target.split("/"), ...queue];
  }
  return true;
}
