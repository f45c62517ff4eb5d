/**
 * `parseCgroupProcs` (emulator/sandbox/cgroup-tasks.ts): what a call's release and the leftovers' sweep
 * signal. This host's cgroups are v1, which leaves out the tasks a pid namespace cannot see, so the `0`
 * that v2 lists for them is given as text here rather than made for real.
 */
import { parseCgroupProcs } from "../../../emulator/sandbox/cgroup-tasks";

test("the pids listed, one a line", () => {
  expect(parseCgroupProcs("412\n9031\n")).toEqual({ pids: [412, 9031], listed: 2 });
});

test("an empty cgroup lists none", () => {
  expect(parseCgroupProcs("")).toEqual({ pids: [], listed: 0 });
});

test("a task this pid namespace cannot see (v2 lists it as 0) is never a pid to signal, yet keeps the cgroup from being empty", () => {
  expect(parseCgroupProcs("0\n412\n0\n")).toEqual({ pids: [412], listed: 3 });
  expect(parseCgroupProcs("0\n")).toEqual({ pids: [], listed: 1 });
});
