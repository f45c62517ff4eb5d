/**
 * Reading `.agents/hooks.json` from an environment tree on the host. The file lives in a tree the
 * agent can write to, so it is read through `confine/`: symlinks are resolved as the sandbox sees
 * them (the tree is `/`), no path component is ever followed by the kernel, and anything but a
 * regular file (a FIFO that would block, a socket) is refused.
 */
import { ConfineError, readFile } from "../confine";

/** Where the runtime discovers hooks, relative to the tree's root (`/.agents/hooks.json` in the sandbox). */
export const HOOKS_FILE = ".agents/hooks.json";

const MAX_CONFIG_BYTES = 1024 * 1024; // 1 MiB: a hooks.json is a few KiB

/** The file's text; `undefined` when it does not exist; throws an Error whose message says why it was refused. */
export async function readTreeFile(root: string, relative: string): Promise<string | undefined> {
  try {
    const bytes = await readFile(root, relative.split("/"), MAX_CONFIG_BYTES);
    return bytes?.toString("utf8");
  } catch (error) {
    if (error instanceof ConfineError) throw new Error(`/${relative} is refused: ${error.message}`);
    throw error;
  }
}
