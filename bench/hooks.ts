/**
 * The hooks runtime's cost: a pre hook (the security gate's gate.py) through the runtime and the
 * sandbox against the same script run bare by the same interpreter (`/usr/bin/python3`, the one the
 * sandbox sees — not a version-manager shim on PATH); and the whole `:executeTool` round trip over
 * HTTP (code_execution `echo hi` behind the gate) against doing the same two things bare.
 *
 * The same gate with `on_failure: "deny"`, compiled into its wrapper (hooks/on-failure.ts), against
 * itself bare, both through the runtime and the sandbox on the same benign call: the goal is 1.1× or
 * +5 ms a call, whichever is larger (issue 53).
 *
 * Each side and its baseline run alternately (medians of 21 each), so that both see the same machine.
 *
 * The goals for a hook and for a sandbox call are absolute ones — at most 10 ms and 2 ms above bare —
 * so the row's name carries the difference and `target` is that goal as a ratio of this run's baseline.
 */
import { spawn } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findBwrap, giveToSandbox, removeHostView, runInSandbox, sandboxHooks, sandboxOwner } from "../emulator/sandbox";
import { compileHooks, withOnFailure } from "../hooks/on-failure";
import { runHooks } from "../hooks/runtime";
import { HooksConfig } from "../hooks/schema";
import { runHooksDiff } from "../cli/commands/hooks-diff";
import { EnvironmentsClient } from "../client/client";
import { interleavedMedians, startServeProcess, type Comparison } from "./_measure";
import { probeRows } from "./_hooks-probe";

const RUNS = 21;
const SANDBOX_CALL_RUNS = 101; // a call is ~10 ms: more runs for a steadier median of a 2 ms goal
const PYTHON = "/usr/bin/python3";
const HOOK_GOAL_MS = 10; // above bare
const SANDBOX_CALL_GOAL_MS = 2; // above bare bwrap of the same command (issue 36)
const WRAPPER_GOAL_RATIO = 1.1; // on_failure deny's wrapper, against the same gate bare (issue 53) …
const WRAPPER_GOAL_MS = 5; // … or this much above it, whichever is larger
const TMPFS = "/dev/shm";
const GATE = path.join(__dirname, "..", "..", "examples", "security-gate", "hooks-scripts", "gate.py");
const HOOKS = {
  "security-gate": {
    pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command" as const, command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }],
  },
};
const CALL = { name: "code_execution", args: { code: "echo hi" } };

