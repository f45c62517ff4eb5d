/**
 * Reading `.agents/hooks.json` from an environment tree on the host, safely: the file lives in a tree
 * the agent can write to, so every symlink on the way is resolved as the sandbox sees it (the tree is
 * `/`), and a link that climbs above the tree's root is refused rather than followed to a host file.
 *
 * No race with the agent: tool calls and hooks run one at a time per tree and every sandbox process
 * is gone (PID namespace torn down) before the emulator reads the file, so nothing can swap a path
 * component between the resolution and the `open` (which also refuses a final symlink: O_NOFOLLOW).
 */
import { constants as fsConstants, promises as fs } from "node:fs";
import * as path from "node:path";

/** Where the runtime discovers hooks, relative to the tree's root (`/.agents/hooks.json` in the sandbox). */
export const HOOKS_FILE = ".agents/hooks.json";

const MAX_CONFIG_BYTES = 1024 * 1024; // 1 MiB: a hooks.json is a few KiB
const MAX_SYMLINK_HOPS = 40; // as Linux (ELOOP)

/** The file's text; `undefined` when it does not exist; throws an Error whose message says why it was refused. */
export async function readTreeFile(root: string, relative: string): Promise<string | undefined> {
  const absolute = await resolveInTree(root, relative);
  if (absolute === undefined) return undefined;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(absolute, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot open /${relative}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`/${relative} is not a regular file`);
    if (stat.size > MAX_CONFIG_BYTES) throw new Error(`/${relative} is larger than ${MAX_CONFIG_BYTES} bytes`);
    return await handle.readFile({ encoding: "utf8" });
  } finally {
    await handle.close();
  }
}

/**
 * The host path of `relative` inside `root`, following symlinks in the sandbox's view (an absolute
 * target starts again at the tree's root); `undefined` when a component does not exist.
 */
async function resolveInTree(root: string, relative: string): Promise<string | undefined> {
  const pending = relative.split("/");
  const resolved: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (resolved.length === 0) throw new Error(`/${relative} leads out of the environment tree through a symlink; not followed`);
      resolved.pop();
      continue;
    }
    const candidate = path.join(root, ...resolved, part);
    const stat = await fs.lstat(candidate).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
      throw new Error(`cannot read /${relative}: ${error.code ?? error.message}`);
    });
    if (!stat) return undefined;
    if (!stat.isSymbolicLink()) {
      resolved.push(part);
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) throw new Error(`/${relative}: too many levels of symbolic links`);
    const target = await fs.readlink(candidate);
    if (target.startsWith("/")) resolved.length = 0;
    pending.unshift(...target.split("/"));
  }
  return path.join(root, ...resolved);
}
