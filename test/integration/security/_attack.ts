/**
 * Shared pieces of the attack tests (test/integration/security/): an emulator on a real data directory
 * whose internal errors are counted rather than thrown, small HTTP helpers, the in-sandbox symlink
 * swapper (renameat2 RENAME_EXCHANGE in a loop) and a bounded race runner that hammers a host-side
 * route while it swaps.
 *
 * Every loop here is bounded both in count and in seconds.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";
import type { EmulatorOptions } from "../../../emulator/server";

export interface AttackEmulator extends TestEmulator {
  /** Errors the emulator rendered as 500 INTERNAL (kept, not thrown: a race must not crash the run). */
  internalErrors: unknown[];
}

const cleanups: (() => void)[] = [];

/** A temporary host directory, removed after the test file. */
export function hostDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `genv-attack-${prefix}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An emulator on a real data directory (`<dataDir>/trees/<id>/` is each environment's tree), closed after the test file. */
export async function startAttackEmulator(options: Partial<EmulatorOptions> = {}): Promise<AttackEmulator> {
  const internalErrors: unknown[] = [];
  const dataDir = options.dataDir ?? hostDir("data");
  const emulator = await startTestEmulator({
    ...options,
    dataDir,
    onInternalError: (error) => {
      internalErrors.push(error);
    },
  });
  // Idempotent, so that the clean-up below can close it before removing its data directory.
  const close = emulator.close;
  let closing: Promise<void> | undefined;
  const attack = Object.assign(emulator, { internalErrors, close: () => (closing ??= close()) });
  emulators.push(attack);
  return attack;
}

const emulators: AttackEmulator[] = [];

afterAll(async () => {
  await Promise.all(emulators.splice(0).map((emulator) => emulator.close()));
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

export function inlineFiles(files: Record<string, string>): { type: "inline"; target: string; content: string }[] {
  return Object.entries(files).map(([target, content]) => ({ type: "inline", target, content }));
}

/** CreateEnvironment; fails the test unless it answers 200. */
export async function createEnvironment(emulator: TestEmulator, body: Record<string, unknown>, key: string = TEST_KEY): Promise<string> {
  const created = await emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify(body), key, signal: AbortSignal.timeout(30_000) });
  if (created.status !== 200) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** `:executeTool` over HTTP. */
export function executeTool(
  emulator: TestEmulator,
  id: string,
  toolCall: { name: string; args: Record<string, unknown> },
  options: { key?: string; timeoutMs?: number } = {},
): Promise<{ status: number; body: any }> {
  return emulator.json(`/v1beta/environments/${id}:executeTool`, {
    method: "POST",
    body: JSON.stringify({ tool_call: toolCall }),
    key: options.key,
    signal: AbortSignal.timeout(options.timeoutMs ?? 90_000),
  });
}

export const python = (code: string) => ({ name: "code_execution", args: { code, language: "python" } });
export const bash = (code: string) => ({ name: "code_execution", args: { code, language: "bash" } });

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `promise` at most `ms` (the timer is cleared, so it never keeps the process alive). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` every 25 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 10_000 && Date.now() < deadline; i++) {
    if (check()) return true;
    await sleep(25);
  }
  return check();
}

// ── the swapper ─────────────────────────────────────────────────────────────────────────────────

/** Where the swapper signals it runs, and where the host asks it to stop (relative to the tree). */
export const SWAPPER_READY = "workspace/.swapper-ready";
export const SWAPPER_STOP = "workspace/.swapper-stop";

/**
 * Python for a code_execution (or, with `root` the tree's path on the host, for a host process): makes `/workspace/r/b` a symlink whose text is `hostTarget` (an absolute
 * HOST path: meaningless in the sandbox, followed by host-side code), then exchanges `/workspace/r/a`
 * and `/workspace/r/b` with renameat2(RENAME_EXCHANGE) in a loop until `seconds` pass, the host creates
 * SWAPPER_STOP, or the tree is gone (many failures in a row). It restores `a` as the directory, removes
 * the link and prints `SWAPS <n> FAILS <m>`.
 */
export function swapperProgram(hostTarget: string, seconds: number, root = ""): string {
  return `
import ctypes, os, time
NR = {"x86_64": 316, "aarch64": 276}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)
A, B = b"${root}/workspace/r/a", b"${root}/workspace/r/b"
if os.path.lexists(B):
    os.unlink(B)
os.symlink(${JSON.stringify(hostTarget)}, B)
open("${root}/${SWAPPER_READY}", "w").close()
swaps = fails = streak = 0
end = time.monotonic() + ${seconds}
# Listed, not looked up: the sandbox sees its tree through an overlay, which remembers that a name it
# looked up was absent, but lists a directory of the tree afresh each time.
stop_dir, stop_name = os.path.split("${root}/${SWAPPER_STOP}")
while time.monotonic() < end and streak < 2000 and stop_name not in os.listdir(stop_dir):
    for _ in range(200):
        if libc.syscall(NR, -100, A, -100, B, 2) == 0:
            swaps += 1
            streak = 0
        else:
            fails += 1
            streak += 1
try:
    if os.path.islink(A):
        libc.syscall(NR, -100, A, -100, B, 2)
    os.unlink(B)
    os.unlink("${root}/${SWAPPER_READY}")
except OSError:
    pass
print("SWAPS", swaps, "FAILS", fails, flush=True)
`;
}

export interface Swapper {
  /** The tool call's answer once the swapper ended. */
  done: Promise<{ status: number; body: any }>;
  /** Asks the swapper to stop (through its tree) and waits for its answer. */
  stop(): Promise<{ status: number; body: any; swaps: number }>;
}

