/**
 * Environment file trees on disk: `<data>/trees/<id>/` is the sandbox's `/`. A tree is built in
 * `<data>/tmp/` and renamed into place, so a half-built tree is never under `trees/`; whatever a
 * crash leaves in `tmp/` (or a tree without a database row) is removed by `sweep` at start-up.
 *
 * A committed tree is written by agent code in its sandbox while the emulator reads it from outside:
 * every path into it goes through `confine/` (no symlink followed by the kernel, special files never
 * opened for reading), never through a host path.
 */
import { promises as fs, type Stats } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import mime from "mime-types";
import { chownTree, ConfineError, copyContents, countFiles, Directory, exclusive, release, removeTree, resolve, walk, withTree, type Owner } from "../../confine";
import { pathLengthProblem } from "../../client/schemas";
import { removeHostView } from "../sandbox";
import { HttpError, invalidArgument, notFound } from "../errors";

export interface TreeStats {
  fileCount: number;
  sizeBytes: number;
}

export interface TreeEntry {
  /** Path relative to the environment root, `/`-separated, e.g. `workspace/src/main.py`. */
  path: string;
  name: string;
  type: "file" | "directory";
  sizeBytes: number;
  createdMs: number;
  modifiedMs: number;
}

/** MIME types for source files that the mime database leaves out or gets wrong (`.ts` is not video). */
const SOURCE_MIME: Record<string, string> = {
  ".py": "text/x-python",
  ".ts": "text/x-typescript",
  ".tsx": "text/x-typescript",
  ".go": "text/x-go",
  ".rs": "text/x-rust",
  ".rb": "text/x-ruby",
  ".sh": "text/x-shellscript",
  ".toml": "application/toml",
  ".lock": "text/plain",
};

export function mimeTypeOf(fileName: string): string {
  const extension = path.extname(fileName).toLowerCase();
  return SOURCE_MIME[extension] ?? (mime.lookup(fileName) || "application/octet-stream");
}

export class TreeStore {
  readonly treesDir: string;
  readonly tmpDir: string;
  /** Where upload sessions stage their bytes and extracts keep their journals. */
  readonly uploadsDir: string;
  /** Recursive listings by tree, version and path, so that paging a large tree walks it once. */
  private readonly listings = new Map<string, TreeEntry[]>();
  /** The removed trees' deletion, one after another (`remove`). */
  private emptying: Promise<void> = Promise.resolve();

  /**
   * @param owner who the sandbox runs as on the host, when that is not the emulator's own user: the
   *   files the emulator writes into a tree are given to it, so that the agent can change them.
   */
  constructor(dataDir: string, readonly owner?: Owner) {
    this.treesDir = path.join(dataDir, "trees");
    this.tmpDir = path.join(dataDir, "tmp");
    this.uploadsDir = path.join(this.tmpDir, "uploads");
    this.ownerMark = path.join(dataDir, "trees-owner");
  }

  /**
   * `uid:gid` of the owner a sweep last handed every committed tree to. Trees are given to the owner
   * before they are committed, so while a start-up finds the same owner, none can be another's and
   * the sweep need not look at each (an lstat per tree: a third of a second at 10,000). A run with no
   * owner commits trees as its own user, so it removes the mark.
   */
  private readonly ownerMark: string;

  async init(): Promise<void> {
    await fs.mkdir(this.treesDir, { recursive: true });
    await fs.mkdir(this.tmpDir, { recursive: true });
  }

