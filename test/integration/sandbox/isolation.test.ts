import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { runInSandbox, runTool } from "../../../emulator/sandbox";
import { listTree, makeHostDir, makeTree } from "../../support/trees";

const bash = (root: string, script: string) => runInSandbox({ root, argv: ["/bin/bash", "-c", script], timeoutMs: 20_000 });

describe("what the sandbox can see", () => {
  test("host secrets, home directories and paths outside the tree are invisible", async () => {
    const root = makeTree({ "workspace/a.txt": "a" });
    const outside = makeHostDir();
    writeFileSync(path.join(outside, "secret.txt"), "host secret");
    const paths = ["/etc/shadow", "/etc/ssh", "/root", "/home", outside, path.join(outside, "secret.txt"), process.cwd()];
    const result = await bash(root, paths.map((p) => `test -e '${p}' && echo "VISIBLE ${p}"`).join("; ") + "; ls /etc");
    expect(result.stdout.split("\n").filter((line) => line.startsWith("VISIBLE"))).toEqual([]);
    // The sandbox's /etc is generated: none of the host's configuration.
    expect(result.stdout.split("\n").filter(Boolean).sort()).toEqual(["alternatives", "group", "hosts", "ld.so.cache", "localtime", "passwd"].filter((f) => f !== "localtime" || existsSync("/etc/localtime")));
  });

  test("/etc holds the host's loader cache, alternatives and time zone as they are, and cannot be written", async () => {
    const root = makeTree();
    const result = await bash(
      root,
      "sha256sum /etc/ld.so.cache | cut -d' ' -f1; for f in /etc/alternatives/*; do echo \"${f##*/} $(readlink \"$f\")\"; done | sha256sum | cut -d' ' -f1; " +
        "readlink /etc/localtime || echo none; cat /etc/passwd; touch /etc/probe /etc/alternatives/probe 2>&1 | grep -c 'Read-only file system'",
    );
    const host = (script: string) => execFileSync("/bin/bash", ["-c", script], { encoding: "utf8" });
    const expected = [
      host("sha256sum /etc/ld.so.cache | cut -d' ' -f1"),
      host("for f in /etc/alternatives/*; do echo \"${f##*/} $(readlink \"$f\")\"; done | sha256sum | cut -d' ' -f1"),
      host("readlink /etc/localtime || echo none"),
    ].join("");
    expect(result.stdout.startsWith(expected)).toBe(true);
    expect(result.stdout).toContain("agent:x:1000:1000:agent:/tmp:/bin/bash\n");
    expect(result.stdout.trim().split("\n").at(-1)).toBe("2");
  });

  test("/usr is read-only", async () => {
    const root = makeTree();
    const result = await bash(root, "touch /usr/genv-probe");
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("Read-only file system");
    expect(await runTool("write_to_file", { path: "/usr/lib/genv-probe", content: "x" }, { root })).toEqual({
      error: "/usr/lib/genv-probe: Read-only file system",
      failed: true,
    });
    expect(existsSync("/usr/lib/genv-probe")).toBe(false);
  });

  test("no network: a server on the host's loopback is unreachable and names do not resolve", async () => {
    const root = makeTree();
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const code = [
        "import socket",
        "for target in [('127.0.0.1', PORT)]:",
        "    try:",
        "        socket.create_connection(target, timeout=3); print('CONNECTED')",
        "    except OSError as e: print('refused', type(e).__name__)",
        "try:",
        "    socket.getaddrinfo('example.com', 443); print('RESOLVED')",
        "except OSError as e: print('no dns', type(e).__name__)",
        "print(sorted(n for _, n in socket.if_nameindex()))",
      ].join("\n").replace("PORT", String(port));
      const result = await runTool("code_execution", { code, language: "python" }, { root });
      expect(result.output).toBe("refused ConnectionRefusedError\nno dns gaierror\n['lo']\n");
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("own PID namespace: only the sandbox's processes exist", async () => {
    const root = makeTree();
    const result = await bash(root, "tr '\\0' ' ' < /proc/1/cmdline; echo; ls /proc | grep -cE '^[0-9]+$'");
    const [pid1, count] = result.stdout.trim().split("\n");
    // bwrap is pid 1; its options came on a descriptor, so no host path of the layout shows.
    expect(pid1).toMatch(/^\/usr\/bin\/bwrap --args \d+ -- \/bin\/bash -c /);
    expect(pid1).not.toContain(root);
    expect(Number(count)).toBeLessThan(6);
  });

  test("runs as an unprivileged user with a clean environment", async () => {
    const root = makeTree();
    const result = await bash(root, "id -un; id -u; env | sort | cut -d= -f1 | tr '\\n' ' '; echo; grep CapEff /proc/self/status");
    expect(result.stdout).toBe(
      "agent\n1000\nHOME LANG LOGNAME PATH PWD PYTHONDONTWRITEBYTECODE SHLVL TMPDIR USER _ \nCapEff:\t0000000000000000\n",
    );
  });
});

describe("symlink escapes", () => {
  test("a link to a host file reaches the sandbox's own file, never the host's", async () => {
    const root = makeTree({ "workspace/.keep": "" });
    const outside = makeHostDir();
    writeFileSync(path.join(outside, "secret.txt"), "host secret");
    await bash(root, `ln -s /etc/passwd /workspace/passwd; ln -s /etc/shadow /workspace/shadow; ln -s '${outside}/secret.txt' /workspace/secret; ln -s / /workspace/up`);

    const passwd = await runTool("view_file", { path: "/workspace/passwd" }, { root });
    expect(passwd.output).not.toBe(readFileSync("/etc/passwd", "utf8"));
    expect(passwd.output).not.toMatch(/^root:/m);
    expect(await runTool("view_file", { path: "/workspace/shadow" }, { root })).toMatchObject({ failed: true });
    expect(await runTool("view_file", { path: "/workspace/secret" }, { root })).toMatchObject({ failed: true });
    expect(await runTool("view_file", { path: "/workspace/up/root/.bashrc" }, { root })).toMatchObject({ failed: true });

    // Writing through a link to a host path does not touch the host either.
    await runTool("write_to_file", { path: "/workspace/secret", content: "overwritten" }, { root });
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("host secret");
  });
});

describe("the environment tree after calls", () => {
  test("holds exactly the agent's files: no mount points left behind", async () => {
    const root = makeTree({ "workspace/a.txt": "a", ".agents/hooks.json": "{}" });
    await bash(root, "ls / > /dev/null; echo data > /main2.py; mkdir -p /data/x; touch /tmp/gone; python3 -c 'import json'");
    await runTool("list_dir", { path: "/" }, { root });
    expect(listTree(root)).toEqual([".agents/", ".agents/hooks.json", "data/", "data/x/", "main2.py", "workspace/", "workspace/a.txt"]);
  });

  test("concurrent calls on one tree are serialised and leave it clean", async () => {
    const root = makeTree({ "workspace/.keep": "" });
    // Each call writes its start and end to a log in the tree, with a pause between: calls that
    // overlapped would interleave there. Serialised, they run whole, one after another, in call order.
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        bash(root, `echo start ${i} >> /workspace/log && ls /usr > /dev/null && sleep 0.2 && echo ${i} > /workspace/${i}.txt && echo end ${i} >> /workspace/log && echo ok`),
      ),
    );
    expect(results.map((r) => r.stdout)).toEqual(["ok\n", "ok\n", "ok\n", "ok\n"]);
    expect(readFileSync(path.join(root, "workspace/log"), "utf8").trim().split("\n")).toEqual([0, 1, 2, 3].flatMap((i) => [`start ${i}`, `end ${i}`]));
    expect(listTree(root)).toEqual(["workspace/", "workspace/.keep", "workspace/0.txt", "workspace/1.txt", "workspace/2.txt", "workspace/3.txt", "workspace/log"]);
  });

  test("a file at a reserved name is refused rather than followed", async () => {
    const root = makeTree({ "workspace/.keep": "" });
    const { symlinkSync } = await import("node:fs");
    symlinkSync("/root", path.join(root, "tmp"));
    await expect(bash(root, "true")).rejects.toMatchObject({ code: "GENV_RESERVED_PATH", status: "FAILED_PRECONDITION" });
  });
});
