/**
 * Unpacking an uploaded tar / tar.gz (`extract=true`) and merging it into an environment's tree.
 *
 * Every entry is checked before anything is written: absolute paths, `..` segments, links whose
 * target leaves the archive's tree and special files (devices, FIFOs) refuse the whole archive.
 * After unpacking into a staging directory, symlinks are checked again as the kernel resolves them.
 * The merge checks every conflict first, so a refused upload changes nothing.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import * as tar from "tar";
import { HttpError, invalidArgument } from "../errors";
import { ConfineError, Directory, ensureDirectories, inParent, symlinkStaysInside, walk, withTree, type EntryKind, type Owner } from "../../confine";
import { toEntry, type TreeEntry } from ".";


const ALLOWED = new Set(["File", "OldFile", "ContiguousFile", "Directory", "SymbolicLink", "Link"]);

/** Unpacks `archive` into the empty directory `into`; throws a 400 naming the first bad entry. */
export async function unpackArchive(archive: string, into: string): Promise<void> {
  const problems: string[] = [];
  try {
    await tar.t({
      file: archive,
      strict: true,
      onReadEntry: (entry) => {
        const problem = entryProblem(entry.path, entry.type, entry.linkpath);
        if (problem) problems.push(problem);
        entry.resume();
      },
    });
  } catch (error) {
    throw invalidArgument(`file: is not a tar or tar.gz archive (extract=true): ${(error as Error).message}`);
  }
  if (problems.length > 0) throw invalidArgument(`file: the archive is refused (extract=true): ${problems.slice(0, 3).join("; ")}`);
  try {
    await tar.x({ file: archive, cwd: into, strict: true, preserveOwner: false });
  } catch (error) {
    throw invalidArgument(`file: cannot unpack the archive (extract=true): ${(error as Error).message}`);
  }
  const links: string[] = [];
  await withTree(into, async (staged) => {
    for await (const entry of walk(staged)) if (entry.kind === "symlink") links.push(entry.relative);
  });
  for (const link of links) {
    if (!(await symlinkStaysInside(into, link))) {
      throw invalidArgument(`file: the archive is refused (extract=true): symlink "${link}" points outside the archive's tree`);
    }
  }
}

function entryProblem(entryPath: string, type: string, linkpath: string | undefined): string | undefined {
  const name = JSON.stringify(entryPath);
  if (!ALLOWED.has(type)) return `entry ${name} is a ${type}; only files, directories and links are accepted`;
  if (escapes(entryPath, [])) return `entry ${name} escapes the target directory (absolute or ".." path)`;
  if (type === "Link" && (linkpath === undefined || escapes(linkpath, []))) {
    return `hard link ${name} points outside the archive's tree`;
  }
  if (type === "SymbolicLink") {
    const parent = segmentsOf(entryPath).slice(0, -1);
    if (linkpath === undefined || escapes(linkpath, parent)) return `symlink ${name} points outside the archive's tree`;
  }
  return undefined;
}

/** Whether `target`, read from the directory `from` (archive-relative segments), leaves the archive root. */
function escapes(target: string, from: readonly string[]): boolean {
  if (target.startsWith("/") || /^[A-Za-z]:/.test(target) || target.includes("\\")) return true;
  const stack = [...from];
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (stack.length === 0) return true;
      stack.pop();
    } else stack.push(part);
  }
  return false;
}

const segmentsOf = (entryPath: string) => entryPath.split("/").filter((part) => part !== "" && part !== ".");

/**
 * Moves the unpacked tree into `tree/destSegments`. Conflicts are found before anything moves:
 * an existing file is 409 unless `overwrite`; a file against a directory (either way) is 400.
 * Every name is placed in the directory that holds it, held open from the tree's root without
 * following a symlink, so a link the agent planted cannot redirect the merge.
 * Returns the regular files written.
 */
