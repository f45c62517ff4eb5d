/**
 * Creating directories in a tree that is being built (a scratch directory only the emulator writes,
 * before any agent sees it): parents must be real directories, so that nothing written below lands
 * outside the tree. A tree an agent can write goes through `confine/` instead.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { invalidArgument } from "../errors";

/**
 * Creates `segments` under `root` one by one; each must end up a real directory (not a symlink nor
 * a file), so that nothing written below can land outside `root`.
 */
export async function ensureDirectories(root: string, segments: readonly string[], field: string): Promise<string> {
  let current = root;
  for (const [index, segment] of segments.entries()) {
    current = path.join(current, segment);
    try {
      await fs.mkdir(current, { mode: 0o755 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const stat = await fs.lstat(current);
      if (!stat.isDirectory()) {
        const where = segments.slice(0, index + 1).join("/");
        throw invalidArgument(`${field}: needs "${where}" to be a directory, but it is ${stat.isSymbolicLink() ? "a symlink" : "a file"}`);
      }
    }
  }
  return current;
}
