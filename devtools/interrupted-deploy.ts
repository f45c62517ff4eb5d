/**
 * The acceptance run of issue 22, by hand: COUNT identical environments (default 20) through the
 * dynamic provider or the plugin, against an emulator that answers every create 4 s late;
 * `pulumi up` killed (its process group, SIGKILL) once the API holds KILL_AT or more (default 8: the
 * engine's creates start together, as many as its parallelism, 8 on 2 cores, and land together, so
 * asked for 12 it kills at 16); then
 * `pulumi cancel`, `genv recover`, `pulumi up`, `pulumi destroy`, printing the environments on the
 * API after each step, the orphans (on the API, in no state) and duplicates, and the provider
 * processes of the killed run still alive 5 s after the kill.
 *
 *   node -r ./test/support/ts-register.js devtools/interrupted-deploy.ts [dynamic|plugin] [COUNT] [KILL_AT]
 */
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { createPackedWorkspace } from "./packed-workspace";
import { ensurePulumiEngine, localPulumiEnv } from "./pulumi-engine";
import { startEmulator } from "../emulator/server";
import { EnvironmentsClient } from "../client/client";

const execFileAsync = promisify(execFile);
const REPO = path.resolve(__dirname, "..");
const KEY = "interrupted-deploy";

async function main(): Promise<void> {
  const [provider = "dynamic", count = "20", killAt = "8"] = process.argv.slice(2);
  const binDir = await ensurePulumiEngine(REPO);
  const workspace = await createPackedWorkspace({ repoRoot: REPO, build: true, log: (line) => process.stderr.write(`${line}\n`) });
  const emulator = await startEmulator({ inMemory: true, apiKeys: [KEY], faults: "rate=1,kinds=slow,routes=create,delay=4s" });
  const client = new EnvironmentsClient({ apiKey: KEY, baseUrl: emulator.url });
  try {
    const api = provider === "plugin" ? "genv.plugin" : "genv";
    const body = `const genv = require("pulumi-gemini-environments");\nfor (let i = 0; i < ${Number(count)}; i++) new ${api}.Environment("agent-" + i, { sources: [{ type: "inline", target: "task.txt", content: "same\\n" }] });\n`;
    const pluginYaml = `name: interrupted\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nplugins:\n  providers:\n    - name: gemini-environments\n      path: ${path.join(workspace.root, "node_modules", "pulumi-gemini-environments", "bin")}\n`;
    const dir = await workspace.addProgram("interrupted", { "index.js": body }, provider === "plugin" ? pluginYaml : undefined);
    const [home, backend] = [path.join(workspace.root, "home"), path.join(workspace.root, "backend")];
    await Promise.all([fs.promises.mkdir(home), fs.promises.mkdir(backend)]);
    const env = { ...localPulumiEnv(binDir, home, backend), GOOGLE_API_KEY: KEY, GOOGLE_GEMINI_BASE_URL: emulator.url };
    const run = async (file: string, args: string[]) => {
      try {
        return (await execFileAsync(file, args, { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
      } catch (error) {
        return `exit ${(error as { code: number }).code}: ${(error as { stdout: string }).stdout}${(error as { stderr: string }).stderr}`;
      }
    };
    const pulumi = (...args: string[]) => run(path.join(binDir, "pulumi"), [...args, "--non-interactive"]);
    const onApi = async () => {
      const ids: string[] = [];
      for await (const environment of client.listAll()) ids.push(environment.id);
      return ids;
    };
    const inState = async () => {
      const { deployment } = JSON.parse(await pulumi("stack", "export"));
      return (deployment.resources ?? []).filter((resource: { type: string }) => resource.type.endsWith("Environment")).map((resource: { id: string }) => resource.id) as string[];
    };
    const report = async (step: string) => {
      const [ids, held] = [await onApi(), await inState()];
      console.log(`${step}: ${ids.length} on the API, ${held.length} in state, ${ids.filter((id) => !held.includes(id)).length} orphans, ${Math.max(0, ids.length - Number(count))} beyond the ${count} declared`);
    };

    await pulumi("stack", "init", "dev");
    const child = spawn(path.join(binDir, "pulumi"), ["up", "--yes", "--skip-preview", "--non-interactive"], { cwd: dir, env, detached: true, stdio: "ignore" });
    while ((await onApi()).length < Number(killAt)) await new Promise((resolve) => setTimeout(resolve, 50));
    const tree: string = await execFileAsync("ps", ["-o", "pid=,args=", "--ppid", String(child.pid)]).then(({ stdout }) => stdout);
    process.kill(-child.pid!, "SIGKILL");
    console.log(`killed pulumi up with ${(await onApi()).length} environments on the API`);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const providers = tree.split("\n").filter((line) => /plugin\/main\.js|pulumi-resource-gemini|dynamic-provider|pulumi-resource-pulumi-nodejs/.test(line));
    const alive = providers.filter((line) => fs.existsSync(`/proc/${line.trim().split(" ")[0]}`));
    console.log(`5 s after the kill: ${alive.length} of ${providers.length} provider processes of the run alive${alive.length ? `: ${alive.join("; ")}` : ""}`);
    await report("after the kill (4 s answers arrived to nobody)");
    await pulumi("cancel", "--yes");
    console.log((await run(path.join(workspace.root, "node_modules", ".bin", "genv"), ["recover"])).trim());
    await report("after genv recover");
    await pulumi("up", "--yes", "--skip-preview");
    await report("after pulumi up");
    await pulumi("destroy", "--yes", "--skip-preview");
    await report("after pulumi destroy");
    // What the killed run left that never exits on its own (Pulumi's language host): ended by pid.
    for (const line of tree.split("\n").filter(Boolean)) {
      const pid = Number(line.trim().split(" ")[0]);
      if (fs.existsSync(`/proc/${pid}`)) process.kill(pid, "SIGKILL");
    }
  } finally {
    await client.close();
    await emulator.close();
    await workspace.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
