/**
 * `sweepSocketDirectories` (emulator/egress/proxy.ts) removes the egress socket directories of emulators
 * that are gone, told by pid and start time: a directory whose pid a live process now holds, started at
 * another time, is a dead emulator's and goes; a live owner's stays. Real directories in the temporary
 * directory, named as the proxy names them, owned by real processes.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sweepSocketDirectories } from "../../../emulator/egress";
import { startTimeOf } from "../../../emulator/process-identity";
import { exitedPid, useSleepers } from "../../support/owner-processes";

const sleeper = useSleepers();
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

test("a dead owner's directories go, its pid reused or not; a live owner's stay, named with or without its start time", async () => {
  const live = sleeper();
  const start = startTimeOf(live.pid!)!;
  const dead = await exitedPid();
  const socketDir = (owner: string): string => {
    const dir = mkdtempSync(path.join(os.tmpdir(), `genv-egress-${owner}-`));
    made.push(dir);
    return dir;
  };
  const reused = socketDir(`${live.pid}-${Number(start) - 1}`); // its pid now names another process
  const gone = socketDir(`${dead}-${start}`);
  const goneOld = socketDir(`${dead}`); // named before start times were
  const kept = socketDir(`${live.pid}-${start}`);
  const keptOld = socketDir(`${live.pid}`);

  await sweepSocketDirectories();

  const left = (dirs: string[]) => dirs.filter((dir) => existsSync(dir)).map((dir) => path.basename(dir));
  expect(left([reused, gone, goneOld])).toEqual([]);
  expect(left([kept, keptOld])).toEqual([kept, keptOld].map((dir) => path.basename(dir)));
});