export async function benchHooks(): Promise<Comparison[]> {
  const gate = await fs.readFile(await gatePath(), "utf8");
  const payload = { tool_call: CALL, environment_id: "env_bench" };
  const stdin = JSON.stringify(payload);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "genv-bench-hooks-"));
  try {
    const rows: Comparison[] = [];
    await fs.mkdir(path.join(root, ".agents/hooks-scripts"), { recursive: true });
    await fs.mkdir(path.join(root, "workspace"));
    await fs.writeFile(path.join(root, ".agents/hooks.json"), JSON.stringify(HOOKS));
    const script = path.join(root, ".agents/hooks-scripts/gate.py");
    await fs.writeFile(script, gate);
    const wrapped = compileHooks(withOnFailure(HOOKS, "deny"));
    for (const [name, content] of Object.entries(wrapped.scripts)) await fs.writeFile(path.join(root, ".agents/hooks-scripts", name), content);
    await giveToSandbox(root);

    const config = HooksConfig.parse(HOOKS);
    const options = sandboxHooks(root);
    const viaRuntime = async () => {
      const verdict = await runHooks(config, "pre_tool_execution", payload, options);
      if (verdict.decision !== "allow" || verdict.hooks[0].failure) throw new Error(`unexpected verdict ${JSON.stringify(verdict)}`);
    };
    const bare = () => run(PYTHON, [script], stdin);
    await viaRuntime(); // warm caches on both sides
    await bare();
    const [hook, hookBare] = await interleavedMedians(RUNS, viaRuntime, bare);
    const extra = hook - hookBare;
    rows.push({
      name: `pre hook, runtime+sandbox (+${extra.toFixed(1)} ms; goal ≤+${HOOK_GOAL_MS})`,
      ours: hook,
      baselineName: "python3 gate.py (bare)",
      baseline: hookBare,
      target: Math.round(((hookBare + HOOK_GOAL_MS) / hookBare) * 100) / 100,
    });

    const wrappedConfig = HooksConfig.parse(wrapped.config);
    const viaWrapper = async () => {
      const verdict = await runHooks(wrappedConfig, "pre_tool_execution", payload, options);
      if (verdict.decision !== "allow" || verdict.hooks[0].failure) throw new Error(`unexpected verdict ${JSON.stringify(verdict)}`);
    };
    await viaWrapper();
    const [closed, open] = await interleavedMedians(RUNS, viaWrapper, viaRuntime);
    rows.push({
      name: `pre hook with on_failure deny, runtime+sandbox (+${(closed - open).toFixed(1)} ms; goal ≤1.1× or ≤+${WRAPPER_GOAL_MS} ms)`,
      ours: closed,
      baselineName: "the same gate without it",
      baseline: open,
      target: Math.round(Math.max(WRAPPER_GOAL_RATIO, (open + WRAPPER_GOAL_MS) / open) * 100) / 100,
    });

    if (sandboxOwner()) {
      rows.push(await sandboxCallRow(root, `tree in ${os.tmpdir()}`));
      // The same over a tree on tmpfs: the call's own cost without the tree's file system's. The
      // overlay makes a few inodes at every mount (its work directory, its checks), which an ext4
      // without a journal (this machine's) allocates by scanning past every inode deleted in the last
      // minutes (docs/performance.md).
      if (existsSync(TMPFS)) {
        const onTmpfs = await fs.mkdtemp(path.join(TMPFS, "genv-bench-hooks-"));
        try {
          await fs.mkdir(path.join(onTmpfs, "workspace"));
          await giveToSandbox(onTmpfs);
          rows.push(await sandboxCallRow(onTmpfs, `tree in ${TMPFS} (tmpfs)`));
        } finally {
          await fs.rm(onTmpfs, { recursive: true, force: true });
          await removeHostView(onTmpfs);
        }
      }
    }

    rows.push(await replayRow(root, gate));
    rows.push(...(await probeRows()));

    const server = await startServeProcess();
    const client = new EnvironmentsClient({ apiKey: server.key, baseUrl: server.url, timeoutMs: 60_000 });
    try {
      const env = await client.create({
        sources: [
          { type: "inline", target: ".agents/hooks.json", content: JSON.stringify(HOOKS) },
          { type: "inline", target: ".agents/hooks-scripts/gate.py", content: gate },
        ],
      });
      const roundTrip = async () => {
        const result = await client.executeTool(env.id, CALL);
        if (result.output !== "hi\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
      };
      await roundTrip();
      const [viaApi, bareBoth] = await interleavedMedians(RUNS, roundTrip, async () => {
        await run(PYTHON, [script], stdin);
        await run("/bin/bash", ["-c", "echo hi"], "");
      });
      rows.push({
        name: `:executeTool echo hi + gate, HTTP (+${(viaApi - bareBoth).toFixed(1)} ms)`,
        ours: viaApi,
        baselineName: "gate.py; bash echo (bare)",
        baseline: bareBoth,
        target: 3,
      });
      await client.delete(env.id);
    } finally {
      await client.close();
      await server.stop();
    }
    return rows;
  } finally {
    await fs.rm(root, { recursive: true, force: true });
    await removeHostView(root);
  }
}

/**
 * The sandbox's own cost, as root: a sandbox call of /bin/true over `root` against bare bwrap of the
 * same command with the same namespaces (a new network namespace included), the same system binds,
 * /proc, /dev, /tmp, a read-only /etc, hostname, uid and capabilities — started by root over a tree
 * bound directly, with none of the call's own work: the host view (mount namespace, overlay, user
 * switch), the cgroups and rlimits, the pipes and bookkeeping of runInSandbox.
 */
async function sandboxCallRow(root: string, where: string): Promise<Comparison> {
  const sandboxed = () => runInSandbox({ root, argv: ["/bin/true"], timeoutMs: 10_000 }).then(() => undefined);
  const systemBinds = ["usr", "bin", "sbin", "lib", "lib64"].filter((dir) => existsSync(`/${dir}`)).flatMap((dir) => ["--ro-bind", `/${dir}`, `/${dir}`]);
  // A tree of root's own: bwrap as root maps root to uid 1000 inside, which may not write the
  // sandbox user's tree (it makes its mount points there).
  const rootsTree = await fs.mkdtemp(path.join(os.tmpdir(), "genv-bench-root-tree-"));
  try {
    const bare = () =>
      run(findBwrap(), [
        "--unshare-all", "--die-with-parent", "--new-session", "--uid", "1000", "--gid", "1000", "--hostname", "sandbox", "--cap-drop", "ALL", "--clearenv",
        "--bind", rootsTree, "/", ...systemBinds, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", "/etc", "/etc", "/bin/true",
      ], "");
    await sandboxed();
    await bare();
    const [call, before] = await interleavedMedians(SANDBOX_CALL_RUNS, sandboxed, bare);
    return {
      name: `sandbox call /bin/true, as root, ${where} (+${(call - before).toFixed(1)} ms; goal ≤+${SANDBOX_CALL_GOAL_MS})`,
      ours: call,
      baselineName: "bare bwrap /bin/true, same namespaces and binds",
      baseline: before,
      target: Math.round(((before + SANDBOX_CALL_GOAL_MS) / before) * 100) / 100,
    };
  } finally {
    await fs.rm(rootsTree, { recursive: true, force: true });
  }
}

