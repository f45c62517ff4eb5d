/**
 * The one primitive every operation stands on: a directory of the tree held open, in which a name is
 * looked up by the kernel as `/proc/self/fd/<dir>/<name>`, with `O_NOFOLLOW` on every open.
 */
import { constants, openSync, promises as fs, type Dirent, type Stats } from "node:fs";
import { asConfineError, ConfineError, errno, SpecialFileError, specialKind } from "./_errors";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
const OPEN_DIRECTORY = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const OPEN_FILE = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const OPEN_FILE_FOR_WRITING = constants.O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
export const MAX_SYMLINK_HOPS = 40; // as Linux (ELOOP)
/** Times one component is looked up again after the tree changed under a step (a swap, a removal). */
export const MAX_RETRIES = 8;

/** A directory of the tree, held open. Close it when done (`close`); the root is closed by its owner. */
export class Directory {
  private constructor(
    private readonly handle: fs.FileHandle,
    /** Tree-relative path by which it was reached (`""` for the root), for messages. */
    readonly relative: string,
  ) {}

  /** Opens a directory we trust the path of (the tree's root); a symlink there is refused. */
  static async open(trustedPath: string): Promise<Directory> {
    return new Directory(await fs.open(trustedPath, OPEN_DIRECTORY), "");
  }

  /** `name` looked up by the kernel inside this very directory (never a path through the tree). */
  at(name: string): string {
    if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
      throw new ConfineError("GENV_NOT_FOUND", join(this.relative, name), `name ${JSON.stringify(name)} is not one path segment`);
    }
    return `/proc/self/fd/${this.handle.fd}/${name}`;
  }

  /** This directory as a path that reaches exactly it (for `readdir`, for a child process's argument). */
  get self(): string {
    return `/proc/self/fd/${this.handle.fd}`;
  }

  get fd(): number {
    return this.handle.fd;
  }

  stat(): Promise<Stats> {
    return this.handle.stat();
  }

  /** The subdirectory `name`; a symlink or a file there is a `ConfineError` (NOT_A_DIRECTORY / NOT_FOUND). */
  async child(name: string): Promise<Directory> {
    try {
      return new Directory(await fs.open(this.at(name), OPEN_DIRECTORY), join(this.relative, name));
    } catch (error) {
      throw asConfineError(error, join(this.relative, name));
    }
  }

  /** Entries sorted by name (byte order of their UTF-16, as the listings page by). */
  async entries(): Promise<Dirent[]> {
    const dirents = await fs.readdir(this.self, { withFileTypes: true });
    return dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** lstat of `name` in this directory; undefined when it is gone. */
  async lstat(name: string): Promise<Stats | undefined> {
    try {
      return await fs.lstat(this.at(name));
    } catch (error) {
      if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") return undefined;
      throw error;
    }
  }

  /**
   * The regular file `name`, opened for reading (or writing): a symlink there is `SYMLINK`, a socket, FIFO or
   * device a `SpecialFileError` (opened non-blocking, so a FIFO never waits for a writer).
   */
  async openFile(name: string, options: { write?: boolean } = {}): Promise<{ handle: fs.FileHandle; stat: Stats }> {
    const relative = join(this.relative, name);
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.at(name), options.write ? OPEN_FILE_FOR_WRITING : OPEN_FILE);
    } catch (error) {
      if (errno(error) === "ENXIO") throw new SpecialFileError(relative, "socket"); // sockets cannot be opened
      throw asConfineError(error, relative);
    }
    const stat = await handle.stat();
    if (stat.isFile()) return { handle, stat };
    await handle.close();
    if (stat.isDirectory()) throw new ConfineError("GENV_IS_A_DIRECTORY", relative, `"${relative}" is a directory, not a regular file`);
    throw new SpecialFileError(relative, specialKind(stat));
  }

  /** Creates (or finds) the directory `name`, owned by `owner` when it is created. */
  async ensureChild(name: string, owner?: Owner): Promise<Directory> {
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      try {
        return await this.child(name);
      } catch (error) {
        if (!(error instanceof ConfineError) || error.code !== "GENV_NOT_FOUND") throw error;
      }
      try {
        await fs.mkdir(this.at(name), { mode: 0o755 });
      } catch (error) {
        if (errno(error) !== "EEXIST") throw error;
        continue;
      }
      const created = await this.child(name);
      if (owner) await created.handle.chown(owner.uid, owner.gid);
      return created;
    }
    throw new ConfineError("GENV_UNSTABLE", join(this.relative, name), `"${join(this.relative, name)}" keeps changing`);
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}

/** A host uid and gid that files handed to the sandbox must belong to. */
export interface Owner {
  uid: number;
  gid: number;
}

/** Opens `root`, runs `fn` with it, closes it. */
export async function withTree<T>(root: string, fn: (tree: Directory) => Promise<T>): Promise<T> {
  const tree = await Directory.open(root);
  try {
    return await fn(tree);
  } finally {
    await tree.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The same lookups by a bare descriptor, synchronously: for walks that do microseconds of work per
// name (remove, chown), where a thread-pool round trip per name cost more than the work. They yield
// to the event loop themselves (`setImmediate` of node:timers/promises), at each directory and every `NAMES_PER_TURN` names.
// ---------------------------------------------------------------------------------------------

/** Names handled between two yields to the event loop by a synchronous walk. */
export const NAMES_PER_TURN = 256;

/** `name` in the directory held open at `fd`, as the kernel looks it up inside that very directory. */
export function entryIn(fd: number, name: string): string {
  return `/proc/self/fd/${fd}/${name}`;
}

/** The directory at `entry` (an `entryIn` path, or a trusted one) opened, no symlink followed; throws as `open` does. */
export function openDirectorySync(entry: string): number {
  return openSync(entry, OPEN_DIRECTORY);
}

export function join(relative: string, name: string): string {
  return relative ? `${relative}/${name}` : name;
}
