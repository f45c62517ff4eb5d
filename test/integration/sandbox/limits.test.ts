import { readdirSync, readFileSync } from "node:fs";
import { pidsCgroupAvailable, runCommandHook, runInSandbox, runTool } from "../../../emulator/sandbox";
import { listTree, makeTree } from "../../support/trees";
import { testNeeding } from "../../support/prerequisites";

const bash = (root: string, script: string, timeoutMs: number, limits = {}) =>
  runInSandbox({ root, argv: ["/bin/bash", "-c", script], timeoutMs, limits });

/** Host processes whose command line contains `marker`. */
function hostProcessesWith(marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("limits", () => {
  // As root RLIMIT_NPROC does not bind: only a pids cgroup bounds the processes.
  const testProcessBound = testNeeding({ "a pids cgroup the emulator can create, or a non-root user (as root, RLIMIT_NPROC does not bind)": pidsCgroupAvailable() || process.getuid?.() !== 0 });
  testProcessBound("the number of processes is bounded (pids cgroup, or RLIMIT_NPROC when not root)", async () => {
    const root = makeTree();
    const marker = `genv-forker-${process.pid}-${Date.now()}`;
    const code = [
      `import os, time  # ${marker}`,
      "forked = 0",
      "try:",
      "    for _ in range(100):",
      "        if os.fork() == 0:",
      "            time.sleep(30); os._exit(0)",
      "        forked += 1",
      "except OSError as e:",
      "    print(forked, type(e).__name__)",
    ].join("\n");
    const result = await runInSandbox({ root, argv: ["/usr/bin/python3", "-c", code], timeoutMs: 20_000, limits: { maxProcesses: 16 } });
    const [forked, error] = result.stdout.trim().split(" ");
    expect(error).toBe("BlockingIOError"); // EAGAIN
    expect(Number(forked)).toBeGreaterThanOrEqual(10);
    expect(Number(forked)).toBeLessThanOrEqual(15); // the command itself is the 16th
    // The children (sleeping 30 s, their command line holds the marker) died with the sandbox.
    expect(result.timedOut).toBe(false);
    expect(hostProcessesWith(marker)).toEqual([]);
  });

  test("a fork bomb is contained and killed by the wall-clock timeout", async () => {
    const root = makeTree();
    const result = await bash(root, "b(){ b | b & }; b; sleep 100", 2_000, { maxProcesses: 32 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL" });
    // Time is the point here: the call ends soon after its 2 s timeout, not after the bomb's `sleep 100`.
    // 10 s leaves a loaded 2-core machine five times the timeout to kill the tree.
    expect(result.durationMs).toBeLessThan(10_000);
  });

  test("a memory hog fails to allocate beyond the address-space limit", async () => {
    const root = makeTree();
    const result = await runTool(
      "code_execution",
      { code: "x = bytearray(2 * 1024**3)\nprint('allocated')", language: "python" },
      { root, limits: { memoryBytes: 512 * 1024 * 1024 } },
    );
    expect(result.output).toBe("");
    expect(result.error).toContain("MemoryError");
    expect(result.exitCode).toBe(1);
  });

  test("an infinite loop is killed by the CPU limit", async () => {
    const root = makeTree();
    const result = await bash(root, "while :; do :; done", 20_000, { cpuSeconds: 1 });
    expect(result).toMatchObject({ timedOut: false, exitCode: 128 + 24 }); // SIGXCPU, before the 20 s wall clock
  });

  test("the wall-clock timeout kills the whole process tree", async () => {
    const root = makeTree();
    const marker = `genv-marker-${process.pid}-${Date.now()}`;
    const result = await runTool(
      "code_execution",
      { code: `(exec -a ${marker} sleep 300) & (exec -a ${marker} sleep 300) & wait` },
      { root, timeoutMs: 1_000 },
    );
    expect(result).toEqual({
      output: "",
      error: "Execution timed out after 1 s and was killed.\n",
      exitCode: 137,
      failed: true,
    });
    expect(hostProcessesWith(marker)).toEqual([]);
    expect(listTree(root)).toEqual([]);
  });

  test("huge output is truncated at the cap and the call killed", async () => {
    const root = makeTree();
    const result = await bash(root, "yes", 20_000, { maxOutputBytes: 64 * 1024 });
    expect(result).toMatchObject({ truncated: true, timedOut: false, exitCode: null });
    expect(result.stdout.length).toBe(64 * 1024); // and killed at the cap: not timed out, `yes` never ends
  });

  test("/tmp is a size-capped tmpfs that does not persist", async () => {
    const root = makeTree();
    const result = await bash(root, "head -c 2000000 /dev/zero > /tmp/big; echo rc=$?", 20_000, { tmpBytes: 1024 * 1024 });
    expect(result.stdout).toBe("rc=1\n");
    expect(result.stderr).toContain("No space left on device");
    expect(listTree(root)).toEqual([]);
  });
});

describe("runCommandHook", () => {
  test("runs a hook script from the tree with the payload on stdin", async () => {
    const gate = [
      "import json, sys",
      "event = json.load(sys.stdin)",
      "if 'rm -rf' in json.dumps(event['tool_call']['args']):",
      "    print(json.dumps({'decision': 'deny', 'reason': 'Destructive command blocked by security gate.'}))",
      "else:",
      "    print(json.dumps({'decision': 'allow'}))",
    ].join("\n");
    const root = makeTree({ ".agents/hooks-scripts/gate.py": gate });
    const payload = {
      tool_call: { name: "code_execution", args: { code: "rm -rf /tmp/forbidden", language: "bash" } },
      environment_id: "env_xyz789",
    };
    const denied = await runCommandHook({ root, command: "python3 /.agents/hooks-scripts/gate.py", stdinJson: payload, timeoutSeconds: 10 });
    expect(JSON.parse(denied.stdout)).toEqual({ decision: "deny", reason: "Destructive command blocked by security gate." });

    const allowed = await runCommandHook({
      root,
      command: "python3 /.agents/hooks-scripts/gate.py",
      stdinJson: JSON.stringify({ ...payload, tool_call: { name: "code_execution", args: { code: "ls" } } }),
    });
    expect(JSON.parse(allowed.stdout)).toEqual({ decision: "allow" });
    expect(listTree(root)).toEqual([".agents/", ".agents/hooks-scripts/", ".agents/hooks-scripts/gate.py"]);
  });

  test("a hook that overruns its timeout is reported as timed out", async () => {
    const root = makeTree();
    const result = await runCommandHook({ root, command: "sleep 30", stdinJson: {}, timeoutSeconds: 0.5 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
  });
});
