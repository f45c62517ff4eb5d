/**
 * The sandbox's `/etc` as one directory, bound read-only in a single mount. The generated layout
 * (`mountArgs` without it) takes about fifteen: a tmpfs, a file and a bind per generated entry, two per
 * host file, a remount — about 0.8 ms of every call. The content is the same: the generated passwd,
 * group and hosts, copies of the host's `ld.so.cache`, `alternatives/` (its links as links) and
 * `localtime`, and empty files where the call binds something of its own (the egress socket and CA).
 *
 * Made as root in the mount base (`_host-view.ts`, root's own), under a name that hashes everything in
 * it; a changed host file (a package installed, `ldconfig`) gives a new name, found by three `lstat`s
 * per call. Old ones stay until the mount base goes (a tmpfs under /run): an emulator still running
 * may be using one.
 */
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync, type Stats } from "node:fs";
import path from "node:path";
import { ETC_DATA, HOST_ETC_FILES } from "./_mounts";

const made = new Map<string, string>();

/**
 * The prepared `/etc` in `base`, with empty files at `placeholders` (absolute paths under `/etc`, for
 * the call's own binds); undefined when it cannot be made there (the caller generates `/etc` instead).
 */
export function preparedEtc(base: string, placeholders: readonly string[]): string | undefined {
  const host = HOST_ETC_FILES.map((file) => ({ file, stat: lstatSync(file, { throwIfNoEntry: false }) }));
  const key = JSON.stringify([base, placeholders, host.map(({ file, stat }) => (stat ? [file, stat.ino, stat.size, stat.mtimeMs] : [file]))]);
  const known = made.get(key);
  if (known) return known;
  const name = `etc-${createHash("sha256").update(JSON.stringify(ETC_DATA)).update(key).digest("hex").slice(0, 16)}`;
  const directory = path.join(base, name);
  try {
    if (!isOurs(lstatSync(directory, { throwIfNoEntry: false }))) build(directory, host, placeholders);
  } catch {
    return undefined;
  }
  made.set(key, directory);
  return directory;
}

function build(directory: string, host: { file: string; stat: Stats | undefined }[], placeholders: readonly string[]): void {
  const staging = `${directory}.${process.pid}-${randomBytes(4).toString("hex")}`;
  const at = (etcPath: string) => path.join(staging, path.relative("/etc", etcPath));
  try {
    mkdirSync(staging, { mode: 0o755 });
    for (const file of ETC_DATA) writeFileSync(at(file.target), file.content, { mode: 0o644 });
    for (const { file, stat } of host) if (stat) copyEntry(file, stat, at(file));
    for (const placeholder of placeholders) {
      mkdirSync(path.dirname(at(placeholder)), { recursive: true, mode: 0o755 });
      writeFileSync(at(placeholder), "", { mode: 0o644 });
    }
    renameSync(staging, directory);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another emulator made the same one first: the name says the content is the same.
    if (!isOurs(lstatSync(directory, { throwIfNoEntry: false }))) throw error;
  }
}

/** A file, a link (as a link: its text, never its target) or a directory of those, copied from the host. */
function copyEntry(from: string, stat: Stats, to: string): void {
  if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else if (stat.isFile()) copyFileSync(from, to);
  else if (stat.isDirectory()) {
    mkdirSync(to, { mode: 0o755 });
    for (const name of readdirSync(from)) copyEntry(path.join(from, name), lstatSync(path.join(from, name)), path.join(to, name));
  }
}

/** A directory of this process's user that nobody else can change. */
function isOurs(stat: Stats | undefined): boolean {
  return stat !== undefined && stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}
