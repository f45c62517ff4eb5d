/**
 * Keeping writes inside a directory: creating parents that must be real directories, and deciding
 * whether a symlink (from an archive or a repository) stays inside the tree it arrived with.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { invalidArgument } from "./errors";

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

const MAX_HOPS = 40;

/**
 * Whether the symlink at `root/relative` resolves inside `root`, following further symlinks as the
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
    if (++hops > MAX_HOPS) return false;
    const target = await fs.readlink(candidate);
    if (target.startsWith("/")) return false;
    queue = [...target.split("/"), ...queue];
  }
  return true;
}

export interface WalkEntry {
  relative: string;
  kind: "dir" | "file" | "link";
  sizeBytes: number;
}

/** Directories before their contents, names in order; entries named in `skip` are left out (with their contents). */
export async function walk(root: string, relative = "", skip: ReadonlySet<string> = new Set()): Promise<WalkEntry[]> {
  const out: WalkEntry[] = [];
  const dirents = await fs.readdir(path.join(root, relative), { withFileTypes: true });
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dirent of dirents) {
    if (skip.has(dirent.name)) continue;
    const child = relative ? `${relative}/${dirent.name}` : dirent.name;
    if (dirent.isDirectory()) {
      out.push({ relative: child, kind: "dir", sizeBytes: 0 });
      out.push(...(await walk(root, child, skip)));
    } else if (dirent.isSymbolicLink()) {
      out.push({ relative: child, kind: "link", sizeBytes: 0 });
    } else if (dirent.isFile()) {
      out.push({ relative: child, kind: "file", sizeBytes: (await fs.lstat(path.join(root, child))).size });
    }
  }
  return out;
}
