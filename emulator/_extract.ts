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
import { HttpError, invalidArgument } from "./errors";
import { ensureDirectories, symlinkStaysInside, walk } from "./_confine";

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
  for (const entry of await walk(into)) {
    if (entry.kind === "link" && !(await symlinkStaysInside(into, entry.relative))) {
      throw invalidArgument(`file: the archive is refused (extract=true): symlink "${entry.relative}" points outside the archive's tree`);
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
 * Moves the unpacked tree into `treeRoot/destSegments`. Conflicts are found before anything moves:
 * an existing file is 409 unless `overwrite`; a file against a directory (either way) is 400.
 * Returns the environment-relative paths of the regular files written.
 */
export async function mergeInto(
  unpacked: string,
  treeRoot: string,
  destSegments: readonly string[],
  overwrite: boolean,
): Promise<string[]> {
  const entries = await walk(unpacked);
  const prefix = destSegments.join("/");
  const envPath = (relative: string) => (prefix ? `${prefix}/${relative}` : relative);
  const base = await ensureDirectories(treeRoot, destSegments, "path");
  for (const entry of entries) {
    let existing;
    try {
      existing = await fs.lstat(path.join(base, entry.relative));
    } catch {
      continue;
    }
    const isDir = existing.isDirectory();
    if (entry.kind === "dir" && !isDir) throw invalidArgument(`path: "${envPath(entry.relative)}" is a file in the environment, the archive has a directory there`);
    if (entry.kind !== "dir" && isDir) throw invalidArgument(`path: "${envPath(entry.relative)}" is a directory in the environment, the archive has a file there`);
    if (entry.kind !== "dir" && !overwrite) {
      throw new HttpError("ALREADY_EXISTS", `path: "${envPath(entry.relative)}" already exists; upload with overwrite: true to replace it`);
    }
  }
  const written: string[] = [];
  for (const entry of entries) {
    const destination = path.join(base, entry.relative);
    if (entry.kind === "dir") {
      await fs.mkdir(destination, { recursive: true, mode: 0o755 });
    } else {
      await fs.rename(path.join(unpacked, entry.relative), destination);
      if (entry.kind === "file") written.push(envPath(entry.relative));
    }
  }
  return written;
}