/**
 * Starts the swapper in environment `id` (not awaited) and waits until it runs (its ready file shows
 * in the tree on the host). Throws when it does not start within 20 s.
 */
export async function startSwapper(emulator: TestEmulator, id: string, hostTarget: string, seconds: number, key?: string): Promise<Swapper> {
  const tree = path.join(emulator.dataDir, "trees", id);
  const done = executeTool(emulator, id, python(swapperProgram(hostTarget, seconds)), { key, timeoutMs: (seconds + 60) * 1000 });
  let failure: unknown;
  done.catch((error) => (failure = error));
  const ready = await waitFor(() => failure !== undefined || existsSync(path.join(tree, SWAPPER_READY)), 20_000);
  if (!ready || failure !== undefined) throw new Error(`the swapper did not start: ${String(failure ?? "no ready file after 20 s")}`);
  return {
    done,
    async stop() {
      try {
        writeFileSync(path.join(tree, SWAPPER_STOP), "");
      } catch {
        // the tree is gone (deleted environment): the swapper stops on its own
      }
      const answer = await done;
      rmSync(path.join(tree, SWAPPER_STOP), { force: true });
      return { ...answer, swaps: swapsOf(answer.body) };
    },
  };
}

/**
 * The same swapper as a host process working on the tree directly, outside any tool call: what a
 * host-side route does while NO call runs (uploads' finalizes wait for a running call) can still be
 * raced against the swap this way. Waits until it runs.
 */
export async function startHostSwapper(tree: string, hostTarget: string, seconds: number): Promise<{ stop(): Promise<{ swaps: number }> }> {
  const child = spawn("python3", ["-c", swapperProgram(hostTarget, seconds, tree)], { stdio: ["ignore", "pipe", "inherit"] });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  if (!(await waitFor(() => gone || existsSync(path.join(tree, SWAPPER_READY)), 20_000)) || gone) {
    child.kill("SIGKILL");
    throw new Error(`the host swapper did not start: ${stdout}`);
  }
  return {
    async stop() {
      writeFileSync(path.join(tree, SWAPPER_STOP), "");
      await exited;
      rmSync(path.join(tree, SWAPPER_STOP), { force: true });
      return { swaps: swapsOf({ output: stdout }) };
    },
  };
}

/** The swap count a swapper printed, or 0. */
export function swapsOf(body: any): number {
  const match = /SWAPS (\d+)/.exec(String(body?.output ?? ""));
  return match ? Number(match[1]) : 0;
}

// ── the race runner ─────────────────────────────────────────────────────────────────────────────

export interface RaceResult {
  route: string;
  tries: number;
  wins: number;
  status500: number;
  /** Requests that failed at the transport (reset, aborted after 10 s). */
  transportErrors: number;
  /** Answers that served the tenant its own data: the route worked for the tenant during the race. */
  ownAnswers: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
}

/**
 * Calls `attempt` from `concurrency` loops until `seconds` pass or `maxTries` attempts were made.
 * `attempt` answers the HTTP status it got and whether the attacker won (host data reached).
 */
export async function race(
  route: string,
  limits: { seconds: number; maxTries: number; concurrency?: number },
  attempt: (n: number) => Promise<{ status: number; win: boolean; own: boolean }>,
): Promise<RaceResult> {
  const result: RaceResult = { route, tries: 0, wins: 0, status500: 0, transportErrors: 0, ownAnswers: 0, statuses: {} };
  const deadline = Date.now() + limits.seconds * 1000;
  const loop = async () => {
    while (Date.now() < deadline && result.tries < limits.maxTries) {
      const n = result.tries++;
      try {
        const { status, win, own } = await attempt(n);
        result.statuses[status] = (result.statuses[status] ?? 0) + 1;
        if (status >= 500) result.status500 += 1;
        if (win) result.wins += 1;
        if (own) result.ownAnswers += 1;
      } catch {
        result.transportErrors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: limits.concurrency ?? 4 }, loop));
  return result;
}

/** A fetch bounded to 10 s, answering status and body text (a body cut mid-way throws). */
export async function fetchText(emulator: TestEmulator, url: string, init: RequestInit & { key?: string } = {}): Promise<{ status: number; text: string }> {
  const response = await emulator.call(url, { ...init, signal: AbortSignal.timeout(10_000) });
  return { status: response.status, text: await response.text() };
}

/** The resumable upload protocol (emulator/uploads.ts) in two requests: start, then upload + finalize. */
export async function upload(
  emulator: TestEmulator,
  id: string,
  filePath: string,
  content: Buffer,
  key?: string,
  timeoutMs = 10_000,
): Promise<{ status: number; text: string }> {
  const start = await emulator.call(`/upload/v1beta/environments/${id}/files/${filePath}`, {
    method: "PUT",
    key,
    headers: {
      "x-goog-upload-command": "start",
      "x-goog-upload-protocol": "resumable",
      "x-goog-upload-header-content-length": String(content.length),
      "content-type": "application/octet-stream",
    },
    signal: AbortSignal.timeout(10_000),
  });
  await start.arrayBuffer();
  const url = start.headers.get("x-goog-upload-url");
  if (start.status !== 200 || !url) return { status: start.status, text: "" };
  const finish = await fetch(url, {
    method: "POST",
    headers: { "x-goog-api-key": key ?? TEST_KEY, "x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0" },
    body: new Uint8Array(content),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: finish.status, text: await finish.text() };
}
