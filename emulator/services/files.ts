/**
 * Files of an environment: ListFiles, the download (`alt=media`), and what a finished upload writes
 * (the resumable protocol itself is `api/uploads.ts`).
 *
 * - Page tokens are keyset positions (a path), stable while files are added and removed.
 * - An upload's finalize runs while no tool call runs in the tree (`TreeStore.exclusive`): the call
 *   would take the upload for its own growth. `overwrite` false means an existing file is 409.
 */
import { promises as fs, type promises } from "node:fs";
import type { EnvironmentFile } from "../../client/schemas";
import { chownTree, Directory, ensureDirectories, removeTree, withTree } from "../../confine";
import { HttpError, invalidArgument } from "../errors";
import { decodeToken, encodeToken, pageSizeOf } from "../store/paging";
import { assertIsFile, mimeTypeOf, toEntry, type TreeEntry, type TreeStore } from "../trees";
import { asHttpError, journaledMerge, unpackArchive } from "../trees/extract";
import { isoSeconds, type EnvironmentsService } from "./environments";

export interface FilesQuery {
  recursive: boolean;
  pageSize: number | undefined;
  pageToken: string | undefined;
}

/** A complete upload, staged: what `upload` writes into the tree. */
export interface Upload {
  owner: string;
  environmentId: string;
  /** Destination path, split and decoded; empty for an archive extracted at the root. */
  segments: string[];
  /** Unpack the staged tar / tar.gz there (`extract=true`) instead of writing one file. */
  extract: boolean;
  overwrite: boolean;
  /** The staged bytes' file, moved or unpacked into the tree. */
  staging: string;
  sizeBytes: number;
}

export class FilesService {
  constructor(
    private readonly environments: EnvironmentsService,
    private readonly trees: TreeStore,
    /** Most files / bytes one environment may hold. */
    private readonly limits: { maxFiles: number; maxBytes: number },
  ) {}

  async list(owner: string, id: string, segments: readonly string[], query: FilesQuery): Promise<{ files: EnvironmentFile[]; next_page_token?: string }> {
    const row = this.environments.accessed(owner, id);
    return this.trees.at(row.id, segments, async (target) => {
      if (target.kind === "file") return { files: [toWireFile(target.entry)] };
      const relative = target.entry.path;
      const size = pageSizeOf(query.pageSize);
      const kind = query.recursive ? "files-recursive" : "files";
      let after: string | undefined;
      if (query.pageToken) {
        const token = decodeToken(query.pageToken, kind);
        if (token.env !== row.id || token.dir !== relative || typeof token.after !== "string") {
          throw invalidArgument("page_token: belongs to another listing; pass the same environment, path and recursive flag");
        }
        after = token.after;
      }
      const all = query.recursive
        ? await this.trees.listRecursive(row.id, row.updated_ms, target.directory, relative)
        : await this.trees.listDirectory(target.directory, relative);
      const start = after === undefined ? 0 : firstAfter(all, after);
      const page = all.slice(start, start + size);
      const files = page.map(toWireFile);
      if (start + size >= all.length) return { files };
      return { files, next_page_token: encodeToken(kind, { env: row.id, dir: relative, after: page[page.length - 1].path }) };
    });
  }

  /**
   * The file to send, open: the bytes come from the very file that was checked, whatever the agent
   * renames meanwhile. The caller closes `handle`.
   */
  async download(owner: string, id: string, segments: readonly string[]): Promise<{ handle: promises.FileHandle; sizeBytes: number; mimeType: string }> {
    const row = this.environments.accessed(owner, id);
    return this.trees.at(row.id, segments, async (target) => {
      assertIsFile(target.entry);
      if (target.kind !== "file") throw new Error("unreachable: a file entry without a handle");
      // Reopened from its own descriptor, so that the handle outlives the resolution that owns `target.handle`.
      const handle = await fs.open(`/proc/self/fd/${target.handle.fd}`, "r");
      return { handle, sizeBytes: target.entry.sizeBytes, mimeType: mimeTypeOf(target.entry.name) };
    });
  }

  /** Writes a finished upload into the tree — its one file, or the archive's entries — and returns what it wrote. */
  upload(session: Upload): Promise<EnvironmentFile[]> {
    // Not while a tool call runs in the tree: the call would take the upload for its own growth.
    return this.trees.exclusive(session.environmentId, () => this.finalizeNow(session));
  }

