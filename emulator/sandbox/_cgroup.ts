/**
 * The cgroup of one call: the limits that bind the call as a whole, whatever uid the emulator runs as.
 *
 * - **pids**: processes and threads alive at once. RLIMIT_NPROC is ignored for processes whose host uid
 *   is root, which is what the sandbox's user namespace maps to when the emulator runs as root.
 * - **memory**: every process's resident memory, the `/tmp` tmpfs pages and the page cache the call
 *   dirties, together. RLIMIT_AS is per process: four processes under a 1 GiB RLIMIT_AS hold 4 GiB.
 *   Over the limit the kernel reclaims the call's page cache, then its OOM killer kills inside the
 *   cgroup; the caller sees that in `oomKills` and kills the rest of the call.
 *
 * Layout: on cgroup v1 a sibling directory in each of the `pids` and `memory` hierarchies (both under
 * the emulator's own cgroup there); on v2 one directory with both controllers, when they are delegated.
 * Whichever controller has no writable hierarchy is left out (the caller falls back to rlimits).
 *
 * **Reuse.** Directories are kept in a small pool and reused by later calls rather than removed. A
 * removed memory cgroup lingers in the kernel as a "dying" cgroup (≈ 18 KiB of slab and per-CPU
 * memory, measured) for as long as any page it was charged for stays cached — every file a call writes
 * into a tree — so one `rmdir` per call would pile up thousands of them. Creating one is cheap
 * (mkdir + limits + rmdir ≈ 0.14 ms on v1, measured), so the pool is about that leak, not speed.
 * What a killed emulator leaves is swept by the others (`_cgroup-leftovers.ts`).
 */
import { promises as fs, existsSync, readFileSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { newCgroupName, sweepLeftoversNow } from "./_cgroup-leftovers";
import { killCgroupTasks } from "./cgroup-tasks";

type Controller = "pids" | "memory";

/** A place where per-call cgroups can be made. */
interface Hierarchy {
  /** The parent directory: the emulator's own cgroup in that hierarchy. */
  base: string;
  /** cgroup v1 (a `tasks` file, one controller per hierarchy here) or v2. */
  v1: boolean;
  controllers: Controller[];
  /** Limit files this kernel has beside the main one (v1 `memory.memsw.*`, v2 `memory.swap.max`, …). */
  extras: Set<string>;
}

interface SlotDir {
  dir: string;
  hierarchy: Hierarchy;
  /** What is written now, so that a reused directory is written only when a call asks otherwise. */
  pidsMax?: number;
  memoryMax?: number;
  /** The kernel's OOM kill counter when the slot was last released (it only grows). */
  oomKills: number;
}

interface Slot {
  dirs: SlotDir[];
}

const MAX_IDLE = 8; // slots kept for reuse; more concurrent calls get fresh ones, removed after
const DISPOSE_ATTEMPTS = 50; // rmdir tries of a slot, 20 ms apart: about 1 s
const EMPTY_LIMIT_MS = 1000; // for a call's leftovers to die before its slot is given up
const QUICK_LOOKS_MS = 3; // looks without a timer at first, then 1, 2, 4, 8, 16, then 20 ms apart

let found: Hierarchy[] | undefined;
const idle: Slot[] = [];

/**
 * Where the per-call cgroups go, probed once: for each controller the first candidate where a child
 * cgroup can be made and its limit file written ("r+" never creates: the file must come from the
 * kernel, a plain tmpfs would accept the mkdir).
 */
function hierarchies(): Hierarchy[] {
  if (found) return found;
  found = [];
  let lines: string[];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").trim().split("\n");
  } catch {
    return found;
  }
  const candidates: { dir: string; v1: boolean; wanted: Controller[] }[] = [];
  for (const line of lines) {
    const [, controllers, rel] = line.split(":");
    for (const controller of ["pids", "memory"] as const) {
      if (controllers.split(",").includes(controller)) candidates.push({ dir: path.join("/sys/fs/cgroup", controller, rel), v1: true, wanted: [controller] });
    }
    if (controllers === "") {
      for (const root of ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]) candidates.push({ dir: path.join(root, rel), v1: false, wanted: ["pids", "memory"] });
    }
  }
  const missing = new Set<Controller>(["pids", "memory"]);
  for (const candidate of candidates) {
    const wanted = candidate.wanted.filter((controller) => missing.has(controller));
    if (wanted.length === 0) continue;
    const hierarchy = probe(candidate.dir, candidate.v1, wanted);
    if (!hierarchy) continue;
    hierarchy.controllers.forEach((controller) => missing.delete(controller));
    found.push(hierarchy);
  }
  if (found.length > 0) process.once("exit", removeIdle);
  return found;
}

