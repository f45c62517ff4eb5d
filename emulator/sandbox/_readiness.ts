/**
 * Whether this machine can run the sandbox at all, asked once before the first tool call (and at
 * `genv serve`'s start, to warn): a sandbox running `/bin/true` over an empty tree, the whole path a
 * tool call takes (cgroups, as root the host view and the switch of user, bwrap's namespaces).
 *
 * Where it cannot, every call would fail the same way — no bubblewrap (macOS, Windows), no user
 * namespaces (a container's default seccomp profile), root without CAP_SYS_ADMIN (a container's root,
 * which cannot make the host view's mount namespace) — so the answer is a `SandboxNotRunnableError`
 * (FAILED_PRECONDITION: not retried) that names the cause and the fix, rather than a 503 per call
 * after the hooks have run in vain.
 *
 * Root without CAP_SYS_ADMIN fails closed: falling back to the non-root layout would still keep agent
 * code off host root, but would show the data directory's path in the sandbox's mountinfo, a
 * promise the root path makes (`_host-view.ts`); the fix — run as a non-root user, the image's
 * default — costs one flag, so the emulator says so instead of weakening the sandbox silently.
 *
 * A success is kept for the process's life; a failure is asked again on the next call (bubblewrap may
 * have been installed since), calls waiting together share one probe.
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { CONTAINER_HINT, findBwrap, runInSandbox } from "./bwrap";
import { SandboxError, SandboxNotRunnableError } from "./errors";
import { giveToSandbox, sandboxOwner } from "./_identity";

const execFileAsync = promisify(execFile);

const PROBE_TIMEOUT_MS = 30_000; // a loaded machine is slow, not broken: a probe that times out counts as runnable

export type SandboxReadiness = { runnable: true } | { runnable: false; reason: string };

let ready = false;
let pending: Promise<SandboxReadiness> | undefined;

/** Whether tool calls can run here; `reason` says why not and what to do. */
export function sandboxReadiness(): Promise<SandboxReadiness> {
  if (ready) return Promise.resolve({ runnable: true });
  pending ??= probe().then(
    (answer) => {
      ready = answer.runnable;
      pending = undefined;
      return answer;
    },
    (error: unknown) => {
      pending = undefined;
      throw error;
    },
  );
  return pending;
}

/** Throws the `SandboxNotRunnableError` of `sandboxReadiness` when tool calls cannot run here. */
export async function assertSandboxRunnable(): Promise<void> {
  const answer = await sandboxReadiness();
  if (!answer.runnable) throw new SandboxNotRunnableError(answer.reason);
}

async function probe(): Promise<SandboxReadiness> {
  try {
    findBwrap();
  } catch (error) {
    return { runnable: false, reason: (error as Error).message };
  }
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "genv-sandbox-probe-"));
  try {
    const tree = path.join(scratch, "tree");
    await fs.mkdir(tree);
    await giveToSandbox(tree);
    const result = await runInSandbox({ root: tree, argv: ["/bin/true"], timeoutMs: PROBE_TIMEOUT_MS });
    if (result.timedOut || result.exitCode === 0) return { runnable: true };
    // bwrap failed after it started the sandbox's pid 1 (mounting /proc, say): its message is on stderr.
    return { runnable: false, reason: await diagnose(result.stderr.trim() || `/bin/true in the sandbox exited with ${result.exitCode ?? result.signal}`) };
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    if (error instanceof SandboxNotRunnableError) return { runnable: false, reason: error.message };
    return { runnable: false, reason: await diagnose(error.message) };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** The reason a sandbox could not start (`failure`: what bwrap or the wrapper said), with what to do about it. */
async function diagnose(failure: string): Promise<string> {
  if (sandboxOwner() && !(await canUnshareMount())) {
    return (
      "the emulator runs as root but may not create a mount namespace (no CAP_SYS_ADMIN, as for root in a container), " +
      "which the sandbox's host view needs as root (emulator/sandbox/README.md): run it as a non-root user instead — in the " +
      "emulator's image, its default user (genv, uid 10001): drop `--user 0`"
    );
  }
  if (/Can't mount proc/.test(failure)) {
    return (
      `bubblewrap cannot mount the sandbox's /proc here (${failure}): in a container, start it with ` +
      "`--security-opt seccomp=unconfined --security-opt systempaths=unconfined` (README: \"The emulator in a container\")"
    );
  }
  if (/No permissions to create new namespace|Operation not permitted|Permission denied/.test(failure)) {
    return (
      `bubblewrap cannot create the sandbox's namespaces here (${failure}). In a container, start it with ` +
      "`--security-opt seccomp=unconfined --security-opt systempaths=unconfined` (README: \"The emulator in a container\"); " +
      "on a host, allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 and later " +
      `kernel.apparmor_restrict_unprivileged_userns=0), or ${CONTAINER_HINT}`
    );
  }
  return `the sandbox cannot start here: ${failure}`;
}

async function canUnshareMount(): Promise<boolean> {
  try {
    await execFileAsync("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/true"], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
