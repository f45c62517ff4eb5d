/**
 * What the sandbox is shown of the host when the emulator runs as root: the tree from a neutral
 * path, and bwrap started as the sandbox's own host user (`_identity.ts`).
 *
 * A bind mount shows its source's path in `/proc/self/mountinfo` (the path inside its file system),
 * which would give away the data directory and the environment id. (The egress socket lives in a
 * tmpfs of its own for the same reason: `emulator/egress/proxy.ts`, `socketDirectory`. An overlay
 * cannot serve it: a connect through an overlay does not reach the listener.)
 * An overlay is a file system of its own: its root shows as `/`, and its options show the layer
 * paths exactly as given — relative ones here (`upperdir=.`, `lowerdir=../.genv-overlay-…/lower`),
 * resolved from the directory the mount is made in. So, per call, as root:
 *
 *   unshare --mount --propagation private   (a mount namespace of its own, gone with the call)
 *     cd <tree> && mount -t overlay -o lowerdir=<empty>,upperdir=.,workdir=<work>,volatile <base>/tree
 *     exec setpriv --reuid=<uid> --regid=<gid> --clear-groups -- bwrap …
 *
 * bwrap, unprivileged, binds `<base>/tree` at `/`; the agent's writes go straight to the tree (the
 * upper layer). The lower layer holds only the empty directories bwrap mounts over (`/usr`, `/proc`,
 * …, `mountPointNames`): they are there in the view without being made in the tree, where bwrap
 * would otherwise make them and `removeMountPoints` remove them at every call (about 1 ms of rmdirs
 * on ext4). Mounted over for the whole call, they are never written, so nothing is ever copied up.
 * `<base>` is a root-owned directory any user can traverse, its mounts private to each call's
 * namespace, so calls in parallel share it.
 */
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { removeTree, type Owner } from "../../confine";
import { sandboxEnterHelper } from "./_enter";
import { preparedEtc } from "./_etc";
import { mountPointNames } from "./_mounts";
import { sandboxOwner } from "./_identity";
import { SandboxUnavailableError } from "./errors";

const UNSHARE = "/usr/bin/unshare";
const SETPRIV = "/usr/bin/setpriv";

export interface HostView {
  /** The command that gives the wrapper shell a mount namespace of its own. */
  unshare: string[];
  /** Shell text for the wrapper: mounts the view; takes its four arguments (`mountArgs`) and shifts them. */
  mountShell: string;
  mountArgs: string[];
  /** The command that becomes the sandbox's host user before bwrap (or prlimit) runs. */
  switchUser: string[];
  /** Where bwrap finds the tree. */
  treeSource: string;
  /**
   * genv-sandbox-enter (`_enter.ts`) when it could be had: one program in place of `unshare`, the
   * wrapper shell's mount and `setpriv`. It takes `enterArgs` after its options.
   */
  enterHelper?: string;
  /** TREE LOWER WORK TARGET UID GID, as the helper takes them. */
  enterArgs: string[];
  /** The sandbox's `/etc` prepared as one directory (`_etc.ts`) with empty files at `placeholders`, if it can be. */
  etcDirectory(placeholders: readonly string[]): string | undefined;
}

let base: Promise<string> | undefined;

