/** test/support/commands.ts: a command past its deadline fails at once, naming itself and what it printed. */
import * as fs from "node:fs";
import * as os from "node:os";

import { CommandError, runCommand, timeLeftOf, withDeadline } from "../../support/commands";

/** Whether process `pid` is alive: there, and not a zombie waiting for its parent to reap it. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

test("a command that finishes gives its output", async () => {
  await expect(runCommand(["sh", "-c", "echo out; echo err >&2"], { timeoutMs: 10_000 })).resolves.toEqual({ stdout: "out\n", stderr: "err\n" });
});

test("a command that fails names itself, its directory, its exit and its output", async () => {
  const failure = runCommand(["sh", "-c", "echo half; echo 'no such thing' >&2; exit 3"], { cwd: os.tmpdir(), timeoutMs: 10_000 });
  await expect(failure).rejects.toBeInstanceOf(CommandError);
  await expect(failure).rejects.toMatchObject({
    message: `\`sh -c 'echo half; echo '\\''no such thing'\\'' >&2; exit 3'\` in ${os.tmpdir()} exited 3; its output:\n--- stdout ---\nhalf\n\n--- stderr ---\nno such thing\n`,
    stdout: "half\n",
    timedOut: false,
  });
});

test("past its deadline, the command and what it started are killed, and the error says which command and what it printed so far", async () => {
  const started = Date.now();
  // A script whose child holds its output open: the wait must not depend on that child's end.
  const failure = await runCommand(["sh", "-c", "echo $$ working; sleep 30 & echo $! >&2; wait"], { timeoutMs: 1_000 }).then(
    () => undefined,
    (error: CommandError) => error,
  );
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(failure).toMatchObject({ timedOut: true, message: expect.stringMatching(/^`sh -c '.*'` in \S+ did not finish in 1 s and was killed; its output so far:\n--- stdout ---\n\d+ working\n/) });
  const [shell, sleeper] = [Number.parseInt(failure!.stdout, 10), Number.parseInt(failure!.stderr, 10)];
  for (let tries = 0; tries < 100 && (alive(shell) || alive(sleeper)); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect({ shell: alive(shell), sleeper: alive(sleeper) }).toEqual({ shell: false, sleeper: false });
});

test("timeLeftOf gives what is left of a test's timeout, less a margin", async () => {
  const left = timeLeftOf(60_000);
  expect(left()).toBeLessThanOrEqual(45_000);
  expect(left()).toBeGreaterThan(44_000);
});

describe("withDeadline", () => {
  /** An operation that stops when told, failing with what it printed, as the Automation API's do. */
  const stoppable = (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      const done = setTimeout(() => resolve("done"), 60_000);
      signal.addEventListener("abort", () => {
        clearTimeout(done);
        reject(new Error("interrupted; it printed: compiling"));
      });
    });

  test("gives the result of what finishes in time", async () => {
    await expect(withDeadline("quick", 5_000, async () => "done")).resolves.toBe("done");
  });

  test("past the deadline, interrupts the operation and names it, with its own error", async () => {
    await expect(withDeadline("pulumi up in /p", 200, stoppable)).rejects.toThrow("pulumi up in /p did not finish in 0 s and was interrupted: interrupted; it printed: compiling");
  });

  test("fails naming it even when the operation does not stop", async () => {
    jest.useFakeTimers();
    try {
      const failure = withDeadline("pulumi up in /p", 2_000, () => new Promise(() => undefined));
      const expectation = expect(failure).rejects.toThrow("pulumi up in /p did not finish in 2 s and was interrupted; it had not stopped 10 s later");
      await jest.advanceTimersByTimeAsync(12_000);
      await expectation;
    } finally {
      jest.useRealTimers();
    }
  });
});