const REPLAY_RUNS = 3;
const RECORDED = 1000;
const DISTINCT = 200;
const REPLAY_GOAL = 1.5;

/**
 * `genv hooks diff --calls` of 1,000 recorded calls (200 distinct payloads, each recorded five times)
 * against the security gate and a change of it (downloads blocked too), against its floor: the bare
 * gate run once per distinct call per side (400 runs), as many at once as the replay runs (the CPUs).
 */
async function replayRow(scratch: string, gate: string): Promise<Comparison> {
  const sides = { base: gate, head: gate.replace('DESTRUCTIVE = re.compile(r"\\brm\\s+-(rf|fr)\\b")', 'DESTRUCTIVE = re.compile(r"\\brm\\s+-(rf|fr)\\b|\\bcurl\\b")') };
  if (sides.head === sides.base) throw new Error("the bench's change of gate.py no longer applies");
  const dirs: Record<string, string> = {};
  for (const [name, script] of Object.entries(sides)) {
    dirs[name] = path.join(scratch, `replay-${name}`);
    await fs.mkdir(path.join(dirs[name], "hooks-scripts"), { recursive: true });
    await fs.writeFile(path.join(dirs[name], "hooks.json"), JSON.stringify(HOOKS));
    await fs.writeFile(path.join(dirs[name], "hooks-scripts/gate.py"), script);
  }
  const codes = Array.from({ length: DISTINCT }, (_, i) => (i % 10 === 0 ? `rm -rf /tmp/build-${i}` : i % 7 === 0 ? `curl -s https://example.com/${i}` : `echo step ${i}`));
  const lines = Array.from({ length: RECORDED }, (_, i) => JSON.stringify({ tool_call: { name: "code_execution", args: { code: codes[(i * 37) % DISTINCT] } }, environment_id: "env_bench" }));
  const callsFile = path.join(scratch, "calls.jsonl");
  await fs.writeFile(callsFile, `${lines.join("\n")}\n`);
  const parallel = os.availableParallelism();
  const replay = async () => {
    const { calls } = await runHooksDiff({ base: dirs.base, head: dirs.head, callsFile, format: "json" });
    if (calls?.summary.total !== RECORDED || calls.distinct !== DISTINCT || calls.summary.errors > 0 || calls.summary.allowToDeny === 0) throw new Error(`unexpected replay ${JSON.stringify(calls?.summary)}`);
  };
  const scripts = Object.values(dirs).map((dir) => path.join(dir, "hooks-scripts/gate.py"));
  const floor = async () => {
    const runs = scripts.flatMap((script) => codes.map((code) => () => run(PYTHON, [script], JSON.stringify({ tool_call: { name: "code_execution", args: { code } }, environment_id: "env_bench" }))));
    let next = 0;
    await Promise.all(Array.from({ length: parallel }, async () => {
      while (next < runs.length) await runs[next++]();
    }));
  };
  await replay();
  await floor();
  const [ours, bare] = await interleavedMedians(REPLAY_RUNS, replay, floor);
  return {
    name: `replay ${RECORDED} recorded calls (${DISTINCT} distinct), 2 sides, ${parallel} at once`,
    ours,
    baselineName: `gate.py bare ×${2 * DISTINCT}, ${parallel} at once`,
    baseline: bare,
    target: REPLAY_GOAL,
  };
}

/** gate.py of the example, from the source tree (the bench runs from dist/). */
async function gatePath(): Promise<string> {
  for (const candidate of [GATE, path.join(__dirname, "..", "examples", "security-gate", "hooks-scripts", "gate.py")]) {
    if (await fs.stat(candidate).then(() => true, () => false)) return candidate;
  }
  throw new Error("examples/security-gate/hooks-scripts/gate.py not found");
}

function run(command: string, args: string[], stdin: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // HOME as in the sandbox (an empty directory): with stdin on a socket, Debian's bash sources ~/.bashrc.
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"], env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", HOME: os.tmpdir() } });
    child.stdout.resume();
    child.stdin.on("error", () => undefined); // EPIPE: `echo` never reads its stdin
    child.stdin.end(stdin);
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`))));
  });
}