/** The privileged set-up of one call over `root`. */
export async function prepareHostView(root: string, owner: Owner): Promise<HostView> {
  const mountBase = await (base ??= mountBaseDirectory());
  // Beside the tree, on its file system (an overlay's work directory must share the upper one's),
  // one per tree and kept: calls on a tree run one at a time, and a mount empties its work directory
  // itself. `removeHostView` (with the tree) and the data directory's sweep remove it.
  const scratch = hostViewDirectory(root);
  // Synchronous: once made, each is one syscall per call, not worth two thread-pool round trips.
  ensureLowerLayer(path.join(scratch, "lower"));
  mkdirSync(path.join(scratch, "work"), { recursive: true, mode: 0o700 });
  const relative = (to: string, from: string) => path.relative(from, to) || ".";
  const mountArgs = [root, relative(path.join(scratch, "lower"), root), relative(path.join(scratch, "work"), root), path.join(mountBase, "tree")];
  return {
    unshare: [UNSHARE, "--mount", "--propagation", "private", "--"],
    // `volatile` as genv-sandbox-enter mounts it (enter.c, `mount_overlay`): the previous call's marker
    // removed first, the option dropped on a kernel without it.
    mountShell:
      'cd "$1" && rm -f "$3/work/incompat/volatile/dirty" && { rmdir "$3/work/incompat/volatile" "$3/work/incompat" 2>/dev/null || :; } && ' +
      '{ mount -t overlay genv-tree -o "lowerdir=$2,upperdir=.,workdir=$3,volatile" "$4" 2>/dev/null || ' +
      'mount -t overlay genv-tree -o "lowerdir=$2,upperdir=.,workdir=$3" "$4"; } && shift 4',
    mountArgs,
    switchUser: [SETPRIV, `--reuid=${owner.uid}`, `--regid=${owner.gid}`, "--clear-groups", "--inh-caps=-all", "--"],
    treeSource: path.join(mountBase, "tree"),
    enterHelper: await sandboxEnterHelper(mountBase),
    enterArgs: [...mountArgs, String(owner.uid), String(owner.gid)],
    etcDirectory: (placeholders) => preparedEtc(mountBase, placeholders),
  };
}

/**
 * The overlay's lower layer at `lower`: the mount points, made whole or not at all (in a staging
 * directory renamed into place), so that one found is complete.
 */
function ensureLowerLayer(lower: string): void {
  if (existsSync(lower)) return;
  mkdirSync(path.dirname(lower), { recursive: true, mode: 0o700 });
  const staging = `${lower}.${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    mkdirSync(staging, { mode: 0o700 });
    for (const name of mountPointNames()) mkdirSync(path.join(staging, name), { mode: 0o755 });
    renameSync(staging, lower);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(lower)) throw error; // else made meanwhile by a call on the same tree's view
  }
}

/**
 * genv-sandbox-enter's path when calls enter the sandbox through it (as root, where it could be built);
 * undefined for the shell way.
 */
export async function sandboxEnterPath(): Promise<string | undefined> {
  if (!sandboxOwner()) return undefined;
  return sandboxEnterHelper(await (base ??= mountBaseDirectory()));
}

/**
 * The overlay's work directories of the tree at `root`, beside it. Their name shows in the sandbox's
 * mount table (`lowerdir=../.genv-overlay-…/lower`), so it is a keyed hash of the tree's name, not the
 * name (an environment id): the key is this process's, and the data directory's sweep removes a
 * previous process's directories.
 */
export function hostViewDirectory(root: string): string {
  const name = createHmac("sha256", HOST_VIEW_KEY).update(path.basename(root)).digest("hex").slice(0, 20);
  return path.join(path.dirname(root), `.genv-overlay-${name}`);
}

const HOST_VIEW_KEY = randomBytes(32);

/** Removes what the host view of the tree at `root` keeps beside it. */
export async function removeHostView(root: string): Promise<void> {
  await removeTree(hostViewDirectory(root));
}

/**
 * A directory that only root can change and anyone can traverse, with the mount point. Under
 * `/run` where there is one; the temporary directory otherwise, after checking nobody else made it.
 */
async function mountBaseDirectory(): Promise<string> {
  for (const candidate of ["/run/genv-sandbox", path.join(os.tmpdir(), "genv-sandbox-root")]) {
    try {
      await fs.mkdir(path.join(candidate, "tree"), { recursive: true, mode: 0o755 });
      const stat = await fs.lstat(candidate);
      if (stat.isDirectory() && stat.uid === 0 && (stat.mode & 0o022) === 0) return candidate;
    } catch {
      // not here
    }
  }
  throw new SandboxUnavailableError("no root-owned directory for the sandbox's mount points: create /run/genv-sandbox (mode 0755, owned by root)");
}