function probe(dir: string, v1: boolean, wanted: Controller[]): Hierarchy | undefined {
  const child = path.join(dir, `genv-probe-${process.pid}-${randomBytes(3).toString("hex")}`);
  try {
    mkdirSync(child);
  } catch {
    return undefined; // not writable
  }
  try {
    const controllers = wanted.filter((controller) => {
      try {
        writeFileSync(path.join(child, limitFile(controller, v1)), controller === "pids" ? "10" : String(1024 ** 3), { flag: "r+" });
        return true;
      } catch {
        return false;
      }
    });
    if (controllers.length === 0) return undefined;
    const extras = new Set(["memory.memsw.limit_in_bytes", "memory.swap.max", "memory.oom.group"].filter((file) => existsSync(path.join(child, file))));
    return { base: dir, v1, controllers, extras };
  } finally {
    try {
      rmdirSync(child);
    } catch {
      // a probe that cannot be removed is harmless
    }
  }
}

function limitFile(controller: Controller, v1: boolean): string {
  if (controller === "pids") return "pids.max";
  return v1 ? "memory.limit_in_bytes" : "memory.max";
}

function removeIdle(): void {
  for (const slot of idle.splice(0)) {
    for (const { dir } of slot.dirs) {
      try {
        rmdirSync(dir);
      } catch {
        // still busy: nothing to do at exit
      }
    }
  }
}

export interface CallCgroup {
  /**
   * Shell text (for `sh -c`) that moves the shell itself into the call's cgroups. On v1 it writes `0`
   * (the calling thread) to `tasks`: a single-threaded shell moves whole, and the kernel skips the
   * global threadgroup lock that a `cgroup.procs` write takes, a lock whose write side waits for an RCU
   * grace period (measured: `cgroup.procs` 5–28 ms, median ≈ 16 ms; `tasks` ≈ 0.1 ms). v2 has no
   * `tasks` file, so there the pid goes to `cgroup.procs`.
   */
  joinShell: string;
  /** The files to which writing `0` moves the writing task into the call's cgroups, as `joinShell` does. */
  joinFiles: string[];
  /** Whether the process count is limited for the call as a whole. */
  pidsLimited: boolean;
  /** Whether memory is limited for the call as a whole (else only per process, by RLIMIT_AS). */
  memoryLimited: boolean;
  /** Processes the kernel's OOM killer has killed in this call so far. */
  oomKills(): Promise<number>;
  /** Kills whatever is left in the cgroups and gives them back (to the pool, or removes them). */
  dispose(): Promise<void>;
}

/**
 * The cgroups of a new call, limited to `maxPids` tasks and `memoryBytes` of memory together, or
 * undefined when no cgroup can be made (the caller then relies on rlimits alone).
 */
export async function createCallCgroup(limits: { maxPids: number; memoryBytes: number }): Promise<CallCgroup | undefined> {
  if (hierarchies().length === 0) return undefined;
  sweepLeftoversNow(hierarchies().map((hierarchy) => hierarchy.base));
  let slot = idle.pop();
  if (slot && !(await configure(slot, limits))) {
    await removeSlot(slot);
    slot = undefined;
  }
  if (!slot) {
    slot = await newSlot();
    if (!slot) return undefined;
    if (!(await configure(slot, limits))) {
      await removeSlot(slot);
      return undefined;
    }
  }
  const taken = slot;
  const memory = taken.dirs.find((entry) => entry.hierarchy.controllers.includes("memory"));
  const oomCount = async (): Promise<number> => (memory ? await readOomKills(memory) : 0);
  return {
    joinFiles: taken.dirs.map(({ dir, hierarchy }) => path.join(dir, hierarchy.v1 ? "tasks" : "cgroup.procs")),
    joinShell: taken.dirs.map(({ dir, hierarchy }) => (hierarchy.v1 ? `echo 0 > ${quote(`${dir}/tasks`)}` : `echo $$ > ${quote(`${dir}/cgroup.procs`)}`)).join(" && "),
    pidsLimited: taken.dirs.some((entry) => entry.hierarchy.controllers.includes("pids")),
    memoryLimited: memory !== undefined,
    async oomKills() {
      return memory ? (await oomCount()) - memory.oomKills : 0;
    },
    async dispose() {
      if (!(await emptied(taken))) return; // a process that would not die: the slot is not reused
      if (memory) memory.oomKills = await oomCount();
      if (idle.length < MAX_IDLE) idle.push(taken);
      else await removeSlot(taken);
    },
  };
}

