/**
 * Finding 4 — host paths visible from inside the sandbox. The mount tables a tool call can read
 * (/proc/self/mountinfo, /proc/self/mounts, /proc/1/mountinfo) must not name the emulator's data
 * directory, the environment's id (its tree is `<data>/trees/<id>`), nor the host directory of the
 * egress proxy's sockets (`<tmp>/genv-egress-XXXXXX`; the in-sandbox `/etc/genv-egress/proxy.sock` is
 * the documented mount point and is allowed). The environment has a network allowlist, so egress is
 * attached to the call.
 */
import { realpathSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { bash, createEnvironment, executeTool, inlineFiles, startAttackEmulator, type AttackEmulator } from "./_attack";

let emulator: AttackEmulator;

beforeAll(async () => {
  emulator = await startAttackEmulator();
});

test("the mount tables inside a tool call name no host path: data directory, environment id, egress socket directory", async () => {
  const id = await createEnvironment(emulator, {
    sources: inlineFiles({ "workspace/a.txt": "a" }),
    network: { allowlist: [{ domain: "api.example.com" }] },
  });
  const script = [
    "test -S /etc/genv-egress/proxy.sock && echo EGRESS-ATTACHED",
    "for f in /proc/self/mountinfo /proc/self/mounts /proc/1/mountinfo; do echo \"== $f\"; cat $f; done",
  ].join("\n");
  const { status, body } = await executeTool(emulator, id, bash(script));
  expect(status).toBe(200);
  const output: string = body.output;
  // Not vacuous: egress is attached and the tables were read.
  expect(output.split("\n")[0]).toBe("EGRESS-ATTACHED");
  expect(output).toContain("== /proc/1/mountinfo");

  const dataDirs = [...new Set([emulator.dataDir, realpathSync(emulator.dataDir)])];
  const egressDir = new RegExp(`${path.join(os.tmpdir(), "genv-egress-").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\w+|/genv-egress-\\w{6}`);
  const leaks = output.split("\n").filter((line) => dataDirs.some((dir) => line.includes(dir)) || line.includes(id) || egressDir.test(line));
  expect({ environment: id, dataDir: emulator.dataDir, leakingLines: leaks }).toEqual({ environment: id, dataDir: emulator.dataDir, leakingLines: [] });
});
