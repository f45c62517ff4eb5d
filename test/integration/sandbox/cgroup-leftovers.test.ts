/**
 * The per-call cgroups that a killed emulator left behind are swept when a call's cgroup is made, told
 * apart from a live emulator's by pid and start time (pids are reused). The crash itself, with real
 * kills of `genv serve`: test/integration/robustness/crash.test.ts.
 */
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { pidsCgroupAvailable, runInSandbox } from "../../../emulator/sandbox";
import { cgroupBasesOf, startTimeOf } from "../../support/cgroups";
import { describeNeeding } from "../../support/prerequisites";
import { makeTree } from "../../support/trees";
import { exitedPid, useSleepers } from "../../support/owner-processes";

const sleeper = useSleepers();
const made: string[] = [];
afterAll(() => {
  for (const dir of made) if (existsSync(dir)) rmdirSync(dir);
});

describeNeeding({ "a pids cgroup the emulator can create (root: cgroup v1, or v2 with the controller delegated)": pidsCgroupAvailable() })("the leftovers of emulators that are gone", () => {
  test("are removed at the first call, busy ones emptied first, and a live process's are kept, even where a leftover's pid now names a live process", async () => {
    const [base] = cgroupBasesOf(process.pid);
    const live = sleeper();
    const liveStart = startTimeOf(live.pid!);
    const gonePid = await exitedPid();
    const cgroup = (owner: string, id: number): string => {
      const dir = path.join(base, `genv-sbx-${owner}-${String(id).padStart(12, "0")}`);
      mkdirSync(dir);
      made.push(dir);
      return dir;
    };
    const reused = cgroup(`${live.pid}-${Number(liveStart) - 1}`, 1); // its pid now names another process
    const gone = [2, 3, 4].map((id) => cgroup(`${gonePid}-${liveStart}`, id));
    const busy = [5, 6, 7].map((id) => cgroup(`${gonePid}-${liveStart}`, id)); // a call of the dead emulator runs on
    const busyTasks = busy.map((dir) => {
      const task = sleeper();
      writeFileSync(path.join(dir, "cgroup.procs"), String(task.pid));
      return task;
    });
    const kept = cgroup(`${live.pid}-${liveStart}`, 8);
    const keptOld = cgroup(`${live.pid}`, 9); // named before start times were: a live pid keeps it

    const result = await runInSandbox({ root: makeTree(), argv: ["/bin/true"], timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    const left = (dirs: string[]) => dirs.filter((dir) => existsSync(dir)).map((dir) => path.basename(dir));
    // Removed at once, whichever order the directory lists them in, the busy ones notwithstanding.
    expect(left([reused, ...gone])).toEqual([]);
    // The busy ones: their tasks killed, then removed.
    const exits = busyTasks.map((task) => new Promise((resolve) => (task.exitCode !== null || task.signalCode !== null ? resolve(task.signalCode) : task.once("exit", (_, signal) => resolve(signal)))));
    expect(await Promise.all(exits)).toEqual(["SIGKILL", "SIGKILL", "SIGKILL"]);
    const until = Date.now() + 5_000;
    while (left(busy).length > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(left(busy)).toEqual([]);
    expect(left([kept, keptOld])).toEqual([kept, keptOld].map((dir) => path.basename(dir)));
    expect(live.exitCode).toBeNull();
  });
});
