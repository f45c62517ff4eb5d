/**
 * Environment file trees on disk: `<data>/trees/<id>/` is the sandbox's `/`. A tree is built in
 * `<data>/tmp/` and renamed into place, so a half-built tree is never under `trees/`; whatever a
 * crash leaves in `tmp/` (or a tree without a database row) is removed by `sweep` at start-up.
 */
import { constants as fsConstants, promises as fs } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import mime from "mime-types";
import { HttpError, invalidArgument, notFound } from "./errors";

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
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(dataDir: string) {
    this.treesDir = path.join(dataDir, "trees");
    this.tmpDir = path.join(dataDir, "tmp");
  }

  async init(): Promise<void> {
    await fs.mkdir(this.treesDir, { recursive: true });
    await fs.mkdir(this.tmpDir, { recursive: true });
  }

  /** Removes build leftovers and trees whose creation never committed a row. */
  async sweep(committedIds: ReadonlySet<string>): Promise<void> {
    for (const entry of await fs.readdir(this.tmpDir)) {
      await fs.rm(path.join(this.tmpDir, entry), { recursive: true, force: true });
    }
    for (const entry of await fs.readdir(this.treesDir)) {
      if (!committedIds.has(entry)) await fs.rm(path.join(this.treesDir, entry), { recursive: true, force: true });
    }
  }

  treePath(id: string): string {
    return path.join(this.treesDir, id);
  }

  /**
   * Runs `fn` when no other exclusive section on tree `id` runs, in call order: the writers whose
   * before/after view of the tree must hold — a tool call (hooks and tool; it undoes its own growth
   * past the limits, so nothing else may add files meanwhile) and an upload's finalize.
   */
  exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(id) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queues.set(id, tail);
    void tail.then(() => {
      if (this.queues.get(id) === tail) this.queues.delete(id);
    });
    return run;
  }

  /** A fresh empty directory to build a tree in; pass it to `commit` or `discard`. */
  async scratch(): Promise<string> {
    const dir = path.join(this.tmpDir, `build-${randomBytes(8).toString("hex")}`);
    await fs.mkdir(dir, { mode: 0o755 });
    return dir;
  }

  async commit(scratchDir: string, id: string): Promise<void> {
    await fs.rename(scratchDir, this.treePath(id));
  }

  async discard(dir: string): Promise<void> {
    await fs.rm(dir, { recursive: true, force: true });
  }

  /** Moves the tree out of `trees/` at once, then deletes it; a crash in between leaves only tmp garbage. */
  async remove(id: string): Promise<void> {
    const trash = path.join(this.tmpDir, `trash-${id}-${randomBytes(4).toString("hex")}`);
    try {
      await fs.rename(this.treePath(id), trash);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    await fs.rm(trash, { recursive: true, force: true });
  }

  /** Copies a tree, sharing blocks (reflink) where the file system can. */
  async copyInto(id: string, scratchDir: string): Promise<void> {
    await fs.cp(this.treePath(id), scratchDir, {
      recursive: true,
      force: true,
      errorOnExist: false,
      verbatimSymlinks: true,
      mode: fsConstants.COPYFILE_FICLONE,
    });
  }

  async stats(dir: string): Promise<TreeStats> {
    let fileCount = 0;
    let sizeBytes = 0;
    for await (const entry of walkFiles(dir, "")) {
      fileCount += 1;
      sizeBytes += entry.sizeBytes;
    }
    return { fileCount, sizeBytes };
  }

  /**
   * Resolves a request path (already split and percent-decoded) inside environment `id`. Symlinks
   * are followed only while they stay inside the tree: nothing outside it is ever read or listed.
   */
  async resolve(id: string, segments: readonly string[]): Promise<{ absolute: string; relative: string; entry: TreeEntry }> {
    for (const segment of segments) {
      if (segment === "." || segment === ".." || segment.includes("\0") || segment.includes("/")) {
        throw invalidArgument(`path: segment ${JSON.stringify(segment)} is not allowed; give a path relative to the environment root`);
      }
    }
    const root = this.treePath(id);
    const relative = segments.join("/");
    const display = relative === "" ? "/" : relative;
    let realRoot: string;
    let real: string;
    try {
      realRoot = await fs.realpath(root);
      real = await fs.realpath(path.join(root, ...segments));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") throw notFound(`path "${display}" not found in environment ${id}`);
      throw error;
    }
    if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
      throw notFound(`path "${display}" not found in environment ${id}`);
    }
    const stat = await fs.stat(real);
    return { absolute: real, relative, entry: toEntry(relative, stat) };
  }

  /** One level of a directory, sorted by name. */
  async listDirectory(absolute: string, relative: string): Promise<TreeEntry[]> {
    const entries: TreeEntry[] = [];
    const names = (await fs.readdir(absolute)).sort();
    for (const name of names) {
      const stat = await fs.lstat(path.join(absolute, name));
      const entryPath = relative ? `${relative}/${name}` : name;
      if (stat.isDirectory() || stat.isFile()) entries.push(toEntry(entryPath, stat));
    }
    return entries;
  }

  /** Every regular file under a directory, sorted by path. */
  async listRecursive(absolute: string, relative: string): Promise<TreeEntry[]> {
    const entries: TreeEntry[] = [];
    for await (const entry of walkFiles(absolute, relative)) entries.push(entry);
    return entries;
  }
}

/** Regular files only, depth first in name order (which is path order); symlinks are not followed. */
async function* walkFiles(absolute: string, relative: string): AsyncGenerator<TreeEntry> {
  const dirents = await fs.readdir(absolute, { withFileTypes: true });
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dirent of dirents) {
    const childAbsolute = path.join(absolute, dirent.name);
    const childRelative = relative ? `${relative}/${dirent.name}` : dirent.name;
    if (dirent.isDirectory()) {
      yield* walkFiles(childAbsolute, childRelative);
    } else if (dirent.isFile()) {
      const stat = await fs.lstat(childAbsolute);
      yield toEntry(childRelative, stat);
    }
  }
}

function toEntry(relative: string, stat: import("node:fs").Stats): TreeEntry {
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
