/**
 * Running one command in a bubblewrap sandbox whose `/` is an environment tree.
 *
 * Layout (see `_mounts.ts`): the tree read-write at `/`; the host's `/usr` and the merged-/usr
 * directories read-only; fresh `/proc`, `/dev` and a size-capped tmpfs `/tmp`; a generated minimal
 * `/etc`. Namespaces: all of them (user, mount, PID, IPC, UTS, cgroup, network), so there is no
 * network at all, not even the host's loopback — unless the call has `egress`, whose only way out is
 * the environment's policy proxy (`emulator/egress/`). The command runs as uid 1000 with no capabilities;
 * the user namespace maps it to the emulator's own uid, so files it creates belong to the emulator.
 */
import { spawn } from "node:child_process";
import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import type { Readable, Writable } from "node:stream";
import { exclusive } from "../../confine";
import { createCallCgroup } from "./_cgroup";
import { ETC_DATA, SANDBOX_UID, checkReserved, existingReadOnly, mountArgs, removeMountPoints } from "./_mounts";
import { SandboxError, SandboxNotRunnableError, SandboxUnavailableError } from "./errors";
import { prepareSandboxEgress, SANDBOX_CA_PATH, SANDBOX_SOCKET_PATH, type SandboxEgress, type SandboxEgressSetup } from "./network";
import { prepareHostView, type HostView } from "./_host-view";
import { makeNetworkNamespaces, releaseNetworkNamespace, takeNetworkNamespace } from "./_netns";
import { sandboxOwner } from "./_identity";

/** Resource limits of one call. Every limit applies to the whole call unless it says per process. */
export interface SandboxLimits {
  /** CPU seconds per process (RLIMIT_CPU; SIGXCPU then SIGKILL). Example: `30`. */
  cpuSeconds: number;
  /** Address space per process in bytes (RLIMIT_AS): a memory hog gets ENOMEM / MemoryError. */
  memoryBytes: number;
  /**
   * Memory of the whole call in bytes: every process's resident memory, the `/tmp` tmpfs pages and
   * the page cache it dirties, together (a memory cgroup). Past it the kernel kills in the call and
   * the call is killed: `memoryExceeded`. Without a memory cgroup only `memoryBytes` per process binds.
   * Example: `1024 ** 3`.
   */
  callMemoryBytes: number;
  /** Processes and threads alive at once (pids cgroup when available, and RLIMIT_NPROC). */
  maxProcesses: number;
  /** Bytes kept of stdout and of stderr each; one more byte marks `truncated` and kills the call. */
  maxOutputBytes: number;
  /** Largest file a process may write (RLIMIT_FSIZE), in bytes. */
  maxFileBytes: number;
  /** Size of the `/tmp` tmpfs in bytes. */
  tmpBytes: number;
  /** Open file descriptors per process (RLIMIT_NOFILE). */
  maxOpenFiles: number;
}

/** Defaults, chosen for agent tool calls on a small machine. */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  cpuSeconds: 30, // s of CPU per process; the wall-clock timeout is separate
  memoryBytes: 1024 * 1024 * 1024, // 1 GiB of address space per process
  callMemoryBytes: 1024 * 1024 * 1024, // 1 GiB resident for all the call's processes together
  maxProcesses: 128,
  maxOutputBytes: 1024 * 1024, // 1 MiB per stream
  maxFileBytes: 256 * 1024 * 1024, // 256 MiB
  tmpBytes: 64 * 1024 * 1024, // 64 MiB
  maxOpenFiles: 1024,
});

export interface RunInSandboxOptions {
  /** The environment tree on the host, mounted read-write at `/`. Example: `<data>/trees/env_abc`. */
  root: string;
  /** Command and arguments, resolved inside the sandbox. Example: `["/usr/bin/python3", "-c", "print(1)"]`. */
  argv: readonly string[];
  /** Bytes for the command's stdin; it sees EOF right away when omitted. */
  stdin?: string | Buffer;
  /** Variables added to the sandbox's clean environment (PATH, HOME=/tmp, LANG=C.UTF-8, …). */
  env?: Readonly<Record<string, string>>;
  /** Working directory inside the sandbox; default `/workspace` when the tree has it, else `/`. */
  cwd?: string;
  /** Wall-clock limit in milliseconds; the whole process tree is killed when it passes. */
  timeoutMs: number;
  /** Overrides of `DEFAULT_LIMITS`. */
  limits?: Partial<SandboxLimits>;
  /**
   * Network egress through the environment's policy proxy (`emulator/egress/`). Omitted, or a
   * `"disabled"` network: no network at all, only the sandbox's own loopback.
   */
  egress?: SandboxEgress;
  /**
   * Paths relative to the tree (e.g. `.agents`) mounted read-only over the read-write tree: the
   * targets of repository sources, which an agent must not be able to change.
   */
  readOnly?: readonly string[];
}

