/**
 * Who the sandbox runs as on the host.
 *
 * An emulator running as root must not lend root to agent code: bubblewrap's user namespace maps the
 * sandbox's uid 1000 to the uid that starts bwrap, and root's processes may write kernel settings
 * (`/proc/sys`) and every host file. So, as root, the sandbox runs as a host uid and gid that own
 * nothing (`GENV_SANDBOX_UID` / `GENV_SANDBOX_GID`, default 1,000,000,000, far above the subordinate
 * ranges `useradd` hands out), bwrap is started as that user, and the trees are given to it so that the
 * agent can write its own tree — and, not being mounted, nothing else. Run as any other user, the
 * emulator's own uid is the sandbox's: it has nothing more to lend.
 */
import { readFileSync } from "node:fs";
import { chownTree, type Owner } from "../../confine";
import { SandboxUnavailableError } from "./errors";

export const DEFAULT_SANDBOX_ID = 1_000_000_000;

let cached: Owner | null | undefined;

/**
 * The host uid and gid the sandbox runs as when that is not the emulator's own (it runs as root);
 * undefined otherwise.
 */
export function sandboxOwner(): Owner | undefined {
  if (cached === undefined) cached = process.getuid?.() === 0 ? ownerFromEnvironment() : null;
  return cached ?? undefined;
}

function ownerFromEnvironment(): Owner {
  const uid = idFrom("GENV_SANDBOX_UID", DEFAULT_SANDBOX_ID);
  const gid = idFrom("GENV_SANDBOX_GID", uid);
  const taken = passwdEntryOf(uid);
  if (taken) {
    throw new SandboxUnavailableError(
      `GENV_SANDBOX_UID: uid ${uid} belongs to the host user "${taken}"; the sandbox needs a uid that owns nothing: choose an unused one`,
    );
  }
  return { uid, gid };
}

function idFrom(variable: string, fallback: number): number {
  const raw = process.env[variable];
  if (raw === undefined || raw === "") return fallback;
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id <= 0 || id >= 2 ** 32 - 1) {
    throw new SandboxUnavailableError(`${variable}: must be a uid/gid above 0 (got ${JSON.stringify(raw)}); for example ${DEFAULT_SANDBOX_ID}`);
  }
  return id;
}

function passwdEntryOf(uid: number): string | undefined {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const [name, , id] = line.split(":");
      if (id !== undefined && Number(id) === uid) return name;
    }
  } catch {
    // no /etc/passwd: nothing to collide with
  }
  return undefined;
}

/**
 * Gives a tree that the emulator built by itself (a test's, `genv hooks test`'s) to the sandbox's
 * host user, so that the agent can change its files; nothing to do when that user is the emulator's.
 */
export async function giveToSandbox(root: string): Promise<void> {
  const owner = sandboxOwner();
  if (owner) await chownTree(root, owner);
}
