/**
 * The sandbox's mount layout and the bookkeeping that keeps the environment tree clean.
 *
 * The tree is bind-mounted read-write at `/`, so every mount bwrap stacks on top of it (`/usr`,
 * `/proc`, …) needs a mount-point directory at `/`. As root, the tree is shown through an overlay
 * whose lower layer holds those directories (`_host-view.ts`), so nothing is made in the tree. Bound
 * directly, bwrap makes them *inside the tree*, and we remove them again after the call (only while
 * they are empty, and only at the reserved names); calls on a tree run in its exclusive section
 * (`confine/exclusive.ts`, in bwrap.ts) so that one call's clean-up never runs while another call
 * still has them mounted.
 * Binding the tree's top-level entries one by one onto a tmpfs `/` would avoid the mount points but
 * lose every new top-level file or directory the agent creates (`echo > /main2.py`), so we don't.
 */
import { existsSync, lstatSync, rmdirSync } from "node:fs";
import * as path from "node:path";
import { release, resolve, withTree } from "../../confine";
import { ReservedPathError } from "./errors";

/** Host directories of the merged-/usr layout bound read-only at the same place (when present). */
const SYSTEM_DIRS = ["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"] as const;

/**
 * Top-level names the sandbox mounts over. Inside a call they show the sandbox's own content; in the
 * tree they must be absent or directories (a source targeted at `etc/x` is shadowed during calls).
 */
export const RESERVED_TOP_LEVEL: readonly string[] = [...SYSTEM_DIRS, "proc", "dev", "tmp", "etc"];

let mountedOver: readonly string[] | undefined;

/** The top-level names this host's sandbox mounts over: `RESERVED_TOP_LEVEL` less the system directories it lacks. */
export function mountPointNames(): readonly string[] {
  return (mountedOver ??= RESERVED_TOP_LEVEL.filter((name) => !(SYSTEM_DIRS as readonly string[]).includes(name) || existsSync(`/${name}`)));
}

/** uid/gid the command runs as inside the sandbox's user namespace (mapped to the emulator's own). */
export const SANDBOX_UID = 1000;

const PASSWD = `agent:x:${SANDBOX_UID}:${SANDBOX_UID}:agent:/tmp:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`;
const GROUP = `agent:x:${SANDBOX_UID}:\nnogroup:x:65534:\n`;
const HOSTS = "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost\n";

/** Files of the generated `/etc`, written from their content (bwrap reads each from a descriptor). */
export const ETC_DATA: ReadonlyArray<EtcFile> = [
  { target: "/etc/passwd", content: PASSWD },
  { target: "/etc/group", content: GROUP },
  { target: "/etc/hosts", content: HOSTS },
];

/** The host's files the sandbox's `/etc` carries, as they are. */
export const HOST_ETC_FILES = ["/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime"] as const;

export interface EtcFile {
  target: string;
  content: string;
}

export interface Layout {
  /** Where bwrap finds the tree: the tree itself, or the neutral view of it (`_host-view.ts`). */
  treeSource: string;
  tmpBytes: number;
  /** Tree-relative paths bound read-only over the read-write tree (checked: real, not symlinks). */
  readOnly: readonly string[];
  /** `/etc` as one prepared directory (`_etc.ts`), bound read-only; without it, generated in a tmpfs. */
  etcDirectory?: string;
  /**
   * Files of `/etc` from content, read by bwrap from descriptors `3`, `4`, … in this order: `ETC_DATA`
   * and the call's own when `/etc` is generated, only the call's own over a prepared one.
   */
  etcFiles: readonly EtcFile[];
  /** The egress proxy's socket, bound at `/etc/genv-egress/proxy.sock`. */
  socket?: { source: string; target: string };
}

/** bwrap arguments for the layout. */
export function mountArgs(layout: Layout): string[] {
  const args = ["--bind", layout.treeSource, "/"];
  for (const relative of layout.readOnly) args.push("--ro-bind", path.join(layout.treeSource, relative), `/${relative}`);
  for (const dir of SYSTEM_DIRS) if (mountPointNames().includes(dir)) args.push("--ro-bind", `/${dir}`, `/${dir}`);
  args.push("--proc", "/proc", "--dev", "/dev", "--size", String(layout.tmpBytes), "--perms", "1777", "--tmpfs", "/tmp");
  // A minimal /etc: generated passwd/group/hosts, the loader cache and the alternatives symlinks
  // (e.g. /usr/bin/awk → /etc/alternatives/awk). Nothing else of the host's /etc. A prepared one is
  // read-only as bound; a generated one is a tmpfs, filled, then remounted read-only.
  const prepared = layout.etcDirectory;
  if (prepared) args.push("--ro-bind", prepared, "/etc");
  else args.push("--perms", "0755", "--tmpfs", "/etc");
  layout.etcFiles.forEach((file, i) => args.push("--ro-bind-data", String(3 + i), file.target));
  if (!prepared) for (const hostFile of HOST_ETC_FILES) if (existsSync(hostFile)) args.push("--ro-bind", hostFile, hostFile);
  if (layout.socket) args.push("--ro-bind", layout.socket.source, layout.socket.target);
  if (!prepared) args.push("--remount-ro", "/etc");
  return args;
}

/**
 * The read-only paths that exist in the tree as real files or directories, reached without a
 * symlink on the way: bwrap would follow one while binding, possibly out of the tree.
 */
export async function existingReadOnly(root: string, readOnly: readonly string[]): Promise<string[]> {
  if (readOnly.length === 0) return []; // most trees have none: no need to open this one
  const existing: string[] = [];
  await withTree(root, async (tree) => {
    for (const relative of readOnly) {
      if (relative === "" || relative.split("/").some((segment) => segment === ".." || segment === "." || segment === "")) continue;
      const resolved = await resolve(tree, relative.split("/"), { followSymlinks: false }).catch(() => undefined);
      if (!resolved) continue;
      await release(resolved, tree);
      existing.push(relative);
    }
  });
  return existing;
}

// The two below run around every call, eleven names each: synchronous, since a thread-pool round
// trip per name cost more than a millisecond of a call that takes about ten.

/**
 * Refuses a tree whose reserved names hold files or symlinks (bwrap would follow them); answers the
 * reserved names that are directories in it now.
 */
export function checkReserved(root: string): string[] {
  const present: string[] = [];
  for (const name of RESERVED_TOP_LEVEL) {
    const stat = lstatSync(path.join(root, name), { throwIfNoEntry: false });
    if (stat && !stat.isDirectory()) throw new ReservedPathError(name);
    if (stat) present.push(name);
  }
  return present;
}

/**
 * Removes the mount points bwrap left in the tree (empty directories at reserved names only): at
 * `names`, by default all of them. Through the host view (as root) bwrap makes none, and a call cannot
 * make a reserved name that was not there (each is mounted over for the whole call): there, the names
 * `checkReserved` found before the call are all there can be, most often none, where eleven failed
 * `rmdir`s cost ≈ 0.1 ms of every call.
 */
export function removeMountPoints(root: string, names: readonly string[] = RESERVED_TOP_LEVEL): void {
  for (const name of names) {
    try {
      // rmdir neither follows symlinks nor removes non-empty directories: agent files stay.
      rmdirSync(path.join(root, name));
    } catch {
      // absent, or not empty
    }
  }
}
