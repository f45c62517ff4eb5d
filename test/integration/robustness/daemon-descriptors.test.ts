/**
 * A daemon started by one of our scripts holds none of its caller's descriptors. The scripts answer on
 * stdout (through fd 3) and are read through a pipe — `$(scripts/docker-engine)`, or a spawn that waits
 * for stdout to close — so a daemon that inherited that pipe kept every reader waiting until the daemon
 * exited: on a machine with no dockerd running yet, `scripts/emulator-image` and the emulator-image test
 * hung forever.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { describeNeeding } from "../../support/prerequisites";

const repoRoot = path.resolve(__dirname, "../../..");
const scriptsDir = path.join(repoRoot, "scripts");

interface Finished {
  code: number | null;
  stdout: string;
  /** Milliseconds from the script's exit to the end of its stdout: a held pipe makes it never end. */
  closedAfterExitMs: number | undefined;
}

/** Runs `command` as a caller reading its stdout through a pipe would, up to `limitMs` for the pipe to close. */
function runThroughPipe(command: string, args: string[], env: NodeJS.ProcessEnv, limitMs: number): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let exitedAt: number | undefined;
    let code: number | null = null;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (exitCode) => {
      exitedAt = Date.now();
      code = exitCode;
      setTimeout(() => resolve({ code, stdout, closedAfterExitMs: undefined }), limitMs).unref();
    });
    child.stdout.on("close", () => {
      const finish = () => resolve({ code, stdout, closedAfterExitMs: Date.now() - (exitedAt ?? Date.now()) });
      if (exitedAt === undefined) child.once("exit", () => setImmediate(finish));
      else finish();
    });
    child.on("close", () => {
      if (code !== 0) process.stderr.write(stderr);
    });
  });
}

/** The descriptors a process holds, as `fd -> target`. */
function descriptorsOf(pid: number): Record<string, string> {
  const dir = `/proc/${pid}/fd`;
  const held: Record<string, string> = {};
  for (const fd of fs.readdirSync(dir)) {
    try {
      held[fd] = fs.readlinkSync(path.join(dir, fd));
    } catch (error) {
      // closed between the listing and the read: a passing descriptor, not a held one
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return held;
}

/** The descriptors `pid` holds once they equal `expected`, or what it holds after `limitMs` if they never do. */
async function settledDescriptorsOf(pid: number, expected: Record<string, string>, limitMs: number): Promise<Record<string, string>> {
  const deadline = Date.now() + limitMs;
  let held = descriptorsOf(pid);
  while (JSON.stringify(held) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    held = descriptorsOf(pid);
  }
  return held;
}

function stop(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

describe("scripts/lib/detach.bash", () => {
  let scratch: string;
  let daemonPid: number | undefined;
  beforeAll(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "genv-detach-"));
  });
  afterAll(() => {
    stop(daemonPid);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  test("a starter that answers on fd 3, as ours do, is read to its end while the daemon it started runs on", async () => {
    // The shape of every starter in scripts/: the answer on fd 3, progress on stderr, descriptors of its
    // own open (a lock on 9), and the daemon left running.
    const starter = path.join(scratch, "starter");
    const log = path.join(scratch, "daemon.log");
    fs.writeFileSync(
      starter,
      [
        "#!/usr/bin/env bash",
        "set -euo pipefail",
        "exec 3>&1 1>&2",
        `source ${JSON.stringify(path.join(scriptsDir, "lib", "detach.bash"))}`,
        `exec 9>${JSON.stringify(path.join(scratch, "lock"))}`,
        `detach ${JSON.stringify(log)} sleep 120`,
        'echo "$!" >&3',
      ].join("\n"),
      { mode: 0o755 },
    );
    const finished = await runThroughPipe(starter, [], {}, 10_000);
    daemonPid = Number(finished.stdout.trim());
    expect(finished.code).toBe(0);
    expect(finished.closedAfterExitMs).toBeDefined();
    expect(fs.existsSync(`/proc/${daemonPid}`)).toBe(true);
    // The starter may exit while its child is still between fork and exec (bash holds CLOEXEC copies of
    // 0–2 at 10–12 there) or while `sleep` reads its locale (a passing fd 3), so what counts is what the
    // daemon holds once it settles: a leaked descriptor never goes away, and then this times out.
    const expected = { "0": "/dev/null", "1": log, "2": log };
    const held = await settledDescriptorsOf(daemonPid, expected, 5_000);
    expect(held).toEqual(expected);
  });
});

describe("every daemon our scripts start goes through detach", () => {
  // A background start (`… &`) in a script keeps whatever descriptors the script holds; `detach` closes them.
  const files = fs.readdirSync(scriptsDir).filter((name) => fs.statSync(path.join(scriptsDir, name)).isFile());

  test.each(files)("scripts/%s", (name) => {
    const lines = fs.readFileSync(path.join(scriptsDir, name), "utf8").split("\n");
    const backgrounded = lines
      .map((line, index) => ({ line: line.replace(/#.*$/, "").trim(), number: index + 1 }))
      .filter(({ line }) => /(^|[^&>|])&\s*$/.test(line));
    expect(backgrounded).toEqual([]);
  });
});

// It starts a dockerd of its own.
describeNeeding({
  "Linux": process.platform === "linux",
  "root (uid 0), as CI runs the tests": process.getuid?.() === 0,
  "/usr/sbin/dockerd (Debian's docker.io, installed by scripts/docker-engine)": fs.existsSync("/usr/sbin/dockerd"),
})("scripts/docker-engine starting a dockerd", () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "genv-dockerd-"));
  });
  afterAll(async () => {
    const pidFile = path.join(root, "docker.pid");
    if (fs.existsSync(pidFile)) {
      const pid = Number(fs.readFileSync(pidFile, "utf8"));
      process.kill(pid, "SIGTERM");
      for (let waited = 0; fs.existsSync(`/proc/${pid}`) && waited < 20_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
      stop(pid);
    }
    fs.rmSync(root, { recursive: true, force: true });
  }, 30_000);

  test("answers its address and lets go of the caller's pipe while dockerd runs on", async () => {
    const finished = await runThroughPipe(path.join(scriptsDir, "docker-engine"), [], { DOCKERD_ROOT: root, DOCKERD_STORAGE_DRIVER: "vfs" }, 30_000);
    expect(finished.code).toBe(0);
    expect(finished.stdout.trim()).toBe(`unix://${root}/docker.sock`);
    expect(finished.closedAfterExitMs).toBeDefined();
    const pid = Number(fs.readFileSync(path.join(root, "docker.pid"), "utf8"));
    expect(fs.existsSync(`/proc/${pid}`)).toBe(true);
  }, 90_000);
});