  private async finalizeNow(session: Upload): Promise<EnvironmentFile[]> {
    const row = this.environments.writable(session.owner, session.environmentId);
    this.environments.treeChanging(row.id);
    const owner = this.trees.owner;
    let written: TreeEntry[];
    if (session.extract) {
      const unpacked = `${session.staging}.d`;
      await fs.mkdir(unpacked);
      try {
        await unpackArchive(session.staging, unpacked);
        await this.checkLimits(row, unpacked);
        if (owner) await chownTree(unpacked, owner);
        written = await withTree(this.trees.treePath(row.id), (tree) =>
          journaledMerge(this.trees.uploadsDir, { environmentId: row.id, unpacked, segments: session.segments, tree, overwrite: session.overwrite, owner }),
        );
      } finally {
        await removeTree(unpacked);
      }
    } else {
      written = [await withTree(this.trees.treePath(row.id), (tree) => this.placeFile(session, row, tree))];
    }
    await this.environments.filesChanged(row.id);
    return written.map(toWireFile);
  }

  /** Moves the staged file to its path in the tree: by name, in the directory that holds it (no path is resolved). */
  private async placeFile(session: Upload, row: { file_count: number; size_bytes: number }, tree: Directory): Promise<TreeEntry> {
    const relative = session.segments.join("/");
    const name = session.segments[session.segments.length - 1];
    const parent = await ensureDirectories(tree, session.segments.slice(0, -1), this.trees.owner).catch((error: unknown) => {
      throw asHttpError(error, "path");
    });
    try {
      const existing = await parent.lstat(name);
      if (existing?.isDirectory()) throw invalidArgument(`path: "${relative}" is a directory; give a file path, or extract: true to unpack an archive into it`);
      if (existing && !session.overwrite) throw new HttpError("ALREADY_EXISTS", `path: "${relative}" already exists; upload with overwrite: true to replace it`);
      const files = row.file_count + (existing ? 0 : 1);
      const bytes = row.size_bytes + session.sizeBytes - (existing?.isFile() ? existing.size : 0);
      this.assertWithinLimits(files, bytes);
      if (this.trees.owner) await fs.chown(session.staging, this.trees.owner.uid, this.trees.owner.gid);
      if (session.overwrite) {
        await fs.rename(session.staging, parent.at(name)); // atomically replaces a file (or a symlink, not its target)
      } else {
        try {
          await fs.link(session.staging, parent.at(name)); // fails if something appeared meanwhile: no clobbering
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new HttpError("ALREADY_EXISTS", `path: "${relative}" already exists; upload with overwrite: true to replace it`);
          throw error;
        }
      }
      return toEntry(relative, await fs.stat(session.staging).catch(() => fs.lstat(parent.at(name))));
    } finally {
      if (parent !== tree) await parent.close();
    }
  }

  private async checkLimits(row: { file_count: number; size_bytes: number }, unpacked: string): Promise<void> {
    const stats = await this.trees.stats(unpacked);
    this.assertWithinLimits(row.file_count + stats.fileCount, row.size_bytes + stats.sizeBytes);
  }

  private assertWithinLimits(files: number, bytes: number): void {
    if (files > this.limits.maxFiles) throw invalidArgument(`file: the environment would hold more than ${this.limits.maxFiles} files`);
    if (bytes > this.limits.maxBytes) throw invalidArgument(`file: the environment would hold more than ${this.limits.maxBytes} bytes`);
  }
}

/** Index of the first entry after `path` in walk order (segment-wise name order). */
function firstAfter(entries: readonly TreeEntry[], path: string): number {
  const key = path.split("/");
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareSegments(entries[middle].path.split("/"), key) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function compareSegments(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

export function toWireFile(entry: TreeEntry): EnvironmentFile {
  const file: EnvironmentFile = { name: entry.name, path: entry.path, type: entry.type };
  if (entry.type === "file") {
    file.mime_type = mimeTypeOf(entry.name);
    file.size_bytes = String(entry.sizeBytes);
  }
  file.created = isoSeconds(entry.createdMs);
  file.modified = isoSeconds(entry.modifiedMs);
  return file;
}
