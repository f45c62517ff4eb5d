/**
 * The per-call cgroups that killed emulators left behind, and the names that tell whose they are.
 *
 * An emulator killed with SIGKILL leaves its pool of cgroups, and the cgroups of the calls it was
 * running; a call's processes can outlive it (killed during a call's set-up, bwrap's intermediate child
 * waits on its eventfd for a monitor that is gone: seen still waiting a minute later). Another emulator
 * removes them: when it first makes a
 * cgroup, then again at most every `SWEEP_INTERVAL_MS` when it makes one, so that an emulator that
 * never restarts cleans up too. Each leftover is handled on its own: one still busy is emptied
 * (SIGKILL to what is left in it: the calls of an emulator that is gone answer no one and are bound by
 * no time limit any more) and tried again shortly; the others are removed meanwhile.
 *
 * **Whose.** A name carries its emulator's pid and that process's start time (`/proc/<pid>/stat`
 * field 22, clock ticks since boot): `genv-sbx-<pid>-<start>-<random>`. A pid alone is reused (here
 * `pid_max` is 32,768), so a leftover whose pid now names another process would never be swept, and
 * a new emulator could take a dead one's pid. polkit identifies a process the same way
 * (`unix-process:<pid>:<start-time>`; emulator/process-identity judges it); runc and systemd need no
 * such name, their cgroups being tracked by a manager that outlives the process (a container id, a
 * unit), which the emulator has not.
 */
import { readdirSync, rmdirSync } from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { processGone, selfIdentity } from "../process-identity";
import { killCgroupTasks } from "./cgroup-tasks";

const PREFIX = "genv-sbx-";
const SWEEP_INTERVAL_MS = 10_000; // between sweeps made when a call's cgroup is made (one costs ≈ µs, measured)
const RETRY_MS = 200; // until an emptied leftover is tried again
const RETRIES = 10;

/** The name of a new per-call cgroup of this emulator. */
export function newCgroupName(): string {
  return `${PREFIX}${selfIdentity}-${randomBytes(6).toString("hex")}`;
}

/**
 * Whether the emulator that made the cgroup `name` is gone; false for names that are not ours.
 * Names from before the start time was in them (`genv-sbx-<pid>-<random>`) are judged by pid alone.
 */
function ownerGone(name: string): boolean {
  const owner = /^genv-sbx-(\d+)-(?:(\d+)-)?[0-9a-f]+$/.exec(name);
  if (!owner) return false;
  const [, pid, start] = owner;
  return processGone(Number(pid), start);
}

let lastSweep = -Infinity;

/** Sweeps `bases` unless a sweep ran within `SWEEP_INTERVAL_MS`. */
export function sweepLeftoversNow(bases: string[]): void {
  if (performance.now() - lastSweep < SWEEP_INTERVAL_MS) return;
  lastSweep = performance.now();
  for (const base of bases) sweep(base, RETRIES);
}

/** Removes every cgroup in `base` whose emulator is gone; empties those still busy and tries them again. */
function sweep(base: string, retries: number): void {
  let names: string[];
  try {
    names = readdirSync(base).filter((name) => name.startsWith(PREFIX));
  } catch {
    return; // unreadable: nothing to do
  }
  let busy = false;
  for (const name of names) {
    if (name.startsWith(`${PREFIX}${selfIdentity}-`) || !ownerGone(name)) continue;
    const dir = path.join(base, name);
    try {
      rmdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EBUSY") continue; // gone meanwhile, or not ours to remove
      busy = true;
      killCgroupTasks(dir);
    }
  }
  if (busy && retries > 0) setTimeout(() => sweep(base, retries - 1), RETRY_MS).unref();
}
