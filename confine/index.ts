/**
 * Host-side operations on a tree that untrusted code can write: an environment's files, which the
 * agent changes from inside its sandbox while the emulator (often root) reads, lists, copies and
 * deletes them from outside.
 *
 * The rule: the kernel never resolves a path of ours through the tree. Every name is looked up one
 * component at a time in a directory we hold open, through `/proc/self/fd/<dir>/<name>` — the
 * `openat(dir, name)` of a language without `openat`: the magic link is the very directory the
 * descriptor holds, wherever it has been moved since — and every open adds `O_NOFOLLOW`, so a symlink
 * is never followed by the kernel. Symlinks are followed by us, when the operation wants it, as the
 * sandbox sees them (the tree is `/`: an absolute target starts again at the tree's root, `..` stops
 * there). A check-then-use race therefore has nothing to win: swapping a directory for a symlink
 * between two of our steps makes the next step fail or stay inside the tree.
 *
 * Regular files are opened with `O_NONBLOCK` and checked with `fstat` before any byte is read, so a
 * FIFO never blocks a thread and a socket, FIFO or device is refused (`SpecialFileError`).
 */
import { constants, promises as fs, type Dirent, type Stats } from "node:fs";
import path from "node:path";

export { exclusive } from "./exclusive";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
const OPEN_DIRECTORY = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const OPEN_FILE = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const OPEN_FILE_FOR_WRITING = constants.O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const MAX_SYMLINK_HOPS = 40; // as Linux (ELOOP)
/** Times one component is looked up again after the tree changed under a step (a swap, a removal). */
const MAX_RETRIES = 8;

export type ConfineErrorCode = "GENV_NOT_FOUND" | "GENV_NOT_A_DIRECTORY" | "GENV_IS_A_DIRECTORY" | "GENV_SPECIAL_FILE" | "GENV_SYMLINK" | "GENV_TOO_MANY_LINKS" | "GENV_TOO_LARGE" | "GENV_ESCAPES" | "GENV_UNSTABLE";

/** A path that cannot be used as asked; `relative` is the tree-relative path as requested. */
export class ConfineError extends Error {
  override name = "ConfineError";
  constructor(
    readonly code: ConfineErrorCode,
    readonly relative: string,
    message: string,
  ) {
    super(message);
  }
}

/** A socket, FIFO or device where a regular file or directory was expected. */
export class SpecialFileError extends ConfineError {
  override name = "SpecialFileError";
  constructor(relative: string, readonly kind: string) {
    super("GENV_SPECIAL_FILE", relative, `"${relative}" is a ${kind}; only regular files and directories are read`);
  }
}

/** The kind of a special file, for messages. */
export function specialKind(stat: Stats): string {
  if (stat.isFIFO()) return "FIFO";
  if (stat.isSocket()) return "socket";
  if (stat.isCharacterDevice()) return "character device";
  if (stat.isBlockDevice()) return "block device";
  return "special file";
}

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException)?.code;

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

export type EntryKind = "directory" | "file" | "symlink" | "special";

export interface WalkEntry {
  /** Tree-relative path, `/`-separated. */
  relative: string;
  kind: EntryKind;
  /** lstat of the entry (never of a symlink's target). */
  stat: Stats;
  /** The directory that holds it, open while the walk is at this entry: act on `name` in it. */
  parent: Directory;
  name: string;
}

export interface WalkOptions {
  /** Names left out wherever they appear, with their contents (e.g. `.git`). */
  skip?: ReadonlySet<string>;
  /** Tree-relative path of `directory`, prefixed to every entry. */
  prefix?: string;
}

/**
 * Every entry under `directory`, depth first in name order (which is path order), directories before
 * their contents; symlinks are reported, never followed. An entry that vanishes or changes kind while
 * it is walked is passed over.
 */
export async function* walk(directory: Directory, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const prefix = options.prefix ?? "";
  for (const dirent of await directory.entries().catch(() => [] as Dirent[])) {
    if (options.skip?.has(dirent.name)) continue;
    const stat = await directory.lstat(dirent.name);
    if (!stat) continue;
    const relative = prefix ? `${prefix}/${dirent.name}` : dirent.name;
    const kind = kindOf(stat);
    yield { relative, kind, stat, parent: directory, name: dirent.name };
    if (kind !== "directory") continue;
    let child: Directory;
    try {
      child = await directory.child(dirent.name);
    } catch {
      continue; // swapped for something else since the lstat
    }
    try {
      yield* walk(child, { ...options, prefix: relative });
    } finally {
      await child.close();
    }
  }
}

export function kindOf(stat: Stats): EntryKind {
  if (stat.isDirectory()) return "directory";
  if (stat.isFile()) return "file";
  if (stat.isSymbolicLink()) return "symlink";
  return "special";
}

/** Regular files and their bytes under `directory` (what an environment's `file_count`/`size_bytes` count). */
export async function countFiles(directory: Directory): Promise<{ fileCount: number; sizeBytes: number }> {
  let fileCount = 0;
  let sizeBytes = 0;
  for await (const entry of walk(directory)) {
    if (entry.kind !== "file") continue;
    fileCount += 1;
    sizeBytes += entry.stat.size;
  }
  return { fileCount, sizeBytes };
}

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

/** Gives every entry of a tree we hold the trusted path of (its root included) to `owner`; links are not followed. */
export async function chownTree(trustedPath: string, owner: Owner): Promise<void> {
  await withTree(trustedPath, async (tree) => {
    await fs.chown(tree.self, owner.uid, owner.gid);
    await chownContents(tree, owner);
  });
}

async function chownContents(directory: Directory, owner: Owner): Promise<void> {
  for (const dirent of await directory.entries()) {
    await fs.lchown(directory.at(dirent.name), owner.uid, owner.gid);
    if (!dirent.isDirectory()) continue;
    const child = await directory.child(dirent.name).catch(() => undefined);
    if (!child) continue;
    try {
      await chownContents(child, owner);
    } finally {
      await child.close();
    }
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

function join(relative: string, name: string): string {
  return relative ? `${relative}/${name}` : name;
}

function asConfineError(error: unknown, relative: string): unknown {
  switch (errno(error)) {
    case "ENOENT":
      return new ConfineError("GENV_NOT_FOUND", relative, `"${relative}" not found`);
    case "ELOOP":
      return new ConfineError("GENV_SYMLINK", relative, `"${relative}" is a symlink`);
    case "ENOTDIR":
      return new ConfineError("GENV_NOT_A_DIRECTORY", relative, `"${relative}" is not a directory`);
    default:
      return error;
  }
}
