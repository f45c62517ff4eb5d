/** Timing helpers for benchmarks: medians of repeated runs, and ratios against a baseline measured in the same run. */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import path from "node:path";

export const execFileAsync = promisify(execFile);

export async function medianMs(runs: number, body: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await body();
    times.push(performance.now() - started);
  }
  return median(times);
}

/**
 * Medians of ours and of the baseline, run alternately so that both see the same machine: on a
 * noisy two-core box, load that comes and goes would otherwise land on one side only. `before`,
 * when given, runs untimed ahead of each run of a side (e.g. a config change the run applies).
 */
export async function interleavedMedians(
  runs: number,
  ours: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
  before?: (side: "ours" | "baseline") => Promise<unknown>,
): Promise<[number, number]> {
  const oursTimes: number[] = [];
  const baselineTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    await before?.("ours");
    oursTimes.push(await medianMs(1, ours));
    await before?.("baseline");
    baselineTimes.push(await medianMs(1, baseline));
  }
  return [median(oursTimes), median(baselineTimes)];
}

/** The middle value (the upper one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * CPU time of this process's children that have ended and been waited for, and of theirs (what
 * `times` prints in a shell): a `pulumi` command's own and its plugins', language hosts' and
 * programs', once it has exited. `genv serve` and the stub are not in it (still running, or this
 * process itself).
 */
export function reapedChildrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 16 and 17 of proc(5), cutime and cstime, in clock ticks (100 per second on Linux).
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_SECOND;
}
const CLOCK_TICKS_PER_SECOND = 100;

export interface WallAndCpu<T> {
  ms: number;
  /** CPU ms of the child processes `body` ran and waited for (`reapedChildrenCpuMs`), e.g. a `pulumi` command and all it ran. */
  cpuMs: number;
  result: T;
}

/** Wall and CPU time of `body`: on two shared cores CPU varies less than wall time. */
export async function wallAndCpuMs<T>(body: () => Promise<T>): Promise<WallAndCpu<T>> {
  const cpuBefore = reapedChildrenCpuMs();
  const started = performance.now();
  const result = await body();
  const ms = performance.now() - started;
  return { ms, cpuMs: reapedChildrenCpuMs() - cpuBefore, result };
}

/** Milliseconds from spawning a provider plugin to its port on stdout. */
export function startupMs(launcher: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(launcher, ["127.0.0.1:1"], { env, stdio: ["ignore", "pipe", "ignore"] });
    child.once("error", reject);
    child.stdout!.once("data", () => {
      const ms = performance.now() - started;
      child.kill("SIGKILL");
      child.once("exit", () => resolve(ms));
    });
  });
}

export interface Comparison {
  name: string;
  ours: number;
  baselineName: string;
  baseline: number;
  target: number;
  /** Printed after the target, e.g. a difference in ms. */
  note?: string;
}

/**
 * Each round's ratio, ours against the baseline measured in the same round, lowest to highest, as a
 * row's note: how far one run's median can be trusted.
 */
export function roundRatios(ours: readonly number[], baseline: readonly number[]): string {
  const ratios = ours.map((value, round) => value / baseline[round]).sort((a, b) => a - b);
  return `rounds ${ratios[0].toFixed(2)}–${ratios[ratios.length - 1].toFixed(2)}x`;
}

export function printComparisons(title: string, rows: readonly Comparison[]): void {
  const nameWidth = Math.max(46, ...rows.map((row) => row.name.length));
  const baselineWidth = Math.max(24, ...rows.map((row) => row.baselineName.length));
  console.log(`\n${title}`);
  console.log(["measure".padEnd(nameWidth), "ours ms".padStart(9), "baseline".padEnd(baselineWidth), "base ms".padStart(9), "ratio".padStart(7), "target".padStart(7)].join("  "));
  for (const row of rows) {
    const ratio = row.ours / row.baseline;
    console.log(
      [
        row.name.padEnd(nameWidth),
        row.ours.toFixed(1).padStart(9),
        row.baselineName.padEnd(baselineWidth),
        row.baseline.toFixed(1).padStart(9),
        `${ratio.toFixed(2)}x`.padStart(7),
        `≤${row.target}x`.padStart(7),
        ...(row.note ? [row.note] : []),
      ].join("  "),
    );
  }
}

/**
 * `genv serve` in its own process, as users run it: in memory unless `extraArgs` names a `--data-dir`;
 * `onLogLine` gets its stderr (the request log) line by line.
 */
export async function startServeProcess(
  extraArgs: string[] = [],
  onLogLine?: (line: string) => void,
): Promise<{ url: string; key: string; process: ChildProcess; stop(): Promise<void> }> {
  const key = "bench-key";
  const child = spawn(process.execPath, [path.join(__dirname, "..", "cli", "main.js"), "serve", "--port", "0", ...(extraArgs.includes("--data-dir") ? [] : ["--in-memory"]), "--api-key", key, ...extraArgs], {
    stdio: ["ignore", "pipe", onLogLine ? "pipe" : "ignore"],
  });
  if (onLogLine) createInterface({ input: child.stderr! }).on("line", onLogLine);
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`genv serve exited with ${code}`)));
    child.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().split("\n")[0].trim()));
  });
  return {
    url,
    key,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
