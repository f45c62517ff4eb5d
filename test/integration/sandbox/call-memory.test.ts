/**
 * The memory limit of a whole call (a memory cgroup): RLIMIT_AS bounds each process, so without it
 * four processes under a 1 GiB RLIMIT_AS held 3.6 GiB. Real sandbox, real kernel OOM killer.
 */
import { memoryCgroupAvailable, runCommandHook, runTool } from "../../../emulator/sandbox";
import { residentBytesOfEach } from "../../support/host-processes";
import { makeTree } from "../../support/trees";
import { describeNeeding } from "../../support/prerequisites";

const MiB = 1024 ** 2;

/** Resident bytes of the host processes whose command line contains `marker`, summed. */
const residentBytesOf = (marker: string) => residentBytesOfEach(marker).reduce((sum, bytes) => sum + bytes, 0);

/** bash running `count` python processes (argv[0] = `marker`) that each touch `mib` MiB and wait. */
function hogs(marker: string, count: number, mib: number): string {
  const python = `import time; x = b'\\x01' * (${mib} << 20); print('held', flush=True); time.sleep(4)`;
  return `for i in $(seq ${count}); do (exec -a ${marker} python3 -c "${python}") & done; wait; echo done`;
}

// Without one, only RLIMIT_AS per process binds: nothing here would hold.
const describeMemory = describeNeeding({ "a memory cgroup the emulator can create (cgroup v2, memory controller delegated; root in CI)": memoryCgroupAvailable() });

describeMemory("memory of the whole call", () => {
  test("four processes touching 900 MiB each hold at most the call's 1 GiB, and the call is killed saying why", async () => {
    const marker = `genv-hog-${process.pid}-${Date.now()}`;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytesOf(marker))), 5);
    const result = await runTool("code_execution", { code: hogs(marker, 4, 900) }, { root: makeTree(), timeoutMs: 30_000 }).finally(() =>
      clearInterval(sampler),
    );
    expect(result).toMatchObject({ exitCode: 137, failed: true });
    expect(result.error).toContain("Killed: the call used more than 1 GiB of memory (all its processes together).\n");
    expect(result.output).not.toContain("done");
    expect(peak).toBeGreaterThan(800 * MiB); // the sampler saw the hogs at work
    expect(peak).toBeLessThanOrEqual(1024 * MiB + 64 * MiB); // resident: the limit plus shared library pages
    expect(residentBytesOf(marker)).toBe(0); // nothing outlived the call
  });

  test("300 MiB in total, in three processes, is fine", async () => {
    const marker = `genv-ok-${process.pid}-${Date.now()}`;
    const result = await runTool("code_execution", { code: hogs(marker, 3, 100).replace("time.sleep(4)", "time.sleep(0.2)") }, { root: makeTree(), timeoutMs: 30_000 });
    expect(result).toEqual({ output: "held\nheld\nheld\ndone\n", exitCode: 0, failed: false });
  });

  test("the /tmp tmpfs counts: 40 MiB in /tmp plus 40 MiB in a process passes a 64 MiB call limit", async () => {
    const code = "head -c 41943040 /dev/zero > /tmp/fill && python3 -c \"x = b'\\x01' * (40 << 20); print('held')\"; echo rc=$?";
    const result = await runTool("code_execution", { code }, { root: makeTree(), timeoutMs: 30_000, limits: { callMemoryBytes: 64 * MiB } });
    // The OOM killer took python; then either bash reports it before the watcher kills the rest of the
    // call, or the watcher is first and bash prints nothing: both are the call killed for memory.
    expect(["rc=137\n", ""]).toContain(result.output);
    expect(result.error).toContain("Killed: the call used more than 64 MiB of memory (all its processes together).\n");
  });

  test("a hook over the limit fails open, saying why", async () => {
    const run = await runCommandHook({
      root: makeTree(),
      command: "python3 -c \"x = b'\\x01' * (200 << 20)\"",
      stdinJson: {},
      limits: { callMemoryBytes: 64 * MiB },
    });
    expect(run.memoryExceeded).toBe(true);
    expect(run.exitCode === null || run.exitCode === 137).toBe(true); // killed by us, or by the kernel alone
  });

  test("calls after a killed one start clean (the cgroup is reused without its kill count)", async () => {
    const root = makeTree();
    const killed = await runTool("code_execution", { code: "python3 -c \"x = b'\\x01' * (200 << 20)\"" }, { root, limits: { callMemoryBytes: 64 * MiB } });
    expect(killed.exitCode).toBe(137);
    for (let i = 0; i < 3; i++) {
      const fine = await runTool("code_execution", { code: "echo ok" }, { root, limits: { callMemoryBytes: 64 * MiB } });
      expect(fine).toEqual({ output: "ok\n", exitCode: 0, failed: false });
    }
  });
});