export async function mergeInto(
  unpacked: string,
  tree: Directory,
  destSegments: readonly string[],
  overwrite: boolean,
  owner?: Owner,
): Promise<TreeEntry[]> {
  const entries: { relative: string; kind: EntryKind }[] = [];
  await withTree(unpacked, async (staged) => {
    for await (const entry of walk(staged)) entries.push({ relative: entry.relative, kind: entry.kind });
  });
  const prefix = destSegments.join("/");
  const envPath = (relative: string) => (prefix ? `${prefix}/${relative}` : relative);
  const base = await ensureDirectories(tree, destSegments, owner).catch((error: unknown) => {
    throw asHttpError(error, "path");
  });
  try {
    for (const entry of entries) {
      const existing = await inParent(base, entry.relative, (parent, name) => parent.lstat(name));
      if (!existing) continue;
      const isDir = existing.isDirectory();
      if (entry.kind === "directory" && !isDir) throw invalidArgument(`path: "${envPath(entry.relative)}" is a file in the environment, the archive has a directory there`);
      if (entry.kind !== "directory" && isDir) throw invalidArgument(`path: "${envPath(entry.relative)}" is a directory in the environment, the archive has a file there`);
      if (entry.kind !== "directory" && !overwrite) {
        throw new HttpError("ALREADY_EXISTS", `path: "${envPath(entry.relative)}" already exists; upload with overwrite: true to replace it`);
      }
    }
    const written: TreeEntry[] = [];
    for (const entry of entries) {
      const segments = entry.relative.split("/");
      const name = segments.pop()!;
      const parent = await ensureDirectories(base, segments, owner).catch((error: unknown) => {
        throw asHttpError(error, "path");
      });
      try {
        if (entry.kind === "directory") {
          const created = await parent.ensureChild(name, owner).catch((error: unknown) => {
            throw asHttpError(error, "path");
          });
          await created.close();
        } else {
          await fs.rename(path.join(unpacked, entry.relative), parent.at(name));
          const stat = await parent.lstat(name);
          if (entry.kind === "file" && stat) written.push(toEntry(envPath(entry.relative), stat));
        }
      } finally {
        if (parent !== base) await parent.close();
      }
    }
    return written;
  } finally {
    if (base !== tree) await base.close();
  }
}

/** What a merge in progress needs to be finished after a crash. */
interface MergeJournal {
  environmentId: string;
  unpacked: string;
  segments: string[];
}

const JOURNAL_SUFFIX = ".merge.json";

/**
 * `mergeInto` all or nothing across a crash: a journal naming the merge is written (atomically)
 * before the first entry moves and removed after the last; a start-up that finds one finishes the
 * merge (`finishInterruptedMerges`). Rolling forward is sound: every conflict was checked before
 * anything moved, and the entries not yet moved are still in `unpacked`.
 */
export async function journaledMerge(
  journalDir: string,
  merge: MergeJournal & { tree: Directory; overwrite: boolean; owner?: Owner },
): Promise<TreeEntry[]> {
  const journal = path.join(journalDir, `${path.basename(merge.unpacked)}${JOURNAL_SUFFIX}`);
  const record: MergeJournal = { environmentId: merge.environmentId, unpacked: merge.unpacked, segments: merge.segments };
  await fs.writeFile(`${journal}.tmp`, JSON.stringify(record));
  await fs.rename(`${journal}.tmp`, journal);
  try {
    return await mergeInto(merge.unpacked, merge.tree, merge.segments, merge.overwrite, merge.owner);
  } finally {
    await fs.rm(journal, { force: true });
  }
}

/** Finishes the merges a crash interrupted (before start-up sweeps `tmp/`); returns their environments. */
export async function finishInterruptedMerges(journalDir: string, treePath: (id: string) => string, owner?: Owner): Promise<string[]> {
  const finished: string[] = [];
  const names = await fs.readdir(journalDir).catch(() => [] as string[]);
  for (const name of names.filter((entry) => entry.endsWith(JOURNAL_SUFFIX))) {
    const record = JSON.parse(await fs.readFile(path.join(journalDir, name), "utf8")) as MergeJournal;
    const unpackedExists = await fs.stat(record.unpacked).then(() => true, () => false);
    const treeExists = await fs.stat(treePath(record.environmentId)).then(() => true, () => false);
    if (unpackedExists && treeExists) {
      await withTree(treePath(record.environmentId), (tree) => mergeInto(record.unpacked, tree, record.segments, true, owner));
      finished.push(record.environmentId);
    }
    await fs.rm(path.join(journalDir, name), { force: true });
  }
  return finished;
}

/** A confinement refusal as the 400 that names the field. */
export function asHttpError(error: unknown, field: string): unknown {
  if (error instanceof ConfineError && error.code === "GENV_NOT_A_DIRECTORY") return invalidArgument(`${field}: ${error.message}`);
  return error;
}