export interface SandboxResult {
  /** The command's exit status (128+n when a signal n ended it); null when the sandbox was killed. */
  exitCode: number | null;
  /** The signal that ended the sandbox when we killed it (timeout, output cap), else null. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** stdout or stderr passed `maxOutputBytes`: the kept prefix is returned and the call was killed. */
  truncated: boolean;
  /**
   * The call's processes together passed `callMemoryBytes`: the kernel's OOM killer killed in the
   * call, and the call was killed (unless it had already ended; then `exitCode` is what it returned).
   */
  memoryExceeded: boolean;
  durationMs: number;
}

const BASE_ENV: Readonly<Record<string, string>> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: "/tmp",
  TMPDIR: "/tmp",
  LANG: "C.UTF-8",
  USER: "agent",
  LOGNAME: "agent",
  // Byte-code caches would otherwise appear as files in the environment (`__pycache__/`).
  PYTHONDONTWRITEBYTECODE: "1",
};

let bwrapPath: string | undefined;

/**
 * The bwrap binary: `GENV_BWRAP` when set (a path), else the first `bwrap` in /usr/bin, /usr/local/bin,
 * /bin and PATH. Missing: a SandboxNotRunnableError saying how to get one, or the container (`CONTAINER_HINT`).
 */
export function findBwrap(): string {
  if (bwrapPath) return bwrapPath;
  const configured = process.env.GENV_BWRAP;
  const dirs = ["/usr/bin", "/usr/local/bin", "/bin", ...(process.env.PATH ?? "").split(":").filter(Boolean)];
  const found = configured ? (existsSync(configured) ? configured : undefined) : dirs.map((dir) => path.join(dir, "bwrap")).find((p) => existsSync(p));
  if (!found) {
    const where = configured ? `GENV_BWRAP=${configured} does not exist` : "bwrap is not installed";
    throw new SandboxNotRunnableError(
      process.platform === "linux"
        ? `tool calls run in a bubblewrap sandbox and ${where}: apt-get install bubblewrap, or ${CONTAINER_HINT}`
        : `tool calls run in a bubblewrap sandbox, which needs Linux (this is ${process.platform}): ${CONTAINER_HINT}`,
    );
  }
  bwrapPath = found;
  return found;
}

/** What to do where the sandbox cannot run: the emulator's image (README, "The emulator in a container"). */
export const CONTAINER_HINT =
  "run the emulator in its container instead: `docker build -t genv-emulator .` in the repository, then " +
  "`docker run --security-opt seccomp=unconfined --security-opt systempaths=unconfined --pids-limit 512 " +
  "-p 8765:8765 -e GENV_API_KEY genv-emulator` (README: \"The emulator in a container\")";

/** Runs `argv` in a fresh sandbox over `root`; calls on the same tree run one after another. */
export async function runInSandbox(options: RunInSandboxOptions): Promise<SandboxResult> {
  if (options.argv.length === 0) throw new SandboxError("argv must not be empty", { code: "GENV_BAD_ARGV", status: "INTERNAL" });
  if (!(options.timeoutMs > 0)) throw new SandboxError("timeoutMs must be positive", { code: "GENV_BAD_TIMEOUT", status: "INTERNAL" });
  const bwrap = findBwrap();
  const root = path.resolve(options.root);
  // One run at a time on a tree: a tool call's runs are already in its section and run in it at once.
  return exclusive(root, async () => {
    const stat = statSync(root, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) throw new SandboxError(`environment tree ${root} is not a directory`, { code: "GENV_NO_TREE", status: "INTERNAL" });
    const before = checkReserved(root);
    try {
      return await runOnce(bwrap, root, options);
    } finally {
      // Through the host view (as root) bwrap makes no mount point in the tree.
      removeMountPoints(root, sandboxOwner() ? before : undefined);
    }
  });
}

