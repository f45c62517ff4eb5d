/**
 * A pids cgroup per call, the one process limit that binds whatever uid the emulator runs as:
 * RLIMIT_NPROC is ignored for processes whose host uid is root, which is what the sandbox's user
 * namespace maps to when the emulator runs as root. Used when the host lets us create cgroups
 * (cgroup v1 `pids` hierarchy, or a v2 hierarchy with `pids` delegated); otherwise the caller
 * falls back to RLIMIT_NPROC alone.
 */
import { promises as fs, readFileSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";

let base: string | null | undefined;
/** Whether the pids hierarchy is cgroup v1 (has a `tasks` file); known after the first cgroup. */
let v1: boolean | undefined;

/** The directory under which per-call cgroups are made, or null when none can be. */
function pidsBase(): string | null {
  if (base !== undefined) return base;
  base = null;
  try {
    const lines = readFileSync("/proc/self/cgroup", "utf8").trim().split("\n");
    const candidates: string[] = [];
    for (const line of lines) {
      const [, controllers, rel] = line.split(":");
      if (controllers.split(",").includes("pids")) candidates.push(path.join("/sys/fs/cgroup/pids", rel));
      if (controllers === "") candidates.push(path.join("/sys/fs/cgroup", rel), path.join("/sys/fs/cgroup/unified", rel));
    }
    for (const dir of candidates) {
      const probe = path.join(dir, `genv-probe-${process.pid}`);
      try {
        mkdirSync(probe);
        try {
          // "r+" never creates: the file must come from the kernel (a plain tmpfs would accept mkdir).
          writeFileSync(path.join(probe, "pids.max"), "10", { flag: "r+" });
          base = dir;
        } finally {
          rmdirSync(probe);
        }
        if (base) break;
      } catch {
        // not writable, or no pids controller here
      }
    }
  } catch {
    base = null;
  }
  return base;
}

export interface PidsCgroup {
  dir: string;
  /**
   * Shell text (for `sh -c`, the cgroup directory in `$0`) that moves the shell itself into the
   * cgroup. On v1 it writes `0` (the calling thread) to `tasks`: a single-threaded shell moves whole,
   * and the kernel skips the global threadgroup lock that a `cgroup.procs` write takes, a lock whose
   * write side waits for an RCU grace period (measured: `cgroup.procs` 5–28 ms, median ≈ 16 ms;
   * `tasks` ≈ 0.1 ms). v2 has no `tasks` file, so there the pid goes to `cgroup.procs`.
   */
  joinShell: string;
  /** Kills whatever is left in the cgroup and removes it. */
  dispose(): Promise<void>;
}

/** A fresh cgroup limited to `maxPids` tasks, or undefined when cgroups are not available. */
export async function createPidsCgroup(maxPids: number): Promise<PidsCgroup | undefined> {
  const parent = pidsBase();
  if (!parent) return undefined;
  const dir = path.join(parent, `genv-sbx-${randomBytes(6).toString("hex")}`);
  try {
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, "pids.max"), String(maxPids), { flag: "r+" });
  } catch {
    await fs.rmdir(dir).catch(() => undefined);
    return undefined;
  }
  v1 ??= await fs.access(path.join(dir, "tasks")).then(() => true, () => false);
  return {
    dir,
    joinShell: v1 ? 'echo 0 > "$0/tasks"' : 'echo $$ > "$0/cgroup.procs"',
    async dispose() {
      for (let attempt = 0; attempt < 50; attempt++) {
        const procs = await fs.readFile(path.join(dir, "cgroup.procs"), "utf8").catch(() => "");
        const pids = procs.split("\n").filter(Boolean).map(Number);
        for (const pid of pids) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // already gone
          }
        }
        try {
          await fs.rmdir(dir);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
  };
}

/** Whether per-call pids cgroups are in use (for diagnostics and tests). */
export function pidsCgroupAvailable(): boolean {
  return pidsBase() !== null;
}
