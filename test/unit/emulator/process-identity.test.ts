/**
 * `processGone` (emulator/process-identity): a name left on disk by a process, judged by its pid and
 * start time, on real processes: a pid that a live process holds is not enough to keep what a dead
 * one left (pids are reused), and a dead pid is gone whatever the name says.
 */
import { processGone, selfIdentity, startTimeOf } from "../../../emulator/process-identity";
import { exitedPid, useSleepers } from "../../support/owner-processes";

const sleeper = useSleepers();

test("a live process with the start time of the name is not gone; with another start time (its pid reused) it is", () => {
  const live = sleeper();
  const start = startTimeOf(live.pid!)!;
  expect(start).toMatch(/^\d+$/);
  expect(processGone(live.pid!, start)).toBe(false);
  expect(processGone(live.pid!, String(Number(start) - 1))).toBe(true);
});

test("a pid no process holds is gone, with or without a start time; a live pid without one is not", async () => {
  const dead = await exitedPid();
  expect(startTimeOf(dead)).toBeUndefined();
  expect(processGone(dead, "12345")).toBe(true);
  expect(processGone(dead)).toBe(true);
  expect(processGone(sleeper().pid!)).toBe(false);
});

test("this process's own identity is its pid and start time", () => {
  expect(selfIdentity).toBe(`${process.pid}-${startTimeOf(process.pid)}`);
  const [pid, start] = selfIdentity.split("-");
  expect(processGone(Number(pid), start)).toBe(false);
});
