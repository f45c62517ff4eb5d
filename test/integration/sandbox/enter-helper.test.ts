/**
 * genv-sandbox-enter (emulator/sandbox/enter.c), the privileged step of every call as root: built on
 * first use where only root can change it, refusing to hand root to a sandbox, keeping its mounts in the
 * call's namespace, and giving exactly the sandbox that the shell way (unshare, sh, mount, setpriv) gives.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { runInSandbox, sandboxEnterPath, sandboxOwner } from "../../../emulator/sandbox";
import { describeNeeding } from "../../support/prerequisites";
import { makeTree } from "../../support/trees";

const SHELL_WAY = "GENV_SANDBOX_ENTER";

// What a process in the sandbox can learn about who and where it is. Mount ids and bwrap's temporary
// file names differ from call to call; everything else must not.
const PROBE = [
  "id",
  "grep -E '^(Uid|Gid|Groups|Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):' /proc/self/status",
  "ulimit -a",
  "cut -d' ' -f4- /proc/self/mountinfo | sed 's/bindfile[A-Za-z0-9]*/bindfile/'",
  "cat /proc/self/cgroup",
  // The network: through the helper a namespace made ahead (emulator/sandbox/_netns.ts), the shell way bwrap's own.
  "cut -d: -f1 /proc/net/dev | tail -n +3",
  "cat /proc/net/if_inet6",
  "(exec 3<>/dev/tcp/127.0.0.1/1) 2>&1 | sed 's/^.*: //'",
  "pwd",
].join("; ");

async function probe(root: string): Promise<string> {
  const result = await runInSandbox({ root, argv: ["/bin/bash", "-c", PROBE], timeoutMs: 20_000 });
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
  return result.stdout;
}

describeNeeding({
  "Linux": process.platform === "linux",
  "root (uid 0), as CI runs the tests": process.getuid?.() === 0,
  "/usr/bin/cc (Debian's gcc and libc6-dev, installed by scripts/prerequisites test)": existsSync("/usr/bin/cc"),
})("genv-sandbox-enter", () => {
  afterEach(() => {
    delete process.env[SHELL_WAY];
  });

  test("is built on first use where only root can change it", async () => {
    const helper = await sandboxEnterPath();
    expect(helper).toBeDefined();
    for (const file of [helper!, path.dirname(helper!)]) {
      const stat = lstatSync(file);
      expect(stat.uid).toBe(0);
      expect(stat.mode & 0o022).toBe(0);
    }
    expect(lstatSync(helper!).isFile()).toBe(true);
  });

  test("a sandbox entered through it is the one the shell way gives", async () => {
    const root = makeTree({ "workspace/a.txt": "a" });
    // The first overlay over a fresh tree shows `uuid=on` (the kernel gives the new upper layer a uuid),
    // later ones not, whichever way mounts them: both ways are compared on a tree mounted before.
    await probe(root);
    const throughHelper = await probe(root);
    process.env[SHELL_WAY] = "shell";
    const throughShell = await probe(root);
    expect(throughHelper).toEqual(throughShell);
    // And it is the sandbox it should be: the agent's uid, no capability, no supplementary group.
    expect(throughHelper).toMatch(/^uid=1000\(agent\) gid=1000\(agent\) groups=1000\(agent\)/);
    for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) expect(throughHelper).toMatch(new RegExp(`^${set}:\\s+0000000000000000$`, "m"));
    expect(throughHelper).toMatch(/^\/workspace$/m);
  });

  test("refuses to make a sandbox of root", async () => {
    const helper = spawnSync((await sandboxEnterPath())!, ["/nonexistent", "lower", "work", "/nonexistent", "0", String(sandboxOwner()!.gid), "--", "/bin/true"], { encoding: "utf8" });
    expect(helper.status).toBe(125);
    expect(helper.stderr).toContain("UID and GID must not be 0");
    // 2^32 + 1 would wrap to uid 1 (daemon) as a uid_t.
    const wrapping = spawnSync((await sandboxEnterPath())!, ["/nonexistent", "lower", "work", "/nonexistent", String(2 ** 32 + 1), "1000000000", "--", "/bin/true"], { encoding: "utf8" });
    expect(wrapping.status).toBe(125);
    expect(wrapping.stderr).toContain("UID and GID must be below 4294967295");
  });

  test("its mounts stay in the call's own namespace", async () => {
    const root = makeTree();
    const result = await runInSandbox({ root, argv: ["/bin/true"], timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain("genv-tree");
  });
});