async function runOnce(bwrap: string, root: string, options: RunInSandboxOptions): Promise<SandboxResult> {
  const egress = options.egress ? await prepareSandboxEgress(options.egress) : undefined;
  const env = { ...BASE_ENV, ...options.env, ...egress?.env };
  const argv = egress ? egress.wrap(options.argv) : options.argv;
  const owner = sandboxOwner();
  const view = owner ? await prepareHostView(root, owner) : undefined;
  return runPrepared(bwrap, root, options, { argv, env, egress, view });
}

async function runPrepared(
  bwrap: string,
  root: string,
  options: RunInSandboxOptions,
  { argv, env, egress, view }: { argv: readonly string[]; env: Record<string, string>; egress?: SandboxEgressSetup; view?: HostView },
): Promise<SandboxResult> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const cwd = options.cwd ?? (lstatSync(path.join(root, "workspace"), { throwIfNoEntry: false })?.isDirectory() ? "/workspace" : "/");
  const callsOwn = egress ? [{ target: SANDBOX_CA_PATH, content: egress.caCertPem }] : [];
  const etcDirectory = view?.etcDirectory(egress ? [SANDBOX_CA_PATH, SANDBOX_SOCKET_PATH] : []);
  const etcFiles = etcDirectory ? callsOwn : [...ETC_DATA, ...callsOwn];
  const statusFd = 3 + etcFiles.length;
  const layout = {
    treeSource: view?.treeSource ?? root,
    tmpBytes: limits.tmpBytes,
    readOnly: await existingReadOnly(root, options.readOnly ?? []),
    etcDirectory,
    etcFiles,
    socket: egress ? { source: egress.socketPath, target: SANDBOX_SOCKET_PATH } : undefined,
  };

  // The pids cgroup also holds bwrap's monitor and the sandbox's pid 1 (the wrapper shell became bwrap),
  // and genv-sandbox-enter, which waits as their parent.
  const cgroup = await createCallCgroup({ maxPids: limits.maxProcesses + (view?.enterHelper ? 3 : 2), memoryBytes: limits.callMemoryBytes });
  // As root through genv-sandbox-enter, a network namespace made ahead joins the call (`_netns.ts`):
  // bwrap keeps it (`--share-net`) instead of making one. Taken after the last await before the
  // spawn, so that a failure between cannot leave its descriptor open.
  const netns = view?.enterHelper ? takeNetworkNamespace() : undefined;
  const bwrapArgs = [
    "--unshare-all", ...(netns === undefined ? [] : ["--share-net"]), "--unshare-user", "--die-with-parent", "--new-session",
    "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_UID), "--hostname", "sandbox",
    "--cap-drop", "ALL", "--clearenv",
    ...Object.entries(env).flatMap(([key, value]) => ["--setenv", key, value]),
    ...mountArgs(layout),
    "--chdir", cwd, "--json-status-fd", String(statusFd),
  ];
  // Options travel on a descriptor (`--args`), so the sandbox's pid 1 shows `bwrap --args N -- cmd`
  // in /proc/1/cmdline rather than the host paths of the layout. genv-sandbox-enter writes them on a
  // pipe of its own (`--args-pipe`: one socket pair less here, ≈ 0.25 ms of the emulator's CPU); the
  // shell way, and options too long for an argument list, take one from here.
  const argsFromHere = !view?.enterHelper || bwrapArgs.reduce((bytes, arg) => bytes + Buffer.byteLength(arg) + 1, 0) > ARGS_ON_COMMAND_LINE_MAX;
  const argsFd = statusFd + 1;
  const netnsFd = argsFromHere ? argsFd + 1 : argsFd; // where the call's genv-sandbox-enter finds the namespace, and closes it
  const bwrapArgv = argsFromHere ? [bwrap, "--args", String(argsFd), "--", ...argv] : [bwrap, ...bwrapArgs, "--", ...argv];
  // genv-sandbox-enter (as root, where it could be built) or a wrapper shell joins the cgroups, sets the
  // rlimits, as root mounts the host view and switches user, and execs bwrap, so bwrap, everything in
  // the sandbox and every fork inherit all of it. RLIMIT_NPROC counts every process of the host uid, and
  // all sandboxes share one: it is the fallback where no pids cgroup binds, and left as inherited where one does.
  const nproc = cgroup?.pidsLimited ? undefined : limits.maxProcesses;
  const [command, ...args] = view?.enterHelper
    ? [
        view.enterHelper,
        ...(cgroup?.joinFiles ?? []).flatMap((file) => ["--join", file]),
        ...rlimitsOf(limits, nproc).flatMap(({ resource, soft, hard }) => ["--rlimit", `${resource}=${soft}:${hard}`]),
        ...(netns === undefined ? [] : ["--netns", String(netnsFd)]),
        ...(argsFromHere ? [] : ["--args-pipe", String(bwrapArgs.length)]),
        ...view.enterArgs, "--", ...bwrapArgv,
      ]
    : shellWay(bwrapArgv, limits, nproc, cgroup?.joinShell, view);

  const started = performance.now();
  const child = (() => {
    try {
      return spawn(command, args, {
        // Without input, /dev/null: at EOF as an ended pipe is, and one socket pair less per call (≈ 0.25 ms of the emulator's CPU).
        stdio: [
          options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe", ...etcFiles.map(() => "pipe" as const), "pipe",
          ...(argsFromHere ? ["pipe" as const] : []), ...(netns === undefined ? [] : [netns]),
        ],
        // Own process group, so that a kill reaches the wrapper/bwrap whatever they became; genv-sandbox-enter
        // makes its own (setsid, first thing): `detached` cost ≈ 1 ms more per spawn (medians of 400 here).
        detached: !view?.enterHelper,
        env: {},
      });
    } finally {
      if (netns !== undefined) releaseNetworkNamespace(netns); // the child has its own copy now
    }
  })();
  if (view?.enterHelper) makeNetworkNamespaces(view.enterHelper);
  const killTree = (): void => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };

  etcFiles.forEach((file, i) => feed(child.stdio[3 + i] as Writable, file.content));
  if (argsFromHere) feed(child.stdio[argsFd] as Writable, bwrapArgs.map((arg) => `${arg}\0`).join(""));
  if (options.stdin !== undefined) feed(child.stdin, options.stdin);

  let timedOut = false;
  let truncated = false;
  const collect = (stream: Readable): Buffer[] => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      const room = limits.maxOutputBytes - size;
      if (chunk.length <= room) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      if (room > 0) chunks.push(chunk.subarray(0, room));
      size = limits.maxOutputBytes;
      if (!truncated) {
        truncated = true;
        killTree();
      }
    });
    return chunks;
  };
  const stdout = collect(child.stdio[1] as Readable);
  const stderr = collect(child.stdio[2] as Readable);
  let status = "";
  (child.stdio[statusFd] as Readable).on("data", (chunk: Buffer) => (status += chunk.toString("utf8")));

  const timer = setTimeout(() => {
    timedOut = true;
    killTree();
  }, options.timeoutMs);
  // The OOM killer took one process; the call goes as a whole, as for the other limits. v1 has no
  // group kill and v1 OOM events need an eventfd, hence a poll; a call shorter than one period costs
  // nothing, and the check after the call catches what ends sooner.
  let memoryExceeded = false;
  let ended = false;
  const oomPoll = cgroup?.memoryLimited
    ? setInterval(() => {
        void cgroup.oomKills().then((kills) => {
          if (kills > 0 && !memoryExceeded && !ended) {
            memoryExceeded = true;
            killTree();
          }
        });
      }, OOM_POLL_MS)
    : undefined;

  const closed = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.on("error", (error) => resolve({ code: null, signal: null, error }));
    child.on("close", (code, signal) => resolve({ code, signal }));
  });
  ended = true;
  clearTimeout(timer);
  clearInterval(oomPoll);
  killTree(); // stray members of the process group, if any
  const killedForMemory = memoryExceeded;
  if (cgroup && !memoryExceeded) memoryExceeded = (await cgroup.oomKills()) > 0;
  await cgroup?.dispose();
  const durationMs = performance.now() - started;

  if (closed.error) throw new SandboxUnavailableError(`could not start the sandbox: ${closed.error.message}`, closed.error);
  const errText = Buffer.concat(stderr).toString("utf8");
  if (!status.includes("child-pid") && !timedOut && !truncated && !memoryExceeded) {
    // bwrap failed before running the command: a host problem, not the command's failure.
    throw new SandboxUnavailableError(`sandbox setup failed: ${errText.trim() || `exit ${closed.code}`}`);
  }
  const killed = timedOut || truncated || killedForMemory;
  return {
    exitCode: killed ? null : closed.code,
    signal: killed ? (closed.signal ?? "SIGKILL") : closed.signal,
    stdout: Buffer.concat(stdout).toString("utf8"),
    stderr: errText,
    timedOut,
    truncated,
    memoryExceeded,
    durationMs,
  };
}

