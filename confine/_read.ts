/** Open and read: a path resolved as the sandbox sees it, to a directory held open or a checked regular file. */
import { promises as fs, type Stats } from "node:fs";
import { join, MAX_RETRIES, MAX_SYMLINK_HOPS, withTree, type Directory } from "./_directory";
import { ConfineError, SpecialFileError, specialKind } from "./_errors";

/** What a path resolved to: a directory (held open) or a regular file (open for reading). */
export type Resolved =
  | { kind: "directory"; directory: Directory; stat: Stats }
  | { kind: "file"; handle: fs.FileHandle; stat: Stats; parent: Directory; name: string };

export interface ResolveOptions {
  /** Follow symlinks as the sandbox would (default). Without it, any symlink on the way is `SYMLINK`. */
  followSymlinks?: boolean;
}

/**
 * Resolves `segments` (already split and decoded; `.`/`..` allowed only inside symlink targets)
 * beneath `tree`. The caller closes what it gets: `release(resolved)`.
 */
export async function resolve(tree: Directory, segments: readonly string[], options: ResolveOptions = {}): Promise<Resolved> {
  const follow = options.followSymlinks ?? true;
  const requested = segments.join("/");
  const stack: Directory[] = [tree];
  const pending = segments.filter((segment) => segment !== "" && segment !== ".");
  let hops = 0;
  let retries = 0;
  const top = () => stack[stack.length - 1];
  const popTo = async (depth: number) => {
    while (stack.length > depth) await stack.pop()!.close();
  };
  try {
    while (pending.length > 0) {
      const name = pending.shift()!;
      if (name === "" || name === ".") continue;
      if (name === "..") {
        // Only a symlink's text can hold `..` (request segments are refused before): one that climbs
        // above the root is refused rather than clamped, as the host's own resolution would leave.
        if (stack.length === 1) throw new ConfineError("GENV_ESCAPES", requested, `"${requested}" leads out of the environment tree through a symlink; not followed`);
        await stack.pop()!.close();
        continue;
      }
      const last = pending.length === 0;
      const dir = top();
      const stat = await dir.lstat(name);
      if (!stat) throw new ConfineError("GENV_NOT_FOUND", requested, `"${requested}" not found`);
      if (stat.isSymbolicLink()) {
        if (!follow) throw new ConfineError("GENV_SYMLINK", requested, `"${join(dir.relative, name)}" is a symlink`);
        if (++hops > MAX_SYMLINK_HOPS) throw new ConfineError("GENV_TOO_MANY_LINKS", requested, `"${requested}": too many levels of symbolic links`);
        const target = await fs.readlink(dir.at(name)).catch(() => undefined);
        if (target === undefined) {
          pending.unshift(name); // changed between lstat and readlink: look again
          if (++retries > MAX_RETRIES) throw new ConfineError("GENV_UNSTABLE", requested, `"${requested}" keeps changing`);
          continue;
        }
        if (target.startsWith("/")) await popTo(1);
        pending.unshift(...target.split("/"));
        continue;
      }
      try {
        if (stat.isDirectory()) {
          stack.push(await dir.child(name));
          continue;
        }
        if (!last) throw new ConfineError("GENV_NOT_FOUND", requested, `"${requested}" not found: "${join(dir.relative, name)}" is not a directory`);
        if (!stat.isFile()) throw new SpecialFileError(requested, specialKind(stat));
        const { handle, stat: opened } = await dir.openFile(name);
        stack.pop(); // `dir` now belongs to the result
        return { kind: "file", handle, stat: opened, parent: dir, name };
      } catch (error) {
        // Swapped between the lstat and the open (a symlink, a directory, a file): look again.
        const swapped = error instanceof ConfineError && (error.code === "GENV_SYMLINK" || error.code === "GENV_NOT_A_DIRECTORY" || error.code === "GENV_IS_A_DIRECTORY");
        if (!swapped || ++retries > MAX_RETRIES) throw error;
        pending.unshift(name);
      }
    }
    const directory = stack.pop()!;
    const stat = await directory.stat();
    return { kind: "directory", directory, stat };
  } finally {
    for (const dir of stack.slice(1)) await dir.close();
  }
}

/** Closes what `resolve` opened (never the tree itself). */
export async function release(resolved: Resolved, tree: Directory): Promise<void> {
  if (resolved.kind === "file") {
    await resolved.handle.close().catch(() => undefined);
    if (resolved.parent !== tree) await resolved.parent.close();
  } else if (resolved.directory !== tree) {
    await resolved.directory.close();
  }
}

/**
 * Runs `fn` in the directory that holds `relative` under `directory`, reached through real
 * directories only (no symlink on the way), with the last name; undefined when there is no such
 * directory (a component is absent, a file or a symlink).
 */
export async function inParent<T>(directory: Directory, relative: string, fn: (parent: Directory, name: string) => Promise<T>): Promise<T | undefined> {
  const segments = relative.split("/");
  const name = segments.pop()!;
  let parent = directory;
  try {
    for (const segment of segments) {
      const next = await parent.child(segment).catch((error: unknown) => {
        if (error instanceof ConfineError) return undefined;
        throw error;
      });
      if (!next) return undefined;
      if (parent !== directory) await parent.close();
      parent = next;
    }
    return await fn(parent, name);
  } finally {
    if (parent !== directory) await parent.close();
  }
}

/** The regular file at `segments` (symlinks followed as in the sandbox), read whole up to `maxBytes`. */
export async function readFile(root: string, segments: readonly string[], maxBytes: number): Promise<Buffer | undefined> {
  return withTree(root, async (tree) => {
    let resolved: Resolved;
    try {
      resolved = await resolve(tree, segments);
    } catch (error) {
      if (error instanceof ConfineError && error.code === "GENV_NOT_FOUND") return undefined;
      throw error;
    }
    try {
      if (resolved.kind !== "file") throw new ConfineError("GENV_IS_A_DIRECTORY", segments.join("/"), `"${segments.join("/")}" is a directory, not a regular file`);
      if (resolved.stat.size > maxBytes) throw new ConfineError("GENV_TOO_LARGE", segments.join("/"), `"${segments.join("/")}" is larger than ${maxBytes} bytes`);
      return await resolved.handle.readFile();
    } finally {
      await release(resolved, tree);
    }
  });
}