  /**
   * Removes build leftovers and trees whose creation never committed a row, and hands the sandbox's
   * owner any tree that is not yet its own (a data directory from an emulator that ran the sandbox as
   * root).
   */
  async sweep(committedIds: ReadonlySet<string>): Promise<void> {
    for (const entry of await fs.readdir(this.tmpDir)) await removeTree(path.join(this.tmpDir, entry));
    const owner = this.owner;
    const ownerMark = owner && `${owner.uid}:${owner.gid}`;
    const marked = await fs.readFile(this.ownerMark, "utf8").catch(() => undefined);
    if (!ownerMark && marked !== undefined) await fs.rm(this.ownerMark, { force: true });
    const checkOwners = owner !== undefined && marked !== ownerMark;
    for (const entry of await fs.readdir(this.treesDir)) {
      const tree = path.join(this.treesDir, entry);
      if (!committedIds.has(entry)) await removeTree(tree);
      else if (checkOwners && !ownedBy(await fs.lstat(tree), owner)) await chownTree(tree, owner);
    }
    if (checkOwners) await fs.writeFile(this.ownerMark, ownerMark!);
  }

  treePath(id: string): string {
    return path.join(this.treesDir, id);
  }

  /**
   * Runs `fn` when no other exclusive section on tree `id` runs, in call order: the writers whose
   * before/after view of the tree must hold — a tool call (hooks and tool; it undoes its own growth
   * past the limits, so nothing else may add files meanwhile) and an upload's finalize. The one
   * per-tree queue (`confine/exclusive.ts`): the sandbox's runs of a call run in its section.
   */
  exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    return exclusive(this.treePath(id), fn);
  }

  /** A fresh empty directory to build a tree in; pass it to `commit` or `discard`. */
  async scratch(): Promise<string> {
    const dir = path.join(this.tmpDir, `build-${randomBytes(8).toString("hex")}`);
    await fs.mkdir(dir, { mode: 0o755 });
    return dir;
  }

  /** Hands the built tree to the sandbox's owner and moves it into place. */
  async commit(scratchDir: string, id: string): Promise<void> {
    if (this.owner) await chownTree(scratchDir, this.owner);
    await fs.rename(scratchDir, this.treePath(id));
  }

  async discard(dir: string): Promise<void> {
    await removeTree(dir);
  }

  /**
   * Moves the tree out of `trees/` at once, and deletes its files after: the environment is gone
   * when this returns, its files soon after (`emptied`). A crash in between leaves only tmp garbage,
   * which the next start-up's `sweep` removes.
   */
  async remove(id: string): Promise<void> {
    for (const key of this.listings.keys()) if (key.startsWith(`${id}\0`)) this.listings.delete(key);
    const trash = path.join(this.tmpDir, `trash-${id}-${randomBytes(4).toString("hex")}`);
    try {
      await fs.rename(this.treePath(id), trash);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    await removeHostView(this.treePath(id));
    // Emptied one tree after another, behind the answer: a delete's own wait was most of a
    // `pulumi destroy` of 1,000 on the emulator (10 ms a 4-directory tree where an rmdir is slow).
    // A tool call still running in it may keep writing until its sandbox ends: then the trash is
    // emptied once the call is over.
    this.emptying = this.emptying.then(() =>
      removeTree(trash).catch(() => {
        void this.exclusive(id, () => removeTree(trash)).catch(() => undefined);
      }),
    );
  }

  /** Resolves once the trees removed so far are deleted from disk; one a running tool call still writes to is deleted when that call ends. */
  emptied(): Promise<void> {
    return this.emptying;
  }

  /**
   * Copies a tree (blocks shared where the file system can reflink). Sockets, FIFOs and devices the
   * agent made are left out: they are not files, and opening a FIFO would wait for a writer.
   */
  async copyInto(id: string, scratchDir: string): Promise<void> {
    await withTree(this.treePath(id), (tree) => copyContents(tree, scratchDir));
  }

  async stats(dir: string): Promise<TreeStats> {
    return withTree(dir, countFiles);
  }

  /**
   * Runs `fn` on what a request path (already split and percent-decoded) names in environment `id`:
   * a regular file or a directory. Symlinks are followed as the sandbox sees them (the tree is `/`),
   * so nothing outside the tree is ever read or listed; a socket, FIFO or device is a 400.
   */
  async at<T>(id: string, segments: readonly string[], fn: (target: TreeTarget) => Promise<T>): Promise<T> {
    for (const segment of segments) {
      if (segment === "." || segment === ".." || segment.includes("\0") || segment.includes("/")) {
        throw invalidArgument(`path: segment ${JSON.stringify(segment)} is not allowed; give a path relative to the environment root`);
      }
    }
    const tooLong = pathLengthProblem(segments);
    if (tooLong) throw invalidArgument(`path: ${tooLong}`);
    const relative = segments.join("/");
    const display = relative === "" ? "/" : relative;
    let tree: Directory;
    try {
      tree = await Directory.open(this.treePath(id));
    } catch {
      throw notFound(`path "${display}" not found in environment ${id}`);
    }
    try {
      const resolved = await resolve(tree, segments).catch((error: unknown) => {
        throw asHttpError(error, id, display);
      });
      try {
        const entry = toEntry(relative, resolved.stat);
        return await fn(resolved.kind === "file" ? { kind: "file", entry, handle: resolved.handle } : { kind: "directory", entry, directory: resolved.directory });
      } finally {
        await release(resolved, tree);
      }
    } finally {
      await tree.close();
    }
  }

  /** One level of a directory, sorted by name: its directories and regular files. */
  async listDirectory(directory: Directory, relative: string): Promise<TreeEntry[]> {
    const entries: TreeEntry[] = [];
    for (const dirent of await directory.entries()) {
      const stat = await directory.lstat(dirent.name);
      const entryPath = relative ? `${relative}/${dirent.name}` : dirent.name;
      if (stat && (stat.isDirectory() || stat.isFile())) entries.push(toEntry(entryPath, stat));
    }
    return entries;
  }

  /**
   * Every regular file under a directory of tree `id`, sorted by path; remembered for the tree's
   * `version` (its `updated_ms`, which moves with every change), so that the pages of one listing walk it once.
   */
  async listRecursive(id: string, version: number, directory: Directory, relative: string): Promise<TreeEntry[]> {
    const key = `${id}\0${version}\0${relative}`;
    const cached = this.listings.get(key);
    if (cached) return cached;
    const entries: TreeEntry[] = [];
    for await (const entry of walk(directory, { prefix: relative })) {
      if (entry.kind === "file") entries.push(toEntry(entry.relative, entry.stat));
    }
    this.listings.set(key, entries);
    while (this.listings.size > 16) this.listings.delete(this.listings.keys().next().value!);
    return entries;
  }
}

