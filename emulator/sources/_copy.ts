/**
 * Copying a directory (a repository checkout, a registered skill) into an environment being built,
 * under the same rules as inline sources: parents must be real directories, nothing is overwritten,
 * the limits hold. Symlinks are kept only when they resolve inside the copied directory; one that
 * points outside (absolute, or climbing out with `..`) refuses the source.
 */
import { constants as fsConstants, promises as fs } from "node:fs";
import path from "node:path";
import { formatIssuePath, type Issue } from "../../client/issues";
import { invalidArgument } from "../errors";
import { symlinkStaysInside, walk, withTree, type EntryKind } from "../../confine";
import { ensureDirectories } from "./_build-dirs";

/** Files and bytes written so far while building one environment. */
export interface Budget {
  files: number;
  bytes: number;
  maxFiles: number;
  maxBytes: number;
}

export function spend(budget: Budget, bytes: number): void {
  budget.files += 1;
  budget.bytes += bytes;
  if (budget.files > budget.maxFiles) throw invalidArgument(`sources: more than ${budget.maxFiles} files; split the environment or raise --max-files`);
  if (budget.bytes > budget.maxBytes) throw invalidArgument(`sources: more than ${budget.maxBytes} bytes in total; raise --max-bytes or use fewer files`);
}

/** Copies `from` to `root/target`, leaving out entries named in `skip` (e.g. `.git`); `at` is the source's path, `["sources", 2]`. */
export async function copyTree(
  from: string,
  root: string,
  target: string,
  budget: Budget,
  at: Issue["path"],
  skip: ReadonlySet<string> = new Set(),
): Promise<void> {
  const field = formatIssuePath([...at, "source"]);
  const targetField = formatIssuePath([...at, "target"]);
  const entries: { relative: string; kind: EntryKind; sizeBytes: number }[] = [];
  await withTree(from, async (directory) => {
    for await (const entry of walk(directory, { skip })) entries.push({ relative: entry.relative, kind: entry.kind, sizeBytes: entry.stat.size });
  });
  for (const entry of entries) {
    if (entry.kind === "symlink" && !(await symlinkStaysInside(from, entry.relative))) {
      throw invalidArgument(`${field}: symlink "${entry.relative}" points outside the copied directory; such links are refused`);
    }
  }
  const base = await ensureDirectories(root, target.split("/"), targetField);
  for (const entry of entries) {
    const source = path.join(from, entry.relative);
    const destination = path.join(base, entry.relative);
    try {
      if (entry.kind === "special") {
        continue; // sockets, FIFOs and devices are not content
      } else if (entry.kind === "directory") {
        await ensureDirectories(base, entry.relative.split("/"), targetField);
      } else if (entry.kind === "symlink") {
        await fs.symlink(await fs.readlink(source), destination);
      } else {
        spend(budget, entry.sizeBytes);
        await fs.copyFile(source, destination, fsConstants.COPYFILE_EXCL | fsConstants.COPYFILE_FICLONE);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") {
        throw invalidArgument(`${targetField}: "${target}/${entry.relative}" already exists in the environment`);
      }
      throw error;
    }
  }
}
