/**
 * Remove: names unlinked in the directory that holds them, so a swapped-in symlink loses the link,
 * never its target.
 *
 * Synchronous within a directory for what is microseconds of work, an lstat or an unlink, where a
 * thread-pool round trip per name was most of a small tree's delete (about 1.5 ms of a 3-file
 * environment's 2). Not an rmdir: where freeing a block is slow (ext4 mounted with `discard`, as
 * cloud VMs' disks often are) it takes milliseconds, 2.5 ms a directory on the development machine,
 * and synchronous it held every other request up for that long. The walk yields to the event loop
 * at each directory and every few hundred names, so a large tree does not hold up other requests.
 */
import { closeSync, lstatSync, promises as fs, readdirSync, unlinkSync, type Stats } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import { entryIn, MAX_RETRIES, NAMES_PER_TURN, openDirectorySync } from "./_directory";
import { errno } from "./_errors";

/** Deletes a whole tree we hold the trusted path of (e.g. a tree already moved to the trash). */
export async function removeTree(trustedPath: string): Promise<void> {
  let fd: number;
  try {
    fd = openDirectorySync(trustedPath);
  } catch (error) {
    if (errno(error) === "ENOENT") return;
    if (errno(error) === "ENOTDIR" || errno(error) === "ELOOP") return unlinkSync(trustedPath);
    throw error;
  }
  try {
    await removeContents(fd, { removed: 0 });
  } finally {
    closeSync(fd);
  }
  await fs.rmdir(trustedPath);
}

/**
 * Deletes everything in the directory open at `fd` (not the directory itself). Agent processes still
 * writing may add entries meanwhile: it is emptied a few times before giving up (returns false then).
 */
async function removeContents(fd: number, progress: { removed: number }): Promise<boolean> {
  for (let round = 0; round < MAX_RETRIES; round++) {
    const names = namesIn(fd);
    if (names.length === 0) return true;
    for (const name of names) {
      await removeEntry(fd, name, progress);
      if (++progress.removed % NAMES_PER_TURN === 0) await nextTurn();
    }
  }
  return namesIn(fd).length === 0;
}

/** Removes `name` from the directory open at `fd`, whatever it is; a directory with its contents. */
async function removeEntry(fd: number, name: string, progress: { removed: number }): Promise<void> {
  const entry = entryIn(fd, name);
  for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
    const stat = lstatOrUndefined(entry);
    if (!stat) return;
    try {
      if (!stat.isDirectory()) {
        unlinkSync(entry);
        return;
      }
      const child = openDirectoryOrUndefined(entry);
      if (child !== undefined) {
        try {
          await nextTurn();
          await removeContents(child, progress);
        } finally {
          closeSync(child);
        }
      }
      await fs.rmdir(entry);
      return;
    } catch (error) {
      const code = errno(error);
      if (code === "ENOENT") return;
      if (code !== "EISDIR" && code !== "ENOTEMPTY" && code !== "ENOTDIR" && code !== "EPERM") throw error;
    }
  }
}

function namesIn(fd: number): string[] {
  try {
    return readdirSync(entryIn(fd, "."));
  } catch {
    return [];
  }
}

function lstatOrUndefined(entry: string): Stats | undefined {
  try {
    return lstatSync(entry);
  } catch (error) {
    if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") return undefined;
    throw error;
  }
}

/** The directory `entry` opened; undefined when it is not one any more. */
function openDirectoryOrUndefined(entry: string): number | undefined {
  try {
    return openDirectorySync(entry);
  } catch {
    return undefined;
  }
}