/** What a request path named: a file open for reading, or a directory held open. */
export type TreeTarget =
  | { kind: "file"; entry: TreeEntry; handle: fs.FileHandle }
  | { kind: "directory"; entry: TreeEntry; directory: Directory };

function asHttpError(error: unknown, id: string, display: string): unknown {
  if (!(error instanceof ConfineError)) return error;
  if (error.code === "GENV_SPECIAL_FILE" || error.code === "GENV_UNSTABLE") {
    return new HttpError("FAILED_PRECONDITION", `path "${display}" in environment ${id}: ${error.message}`);
  }
  return notFound(`path "${display}" not found in environment ${id}`);
}

export function toEntry(relative: string, stat: Stats): TreeEntry {
  return {
    path: relative,
    name: relative === "" ? "" : path.posix.basename(relative),
    type: stat.isDirectory() ? "directory" : "file",
    sizeBytes: stat.isDirectory() ? 0 : stat.size,
    createdMs: stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.ctimeMs,
    modifiedMs: stat.mtimeMs,
  };
}

export function assertIsFile(entry: TreeEntry): void {
  if (entry.type !== "file") {
    throw new HttpError("INVALID_ARGUMENT", `path "${entry.path || "/"}" is a directory: alt=media downloads files only`);
  }
}

function ownedBy(stats: Stats, owner: Owner): boolean {
  return stats.uid === owner.uid && stats.gid === owner.gid;
}
