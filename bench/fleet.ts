/**
 * The real Pulumi engine on examples/fleet with `count=50` against `genv serve` (its own process,
 * request log as JSON on stderr), compared with a plain script that sends the same 50
 * CreateEnvironment requests through the sdk at the engine's default parallelism (`--parallel`
 * defaults to 4 × GOMAXPROCS in Pulumi 3.248: 4 per CPU), and the same for delete. One run each:
 * a `pulumi up` of 50 takes seconds, and the engine's own start-up is shown separately (`up` of the
 * same program with `count=0`, and a no-op `preview` of the 50), with the API calls per resource of
 * up, no-op preview and refresh. An `up` of `count=1` adds the dynamic-provider host's start-up (a
 * Node.js process loading @pulumi/pulumi, about half a second), which `count=0` never launches. Runs from the repo after `npm run build` (npm run bench).
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createPackedWorkspace } from "../cli/commands/_packed-workspace";
import { ensurePulumiEngine, localPulumiEnv, pulumiCommand } from "../cli/commands/_pulumi-engine";
import { startServeProcess, type Comparison } from "./_measure";

const execFileAsync = promisify(execFile);

const COUNT = 50;
/** Pulumi 3.248's default `--parallel`: `4 * GOMAXPROCS` (cmd/pulumi/operations/up.go, defaultParallel). */
const ENGINE_PARALLEL = Number(process.env.PULUMI_PARALLEL) > 0 ? Number(process.env.PULUMI_PARALLEL) : 4 * (Number(process.env.GOMAXPROCS) || os.availableParallelism());

/**
 * The baseline, run as its own Node process like any script: the requests from a JSON file, `parallel`
 * at a time; prints the created ids (create) or nothing (delete).
 */
const SDK_SCRIPT = `"use strict";
const fs = require("node:fs");
const { EnvironmentsClient } = require(process.argv[2]);
const [, , , mode, file, parallel] = process.argv;
const items = JSON.parse(fs.readFileSync(file, "utf8"));
const client = new EnvironmentsClient();
const results = new Array(items.length);
let next = 0;
async function worker() {
  while (next < items.length) {
    const index = next++;
    results[index] = mode === "create" ? (await client.create(items[index])).id : await client.delete(items[index]);
  }
}
Promise.all(Array.from({ length: Number(parallel) }, worker))
  .then(() => client.close())
  .then(() => process.stdout.write(JSON.stringify(results)))
  .catch((error) => { console.error(error); process.exit(1); });
`;

interface LogEntry {
  method: string;
  path: string;
}

