/**
 * Real processes for the tests that judge what a process left on disk by its pid and start time: one
 * that runs until the test file ends, and the pid of one that has exited.
 */
import { spawn, type ChildProcess } from "node:child_process";

/** A `sleep` per call of the returned function, SIGKILLed (and waited for) after the calling test file. */
export function useSleepers(): () => ChildProcess {
  const running: ChildProcess[] = [];
  afterAll(async () => {
    const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
    await Promise.all(running.filter((child) => !exited(child)).map((child) => new Promise((resolve) => child.once("exit", resolve).kill("SIGKILL"))));
  });
  return () => {
    const child = spawn("sleep", ["120"], { stdio: "ignore" });
    running.push(child);
    return child;
  };
}

/** The pid of a process that has exited (until the kernel hands it out again). */
export async function exitedPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}
