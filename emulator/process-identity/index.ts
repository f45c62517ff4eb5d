/**
 * Which process a name left on disk belongs to, and whether that process still runs: a pid *and* its
 * start time (`/proc/<pid>/stat` field 22, clock ticks since boot), as polkit names a process
 * (`unix-process:<pid>:<start-time>`). A pid alone is reused (`pid_max` is 32,768 here): what a dead
 * emulator left would never be swept while another process holds its pid, and a new emulator could
 * take it for its own. The per-call cgroups (sandbox/_cgroup-leftovers.ts) and the egress proxy's
 * socket directories (egress/proxy.ts) are named with it, and swept by it, alike.
 */
import { readFileSync } from "node:fs";

/** When process `pid` started (clock ticks since boot), or undefined when there is no such process. */
export function startTimeOf(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ESRCH") return undefined;
    throw error; // it may well be running: the caller must not take it for gone
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

/** This process as names on disk carry it: `<pid>-<start>`. */
export const selfIdentity = `${process.pid}-${startTimeOf(process.pid)}`;

/**
 * Whether the process that was `pid`, started at `start`, is gone: no process has that pid, or the one
 * that has it started at another time. Without `start` (names written before it was in them) the pid
 * alone decides. A process this one may not inspect (another user's, `hidepid`) is taken as running.
 */
export function processGone(pid: number, start?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
  }
  if (start === undefined) return false;
  let running: string | undefined;
  try {
    running = startTimeOf(pid);
  } catch {
    return false; // unreadable: left alone
  }
  return running === undefined || running !== start;
}
