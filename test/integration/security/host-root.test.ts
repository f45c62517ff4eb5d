/**
 * Finding 1 — the sandbox is host root (emulator run as root, as in CI): its uid 1000 maps to host uid
 * 0, so the global sysctls under /proc/sys accept its writes (core_pattern alone is a host root code
 * execution: `|/path` runs as root on the next crash).
 *
 * - A code_execution opens each sysctl for writing and writes back the SAME value it just read (it
 *   never changes a host setting); none of the writes may succeed — but for `kernel.pid_max`, which
 *   since Linux 6.14 belongs to each PID namespace: the sandbox may set its own, so the probe writes
 *   its value minus one there and the host's must not move (restored at once should it have).
 * - Seen from the host, a file the agent creates in /workspace must not belong to uid 0.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { describeNeeding } from "../../support/prerequisites";
import { createEnvironment, executeTool, inlineFiles, python, startAttackEmulator, type AttackEmulator } from "./_attack";

const PID_MAX = "/proc/sys/kernel/pid_max";
const SYSCTLS = [
  "/proc/sys/kernel/core_pattern",
  "/proc/sys/kernel/panic",
  "/proc/sys/vm/overcommit_memory",
  "/proc/sys/kernel/pid_max",
  "/proc/sys/fs/file-max",
];

// Reads each value, then writes exactly that value back: the write is a no-op on the host either way.
const PROBE = `
import json, os
results = {}
for p in ${JSON.stringify(SYSCTLS)}:
    try:
        with open(p, "rb") as f:
            current = f.read()
    except OSError as e:
        results[p] = "unreadable: " + e.strerror
        continue
    try:
        fd = os.open(p, os.O_WRONLY)
    except OSError as e:
        results[p] = "open refused: " + e.strerror
        continue
    try:
        os.write(fd, (b"%d" % (int(current) - 1)) if p == ${JSON.stringify(PID_MAX)} else current)
        results[p] = "WRITTEN"
    except OSError as e:
        results[p] = "write refused: " + e.strerror
    finally:
        os.close(fd)
print(json.dumps(results))
`;

// As another user the sandbox's uids map to that user, never to host root: both tests would pass
// without proving anything.
describeNeeding({ "root (uid 0), as CI runs the tests": process.getuid?.() === 0 })("the sandbox of an emulator run as root", () => {
  let emulator: AttackEmulator;

  beforeAll(async () => {
    emulator = await startAttackEmulator();
  });

  test("no host sysctl is writable from a code_execution (each probe writes back the value it read)", async () => {
    const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
    const hostPidMax = readFileSync(PID_MAX, "utf8");
    const { status, body } = await executeTool(emulator, id, python(PROBE));
    const hostPidMaxAfter = readFileSync(PID_MAX, "utf8");
    if (hostPidMaxAfter !== hostPidMax) writeFileSync(PID_MAX, hostPidMax);
    expect(status).toBe(200);
    const results: Record<string, string> = JSON.parse(body.output);
    expect(Object.keys(results)).toEqual(SYSCTLS);
    // pid_max written inside is the sandbox's own PID namespace's, as long as the host's did not move.
    const written = SYSCTLS.filter((p) => results[p] === "WRITTEN" && (p !== PID_MAX || hostPidMaxAfter !== hostPidMax));
    expect({ writtenFromSandbox: written, results }).toEqual({ writtenFromSandbox: [], results });
  });

  test("a file the agent creates does not belong to host uid 0", async () => {
    const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
    const { body } = await executeTool(emulator, id, python("open('/workspace/f', 'w').write('x')\nimport os\nprint(os.getuid(), open('/proc/self/uid_map').read().split())"));
    expect(body.exit_code).toBe(0);
    const stat = statSync(path.join(emulator.dataDir, "trees", id, "workspace/f"));
    expect({ file: "workspace/f", hostUid: stat.uid, hostUidIsRoot: stat.uid === 0, inside: body.output.trim() }).toEqual({
      file: "workspace/f",
      hostUid: stat.uid,
      hostUidIsRoot: false,
      inside: body.output.trim(),
    });
  });
});