async function newSlot(): Promise<Slot | undefined> {
  const name = newCgroupName();
  const dirs: SlotDir[] = [];
  for (const hierarchy of hierarchies()) {
    const dir = path.join(hierarchy.base, name);
    try {
      await fs.mkdir(dir);
    } catch {
      await removeSlot({ dirs });
      return undefined;
    }
    dirs.push({ dir, hierarchy, oomKills: 0 });
  }
  return { dirs };
}

/** Writes the limits a slot does not have yet; false when the kernel refuses one. */
async function configure(slot: Slot, limits: { maxPids: number; memoryBytes: number }): Promise<boolean> {
  try {
    for (const entry of slot.dirs) {
      const { controllers, v1, extras } = entry.hierarchy;
      if (controllers.includes("pids") && entry.pidsMax !== limits.maxPids) {
        await write(entry.dir, "pids.max", limits.maxPids);
        entry.pidsMax = limits.maxPids;
      }
      if (controllers.includes("memory") && entry.memoryMax !== limits.memoryBytes) {
        entry.memoryMax = undefined; // unknown until every file is written
        if (v1) {
          // memsw (memory + swap) must stay ≥ the memory limit at every step: when raising, it goes first.
          const files = ["memory.limit_in_bytes", ...(extras.has("memory.memsw.limit_in_bytes") ? ["memory.memsw.limit_in_bytes"] : [])];
          const current = Number(await fs.readFile(path.join(entry.dir, "memory.limit_in_bytes"), "utf8"));
          for (const file of limits.memoryBytes > current ? files.reverse() : files) await write(entry.dir, file, limits.memoryBytes);
        } else {
          await write(entry.dir, "memory.max", limits.memoryBytes);
          if (extras.has("memory.swap.max")) await write(entry.dir, "memory.swap.max", 0);
          if (extras.has("memory.oom.group")) await write(entry.dir, "memory.oom.group", 1); // the kernel kills the whole call
        }
        entry.memoryMax = limits.memoryBytes;
      }
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * A cgroup file's text, or undefined when it cannot be read. Synchronous: the kernel answers at once,
 * and these are read after every call, where a thread-pool round trip per read showed.
 */
function readKernelFile(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function write(dir: string, file: string, value: number): Promise<void> {
  return fs.writeFile(path.join(dir, file), String(value), { flag: "r+" });
}

/** The OOM kill counter: v1 `memory.oom_control` `oom_kill N`, v2 `memory.events` `oom_kill N`. */
async function readOomKills(entry: SlotDir): Promise<number> {
  const text = readKernelFile(path.join(entry.dir, entry.hierarchy.v1 ? "memory.oom_control" : "memory.events")) ?? "";
  return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** SIGKILLs what is left in the slot's cgroups until none is; false when it cannot be reused. */
async function emptied(slot: Slot): Promise<boolean> {
  const started = performance.now();
  let timedLooks = 0;
  while (performance.now() - started < EMPTY_LIMIT_MS) {
    let listed = 0;
    for (const { dir } of slot.dirs) {
      const tasks = killCgroupTasks(dir);
      if (tasks === undefined) {
        void removeSlot(slot); // removed under us, or unreadable: not reused
        return false;
      }
      listed += tasks.listed;
    }
    // A task this namespace cannot see (listed, not signalled) keeps the slot from reuse once the time is up.
    if (listed === 0) return true;
    // What is left is mostly dying already (the PID namespace went with the call's pid 1, a forwarder
    // such as the egress socat with it) and gone within a millisecond or two, so the first looks come
    // at once (a timer waits at least 1 ms: a third of calls waited 1–3 ms here), then less and less
    // often. A flat 20 ms cost every call with egress 20 ms.
    if (performance.now() - started < QUICK_LOOKS_MS) await nextTurn();
    else await new Promise((resolve) => setTimeout(resolve, Math.min(20, 2 ** timedLooks++)));
  }
  void removeSlot(slot); // keeps trying in the background: rmdir fails while a task is inside
  return false;
}

async function removeSlot(slot: Slot): Promise<void> {
  for (const { dir } of slot.dirs) {
    for (let attempt = 0; attempt < DISPOSE_ATTEMPTS; attempt++) {
      try {
        await fs.rmdir(dir);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
}

/** Single-quoted for `sh`. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Whether per-call pids cgroups are in use (for diagnostics and tests). */
export function pidsCgroupAvailable(): boolean {
  return hierarchies().some((hierarchy) => hierarchy.controllers.includes("pids"));
}

/** Whether per-call memory cgroups are in use (for diagnostics and tests); else RLIMIT_AS alone. */
export function memoryCgroupAvailable(): boolean {
  return hierarchies().some((hierarchy) => hierarchy.controllers.includes("memory"));
}
