/**
 * Network namespaces made ahead of the calls that use them, one per call, as root (the calls that go
 * through genv-sandbox-enter, `_enter.ts`).
 *
 * bwrap makes a call's network namespace itself (`--unshare-net`) and brings its loopback up over
 * netlink: ≈ 0.5 ms of CPU in every call's start, on its critical path. Here a small process of ours
 * (`genv-sandbox-enter --make-netns`) makes the next ones while calls run; the emulator holds each
 * open on a descriptor (`/proc/<maker>/ns/net`, opened close-on-exec, so no other child inherits it),
 * hands one to a call's genv-sandbox-enter, which joins it before starting bwrap with `--share-net`,
 * and closes its own copy once the call is started. The namespace goes with the call's last process.
 *
 * **One namespace, one call.** A namespace kept for the calls of an environment (the other way weighed)
 * would carry a call's sockets into the next: a listening socket whose descriptor sits in a unix
 * socket's queue that no process holds (SCM_RIGHTS in a cycle) outlives every process of its call
 * until the kernel's unix garbage collector runs — measured here, the next call connected to a TCP
 * listener and to an abstract unix socket that the previous one had left so. A hook after an agent's
 * call would find its egress port (127.0.0.1:3128) taken. A namespace used once has nothing of
 * another call in it, as with bwrap's own.
 *
 * Made by root in the host's user namespace, the namespace belongs to no sandbox: the sandbox's
 * processes hold no capability over it (no `ip link add`, no write of a `net.*` sysctl), as in bwrap's,
 * where they dropped theirs. Nothing is bind-mounted: the namespaces live on the emulator's
 * descriptors and the maker dies with the emulator (PR_SET_PDEATHSIG, and its stdin's end), so a
 * killed emulator leaves none. When none is ready (the first call, calls faster than the maker), the
 * call has bwrap make its own, as before.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";

const READY = 2; // namespaces kept made: one for the next call, one for a call in parallel

let maker: ChildProcess | undefined;
let failed = false;
let asked = false; // one namespace is being made
const ready: number[] = [];

/**
 * A fresh network namespace with its loopback up, open on a descriptor that the caller passes to one
 * call and then closes; undefined when none is ready.
 */
export function takeNetworkNamespace(): number | undefined {
  return ready.shift();
}

/**
 * Has the next namespaces made, by `helper` (genv-sandbox-enter): called once a call has started, so
 * that the asking is off its path too.
 */
export function makeNetworkNamespaces(helper: string): void {
  refill(helper);
}

function refill(helper: string): void {
  if (failed || asked || ready.length >= READY) return;
  const child = (maker ??= startMaker(helper));
  if (!child?.stdin?.writable) return;
  asked = true;
  child.stdin.write("n");
}

function startMaker(helper: string): ChildProcess | undefined {
  const child = spawn(helper, ["--make-netns"], { stdio: ["pipe", "pipe", "ignore"], env: {} });
  const stop = (): void => {
    failed = true;
    asked = false;
    maker = undefined;
  };
  child.on("error", stop);
  child.on("exit", stop);
  child.stdin.on("error", stop);
  child.stdout.on("data", (made: Buffer) => {
    asked = false;
    // Each byte answers one request, and there is one at a time: the maker is in the namespace now.
    if (made.length !== 1 || child.pid === undefined) return stop();
    try {
      ready.push(openSync(`/proc/${child.pid}/ns/net`, "r"));
    } catch {
      return stop();
    }
    refill(helper);
  });
  // Neither the maker nor its pipes keep the emulator alive.
  child.unref();
  for (const stream of [child.stdin, child.stdout]) (stream as unknown as { unref?: () => void }).unref?.();
  return child;
}

/** Closes the emulator's descriptor of a namespace once the call it was given to has started (or failed to). */
export function releaseNetworkNamespace(descriptor: number): void {
  try {
    closeSync(descriptor);
  } catch {
    // closed already
  }
}
