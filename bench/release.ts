/**
 * Start-up of the released plugin (spawn to its port on stdout, as the engine waits for it): the Linux
 * single executable (Node.js SEA, its bundle and the bundle's code cache injected) against the Node.js launcher with dist/ and
 * node_modules/, both from scripts/pack-plugin --release of this machine's Linux (the launcher's with
 * GENV_PLUGIN_SEA=0), alternating run by run; and, to tell the single executable's
 * own cost from the Node.js versions', the same launcher running the single executable's Node.js
 * (scripts/node-sea's binary) on the same files. Goal: the single executable starts no slower than
 * the launcher (within 1.1×). Runs from the repo after `npm run build`.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileAsync, startupMs, type Comparison } from "./_measure";
import { releasedPlugin } from "./_released-plugin";

const RUNS = 21;

export async function benchRelease(log: (line: string) => void = console.log): Promise<Comparison[]> {
  const repoRoot = path.resolve(__dirname, "..", "..");
  const arch = os.arch() === "x64" ? "amd64" : os.arch();
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "genv-bench-release-"));
  try {
    const executables: Record<"sea" | "launcher", string> = { sea: "", launcher: "" };
    for (const variant of ["sea", "launcher"] as const) {
      executables[variant] = await releasedPlugin(repoRoot, path.join(scratch, variant), { ...process.env, GENV_PLUGIN_SEA: variant === "sea" ? "1" : "0" });
    }
    const { stdout: seaTools } = await execFileAsync(path.join(repoRoot, "scripts", "node-sea"));
    const seaNode = path.join(seaTools.trim().split("\n").pop()!, `linux-${arch}`, "node");
    const sameNode = path.join(scratch, "launcher", "launcher-same-node");
    await fs.writeFile(sameNode, `#!/bin/sh\nexec "${seaNode}" "$(dirname "$0")/dist/provider/plugin/main.js" "$@"\n`, { mode: 0o755 });
    const env = { PATH: process.env.PATH ?? "", HOME: os.homedir() };
    const times = { sea: [] as number[], launcher: [] as number[], sameNode: [] as number[] };
    for (const executable of [executables.sea, executables.launcher, sameNode]) await startupMs(executable, env); // warm-up: page cache
    for (let i = 0; i < RUNS; i++) {
      times.sea.push(await startupMs(executables.sea, env));
      times.launcher.push(await startupMs(executables.launcher, env));
      times.sameNode.push(await startupMs(sameNode, env));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const { stdout: nodeVersion } = await execFileAsync("node", ["--version"]);
    const { stdout: seaVersion } = await execFileAsync(seaNode, ["--version"]);
    log(`  single executable: Node.js ${seaVersion.trim()} (scripts/node-sea); launcher: the node on PATH (${nodeVersion.trim()})`);
    return [
      { name: `plugin start-up, single executable (median of ${RUNS})`, ours: median(times.sea), baselineName: "Node.js launcher, same files", baseline: median(times.launcher), target: 1.1 },
      { name: `plugin start-up, single executable (median of ${RUNS})`, ours: median(times.sea), baselineName: `launcher on Node.js ${seaVersion.trim()}`, baseline: median(times.sameNode), target: 1.1 },
    ];
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}