export async function benchFleet(log: (line: string) => void = console.log): Promise<Comparison[]> {
  const repoRoot = path.resolve(__dirname, "..", "..");
  const requests: LogEntry[] = [];
  const server = await startServeProcess(["--log-format", "json"], (line) => {
    if (line.startsWith("{")) requests.push(JSON.parse(line) as LogEntry);
  });
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "genv-bench-fleet-"));
  const workspace = await createPackedWorkspace({ repoRoot, build: false });
  try {
    const binDir = await ensurePulumiEngine(repoRoot);
    await Promise.all(["home", "backend"].map((dir) => fs.mkdir(path.join(scratch, dir))));
    const env = { ...localPulumiEnv(binDir, path.join(scratch, "home"), path.join(scratch, "backend")), GOOGLE_API_KEY: server.key, GOOGLE_GEMINI_BASE_URL: server.url };
    const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
    const dir = await workspace.addExample("fleet");
    const stack = await LocalWorkspace.createOrSelectStack({ stackName: "bench", workDir: dir }, { envVars: env, pulumiCommand: await pulumiCommand(binDir) });

    const timed = async <T>(body: () => Promise<T>): Promise<{ ms: number; calls: LogEntry[]; result: T }> => {
      const before = requests.length;
      const started = performance.now();
      const result = await body();
      const ms = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 100)); // the last log lines
      return { ms, calls: requests.slice(before), result };
    };
    const perResource = (calls: LogEntry[]) => {
      const byMethod = new Map<string, number>();
      for (const call of calls) byMethod.set(call.method, (byMethod.get(call.method) ?? 0) + 1);
      const parts = [...byMethod].map(([method, n]) => `${(n / COUNT).toFixed(2)} ${method}`);
      return `${(calls.length / COUNT).toFixed(2)} per resource${parts.length ? ` (${parts.join(", ")})` : ""}`;
    };

    // The engine's fixed cost: the same program with nothing to create.
    await stack.setConfig("count", { value: "0" });
    const empty = await timed(() => stack.up());
    // The dynamic-provider host's start-up on top: one environment, removed again before the fleet.
    await stack.setConfig("count", { value: "1" });
    const one = await timed(() => stack.up());
    await stack.setConfig("count", { value: "0" });
    await stack.up();
    await stack.setConfig("count", { value: String(COUNT) });
    const up = await timed(() => stack.up());
    if (up.result.outputs.environmentIds.value.length !== COUNT) throw new Error(`pulumi up created ${up.result.outputs.environmentIds.value.length} environments`);
    const preview = await timed(() => stack.preview());
    const refresh = await timed(() => stack.refresh());
    const requestsOf = ((await stack.exportStack()).deployment.resources as Array<{ type: string; inputs: Record<string, unknown> }>)
      .filter((r) => r.type === "pulumi-nodejs:dynamic/gemini-environments:Environment")
      .map(({ inputs }) => ({ sources: inputs.sources, network: inputs.network }));
    const destroy = await timed(() => stack.destroy());

    // The baseline: the same 50 requests from a plain sdk script at the engine's parallelism.
    const script = path.join(scratch, "fleet-sdk.js");
    await fs.writeFile(script, SDK_SCRIPT);
    await fs.writeFile(path.join(scratch, "create.json"), JSON.stringify(requestsOf));
    const client = path.join(repoRoot, "dist", "sdk", "client.js");
    const run = (mode: string, file: string) => execFileAsync(process.execPath, [script, client, mode, file, String(ENGINE_PARALLEL)], { env, maxBuffer: 16 * 1024 * 1024 });
    const sdkCreate = await timed(() => run("create", path.join(scratch, "create.json")));
    await fs.writeFile(path.join(scratch, "delete.json"), sdkCreate.result.stdout);
    const sdkDelete = await timed(() => run("delete", path.join(scratch, "delete.json")));

    log(`\nfleet of ${COUNT} (examples/fleet), Pulumi ${ENGINE_PARALLEL} operations in parallel (its default here), one run each`);
    log(`  engine start-up: pulumi up with nothing to create ${empty.ms.toFixed(0)} ms, with 1 environment ${one.ms.toFixed(0)} ms (+ the provider host); no-op preview of ${COUNT} ${preview.ms.toFixed(0)} ms; refresh ${refresh.ms.toFixed(0)} ms`);
    log(`  API calls: up ${perResource(up.calls)}; no-op preview ${perResource(preview.calls)}; refresh ${perResource(refresh.calls)}; destroy ${perResource(destroy.calls)}`);
    log(`  pulumi up minus the empty up: ${(up.ms - empty.ms).toFixed(0)} ms for ${COUNT} environments; minus the up of 1: ${(up.ms - one.ms).toFixed(0)} ms for ${COUNT - 1}`);
    return [
      { name: `pulumi up, fleet of ${COUNT}`, ours: up.ms, baselineName: `sdk script, ${ENGINE_PARALLEL} at a time`, baseline: sdkCreate.ms, target: 1.3 },
      // The issue reports the engine's start-up apart: the same up less an up with nothing to create.
      { name: `pulumi up less engine start-up, ${COUNT}`, ours: up.ms - empty.ms, baselineName: `sdk script, ${ENGINE_PARALLEL} at a time`, baseline: sdkCreate.ms, target: 1.3 },
      // Less the provider host's start-up too: the up of 1 (the baseline scaled to the same 49).
      { name: `pulumi up less an up of 1, ${COUNT - 1}`, ours: up.ms - one.ms, baselineName: `sdk script, ${ENGINE_PARALLEL} at a time`, baseline: (sdkCreate.ms * (COUNT - 1)) / COUNT, target: 1.3 },
      { name: `pulumi destroy, fleet of ${COUNT}`, ours: destroy.ms, baselineName: `sdk script, ${ENGINE_PARALLEL} at a time`, baseline: sdkDelete.ms, target: 1.3 },
    ];
  } finally {
    await workspace.cleanup();
    await fs.rm(scratch, { recursive: true, force: true });
    await server.stop();
  }
}
