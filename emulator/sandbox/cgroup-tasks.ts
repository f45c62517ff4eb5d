/**
 * The processes in a per-call cgroup, as its `cgroup.procs` lists them, and killing them: what a call's
 * release (`_cgroup.ts`) and the sweep of dead emulators' leftovers (`_cgroup-leftovers.ts`) both do.
 *
 * On cgroup v2 a task that this pid namespace cannot see is listed as `0` (v1 leaves it out). It is a
 * task all the same, so the cgroup is not empty, but 0 is never a pid to signal: `kill(0, …)` would
 * signal the emulator's own process group.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

export interface CgroupTasks {
  /** The pids this namespace can signal. */
  pids: number[];
  /** Tasks listed, those it cannot see included: 0 when the cgroup is empty. */
  listed: number;
}

/** The tasks `cgroup.procs` text lists. */
export function parseCgroupProcs(text: string): CgroupTasks {
  const listed = text.split("\n").filter((line) => line.trim() !== "").map(Number);
  return { pids: listed.filter((pid) => pid > 0), listed: listed.length };
}

/** SIGKILLs every process of cgroup `dir` this namespace can see; its tasks, or undefined when `cgroup.procs` is unreadable (removed meanwhile). */
export function killCgroupTasks(dir: string): CgroupTasks | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(dir, "cgroup.procs"), "utf8");
  } catch {
    return undefined;
  }
  const tasks = parseCgroupProcs(text);
  for (const pid of tasks.pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  return tasks;
}