const OOM_POLL_MS = 50;
// bwrap's options on genv-sandbox-enter's command line: far below Linux's 128 KiB for one argument and
// 2 MiB for them all (a call's options are a few KiB: its environment variables and mounts).
const ARGS_ON_COMMAND_LINE_MAX = 64 * 1024;

/**
 * The wrapper where genv-sandbox-enter is not used: one shell joins the cgroups, sets the rlimits with
 * builtins (no `prlimit` exec: ≈ 0.6 ms), as root mounts the host view (in the mount namespace `unshare`
 * gave it) and switches user, and execs bwrap.
 */
function shellWay(bwrapArgv: string[], limits: SandboxLimits, nproc: number | undefined, joinShell: string | undefined, view: HostView | undefined): string[] {
  const ulimits = ulimitShell(limits, nproc);
  const steps = [joinShell, ulimits, view?.mountShell].filter((part): part is string => part !== undefined);
  const inner = [...(view?.switchUser ?? []), ...(ulimits ? bwrapArgv : ["/usr/bin/prlimit", ...prlimitArgs(limits, nproc), "--", ...bwrapArgv])];
  return steps.length > 0 ? [...(view?.unshare ?? []), SHELL, "-c", `${steps.join(" && ")} && exec "$@"`, "genv-sandbox", ...(view?.mountArgs ?? []), ...inner] : inner;
}

