/** Remove: names unlinked in the directory that holds them, so a swapped-in symlink loses the link, never its target. */
import { promises as fs, type Dirent } from "node:fs";
import { Directory, MAX_RETRIES } from "./_directory";
import { errno } from "./_errors";

/**
 * Deletes everything under `directory` (not the directory itself). Names are unlinked in the
 * directory that holds them, so a directory swapped for a symlink loses the link, never its target.
 * Agent processes still writing may add entries meanwhile: each directory is emptied a few times
 * before giving up (returns false then).
 */
export async function removeContents(directory: Directory): Promise<boolean> {
  for (let round = 0; round < MAX_RETRIES; round++) {
    const dirents = await directory.entries().catch(() => [] as Dirent[]);
    if (dirents.length === 0) return true;
    for (const dirent of dirents) await removeEntry(directory, dirent.name);
  }
  return (await directory.entries().catch(() => [] as Dirent[])).length === 0;
}

/** Removes `name` from `directory`, whatever it is; a directory with its contents. */
export async function removeEntry(directory: Directory, name: string): Promise<void> {
  for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
    const stat = await directory.lstat(name);
    if (!stat) return;
    try {
      if (!stat.isDirectory()) {
        await fs.unlink(directory.at(name));
        return;
      }
      const child = await directory.child(name).catch(() => undefined);
      if (child) {
        try {
          await removeContents(child);
        } finally {
          await child.close();
        }
      }
      await fs.rmdir(directory.at(name));
      return;
    } catch (error) {
      const code = errno(error);
      if (code === "ENOENT") return;
      if (code !== "EISDIR" && code !== "ENOTEMPTY" && code !== "ENOTDIR" && code !== "EPERM") throw error;
    }
  }
}

/** Removes a whole tree we hold the trusted path of (e.g. a tree already moved to the trash). */
export async function removeTree(trustedPath: string): Promise<void> {
  let directory: Directory;
  try {
    directory = await Directory.open(trustedPath);
  } catch (error) {
    if (errno(error) === "ENOENT") return;
    if (errno(error) === "ENOTDIR" || errno(error) === "ELOOP") return fs.unlink(trustedPath);
    throw error;
  }
  try {
    await removeContents(directory);
  } finally {
    await directory.close();
  }
  await fs.rmdir(trustedPath);
}
