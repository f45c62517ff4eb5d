/**
 * The single executables of other platforms, run on this Linux x86_64 machine: linux-arm64 under
 * qemu-user (qemu-aarch64-static, with the arm64 C and C++ libraries of Debian's cross packages as its
 * root), windows-amd64 under Wine (Debian's wine64 8.0, in a prefix of its own that reports Windows 10:
 * Node.js 22 refuses older Windows). Under Wine, Node.js cannot write to a pipe as its stdout or stderr
 * (EBADF): every start here sends both to files (`<stdoutFile>` and `<stdoutFile>.err`) and reads the
 * first line from there.
 *
 *   const runner = await runnerFor("windows-amd64", scratch);
 *   const started = await startExecutable(runner, executable, [], env, path.join(scratch, "out"));
 *   ...; started.stop(); await runner.close();
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** Debian's wine64 (the package installs no `wine` on PATH without the `wine` package). */
const WINE = "/usr/lib/wine/wine64";
const WINESERVER = "/usr/lib/wine/wineserver";
const QEMU_AARCH64 = "qemu-aarch64-static";
const AARCH64_ROOT = "/usr/aarch64-linux-gnu";
/** How often a start's stdout file is read while waiting for its first line. */
const POLL_MS = 20;

const onPath = (command: string) => (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir !== "" && fs.existsSync(path.join(dir, command)));

/** What runs the linux-arm64 executables here, as describeNeeding names it. */
export const qemuNeeds = () => ({
  "qemu-aarch64-static and the arm64 libraries in /usr/aarch64-linux-gnu (Debian qemu-user-static, libc6-arm64-cross, libstdc++6-arm64-cross)":
    onPath(QEMU_AARCH64) && fs.existsSync(path.join(AARCH64_ROOT, "lib", "ld-linux-aarch64.so.1")),
});

/** What runs the windows-amd64 executables here. */
export const wineNeeds = () => ({ "wine64 (Debian wine64, /usr/lib/wine/wine64)": fs.existsSync(WINE) });

export interface Runner {
  /** The command a foreign executable is given to, and the environment it needs added. */
  prefix: string[];
  env: Record<string, string>;
  /** Ends what the runner left running (Wine's wineserver). */
  close(): Promise<void>;
}

/** How to run an executable of `platform` (linux-arm64 or windows-amd64) here; Wine's prefix is made in `scratch`. */
export async function runnerFor(platform: string, scratch: string): Promise<Runner> {
  if (platform === "linux-arm64") return { prefix: [QEMU_AARCH64, "-L", AARCH64_ROOT], env: {}, close: async () => undefined };
  if (platform !== "windows-amd64") throw new Error(`no runner for ${platform}`);
  const env = { WINEPREFIX: path.join(scratch, "wine-prefix"), WINEDEBUG: "-all" };
  // The first command makes the prefix (about 20 s); Node.js 22 starts only on Windows 10 or newer.
  await execFileAsync(WINE, ["reg", "add", "HKCU\\Software\\Wine", "/v", "Version", "/d", "win10", "/f"], { env: { ...process.env, ...env } });
  return {
    prefix: [WINE],
    env,
    close: async () => {
      await execFileAsync(WINESERVER, ["-k"], { env: { ...process.env, ...env } }).catch(() => undefined);
    },
  };
}

export interface Started {
  child: ChildProcess;
  /** The first line the executable printed on stdout. */
  firstLine: string;
  /** From spawn to that line. */
  elapsedMs: number;
  stderr(): string;
  stop(): void;
}

/** Starts `executable` through `runner`, its stdout into `stdoutFile`; resolves at its first line, rejects if it exits first. */
export async function startExecutable(runner: Runner, executable: string, args: string[], env: Record<string, string>, stdoutFile: string): Promise<Started> {
  const stdout = fs.openSync(stdoutFile, "w");
  const stderrFile = `${stdoutFile}.err`;
  const stderrFd = fs.openSync(stderrFile, "w");
  const started = process.hrtime.bigint();
  const [command, ...prefixArgs] = [...runner.prefix, executable];
  const child = spawn(command, [...prefixArgs, ...args], { env: { ...process.env, ...runner.env, ...env }, stdio: ["ignore", stdout, stderrFd] });
  fs.closeSync(stdout);
  fs.closeSync(stderrFd);
  // The end of what it printed on stderr (an uncaught error quotes the bundle's whole first line).
  const stderr = () => fs.readFileSync(stderrFile, "utf8").slice(-4000);
  let exited: string | undefined;
  child.once("exit", (code, signal) => (exited = `exited ${code ?? signal}`));
  child.once("error", (error) => (exited = String(error)));
  for (;;) {
    const text = fs.readFileSync(stdoutFile, "utf8");
    if (text.includes("\n")) {
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      return { child, firstLine: text.split("\n")[0].trim(), elapsedMs, stderr, stop: () => child.kill("SIGKILL") };
    }
    if (exited) throw new Error(`${executable} ${exited} before printing a line: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