/** A call's rlimits, by util-linux `prlimit`'s names for them; `nproc` only where no pids cgroup binds. */
function rlimitsOf(limits: SandboxLimits, nproc: number | undefined): { resource: string; soft: number; hard: number }[] {
  const both = (resource: string, value: number) => ({ resource, soft: value, hard: value });
  return [
    { resource: "cpu", soft: limits.cpuSeconds, hard: limits.cpuSeconds + 1 }, both("as", limits.memoryBytes),
    ...(nproc === undefined ? [] : [both("nproc", nproc)]), both("fsize", limits.maxFileBytes), both("nofile", limits.maxOpenFiles), both("core", 0),
  ];
}

/** A POSIX shell whose `ulimit` we know (dash: `-p` is RLIMIT_NPROC, `-f` counts 512-byte blocks). */
const SHELL = "/bin/sh";
let dash: boolean | undefined;

/** rlimits as util-linux `prlimit` options. */
function prlimitArgs(limits: SandboxLimits, nproc: number | undefined): string[] {
  return rlimitsOf(limits, nproc).map(({ resource, soft, hard }) => `--${resource}=${soft}:${hard}`);
}

/**
 * The same rlimits as dash `ulimit` builtins, or undefined when they can't be said exactly (`/bin/sh`
 * is not dash, or a byte limit is not a whole number of its units: KiB for `-v`, 512 bytes for `-f`).
 */
function ulimitShell(limits: SandboxLimits, nproc: number | undefined): string | undefined {
  dash ??= (() => {
    try {
      return path.basename(realpathSync(SHELL)) === "dash";
    } catch {
      return false;
    }
  })();
  const whole = (n: number, unit: number) => Number.isSafeInteger(n) && n >= 0 && n % unit === 0;
  if (!dash || !whole(limits.memoryBytes, 1024) || !whole(limits.maxFileBytes, 512)) return undefined;
  if (![limits.cpuSeconds, limits.maxProcesses, limits.maxOpenFiles].every((n) => whole(n, 1))) return undefined;
  return [
    // soft first: lowering the hard limit below an unlimited soft one would fail
    `ulimit -St ${limits.cpuSeconds}`, `ulimit -Ht ${limits.cpuSeconds + 1}`, `ulimit -v ${limits.memoryBytes / 1024}`,
    ...(nproc === undefined ? [] : [`ulimit -p ${nproc}`]), `ulimit -f ${limits.maxFileBytes / 512}`, `ulimit -n ${limits.maxOpenFiles}`, "ulimit -c 0",
  ].join(" && ");
}

function feed(stream: Writable | null, data: string | Buffer): void {
  if (!stream) return;
  stream.on("error", () => undefined); // EPIPE when the command never reads its input
  stream.end(data);
}
