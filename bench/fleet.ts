/**
 * `pulumi up` and `destroy` of 50 environments (by default; `--sizes`, below; examples/fleet's inputs: hooks.json, gate.py, a task
 * file, no network) against `genv serve` (its own process, request log as JSON on stderr), in four
 * variants side by side, alternating round by round so that all see the same machine:
 *
 * - **plugin**: the environments as `plugin.Environment`, served by the native plugin as the engine
 *   downloads it: the release's single executable of this machine (bench/_released-plugin.ts);
 * - **dynamic**: the same as `Environment`, the Node.js dynamic provider;
 * - **sdk**: a plain script sending the same 50 requests through the sdk at the engine's default
 *   parallelism (`--parallel` is 4 × GOMAXPROCS in Pulumi 3.248);
 * - **outputs floor**: the same no-op resources declaring and returning the outputs an environment
 *   has (status, times, counts; `environmentKey` a secret output): what any provider of this resource
 *   costs the engine and the program, whatever it does;
 * - **floor**: the engine's floor, 50 no-op resources with the same inputs through the same kind of
 *   provider (a bare `provider.main` plugin whose create returns at once, no check, no diff);
 * - **plugin, API stubbed**: the plugin against an HTTP stub that answers at once, so that its
 *   difference from the floor is the provider's own cost, not the API's work (materializing trees);
 * - **yaml** and **python**: the plugin fleet declared by a Pulumi YAML program and by a Python
 *   program (the generated SDK), against the JavaScript one (which is not compiled by ts-node: a TypeScript program costs more);
 * - **component** and **remote**: the fleet as `GuardedEnvironment`s, the component built in the
 *   program around a dynamic Environment (local), and `plugin.GuardedEnvironment`, the component the
 *   plugin constructs (remote), with the same hooks as a bundle.
 *
 * Each variant's `up`, then a no-op `preview` of what it made, then `destroy`, each round starting at
 * another variant. Programs and the floor's plugin run on Node.js 22 (scripts/node22), the release line
 * users run, the plugin on the Node.js 22 of its single executable; the emulator on the Node.js of
 * `npm run bench`. `GENV_PLUGIN_SNAPSHOT=0` measures the plugin's executable without its code cache,
 * `GENV_PLUGIN_SEA=0` the Node.js launcher with dist/ and node_modules/ (scripts/pack-plugin). Besides wall time, each step's CPU time: that of
 * the `pulumi` command and everything it ran (engine, language host, program, plugins), the API's
 * left out. On two shared cores it varies less than wall time, and it is the provider's own cost.
 *
 * Then one profiled pass, outside the timed rounds (GENV_PROVIDER_PROFILE, provider/plugin/_profile.ts):
 * the plugin's up, no-op preview, refresh and destroy and the remote component's (`plugin.GuardedEnvironment`)
 * up and destroy, printed as each phase's milliseconds per resource (check, diff, create, read, delete,
 * construct, serialization), so that a regression names its phase.
 *
 * Then, with `--sizes 50,300,1000`, the same steps at each size after the first (the base, where all of
 * the above runs) for the floor and the plugin only (and the outputs floor when chosen: the plugin against
 * it at each size too): per resource against the floor at that size, and
 * the plugin's growth from the size before against the floor's (the engine's growth is not ours to
 * remove; from the base, at 50, the processes' start-up would dominate). Each size's rows are printed as
 * soon as it is measured. Its rows against the floor give, beside the median, the lowest and highest
 * ratio of a single round (the plugin against the floor measured in the same round).
 * With `--user-options`, what a user can do about it at the largest size (bench/_fleet-options.ts).
 *
 * Goals: each provider within 1.05× the floor; the plugin's start-up (spawn to the port on stdout)
 * within 150 ms of the bare provider's; the state of an environment no larger than its inputs once
 * (the plugin's outputs hold the computed values only). Also printed: the API calls per resource of
 * the plugin's up, no-op preview, refresh and destroy. Runs from the repo after `npm run build`.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { group, command, hooksConfig } from "../hooks/builders";
import { serializeHooks } from "../hooks/serialize";
import { ENVIRONMENT_COMPUTED, ENVIRONMENT_SECRET_OUTPUTS } from "../provider/environment/resource";
import { startEngineBench } from "./_engine";
import { measureFleetOptions } from "./_fleet-options";
import { releasedPlugin } from "./_released-plugin";
import { execFileAsync, median, roundRatios, startupMs, wallAndCpuMs, type Comparison, type WallAndCpu } from "./_measure";

/**
 * The fleet's sizes (`npm run bench fleet -- --sizes 50,300,1000`): every variant at the first, the
 * base; at each other, the floor and the plugin only (GROWN_VARIANTS), their rows per resource and their growth
 * against the base's.
 */
export const DEFAULT_FLEET_SIZES = [50];
const ROUNDS = Number(process.env.GENV_BENCH_FLEET_ROUNDS) > 0 ? Number(process.env.GENV_BENCH_FLEET_ROUNDS) : 5; // GENV_BENCH_FLEET_ROUNDS=… to change
const STARTUP_RUNS = 11;
/** Rounds of the plugin-process CPU measure (ours and the floor's plugin, alternating). */
const PLUGIN_CPU_ROUNDS = 3;
/** Pulumi 3.248's default `--parallel`: `4 * GOMAXPROCS` (cmd/pulumi/operations/up.go, defaultParallel). */
const ENGINE_PARALLEL = Number(process.env.PULUMI_PARALLEL) > 0 ? Number(process.env.PULUMI_PARALLEL) : 4 * (Number(process.env.GOMAXPROCS) || os.availableParallelism());

type Variant = "plugin" | "dynamic" | "floor" | "outputs" | "stubbed" | "yaml" | "python" | "component" | "remote";
type GrownVariant = "floor" | "plugin" | "outputs";
const ALL_VARIANTS: Variant[] = ["floor", "outputs", "plugin", "dynamic", "stubbed", "yaml", "python", "component", "remote"];
/**
 * GENV_BENCH_FLEET_VARIANTS=outputs,stubbed (say) runs those and the two every measure needs, floor
 * and plugin: a quicker run while working on one comparison. The rows of the others are left out.
 */
const VARIANTS = variantsToRun(process.env.GENV_BENCH_FLEET_VARIANTS);
/**
 * The variants measured at every size of `--sizes`, not at the base only: the floor and the plugin,
 * and the outputs floor when chosen, so that the plugin at 1,000 compares with what any provider
 * returning an environment's outputs costs the engine there.
 */
const GROWN_VARIANTS: GrownVariant[] = VARIANTS.includes("outputs") ? ["floor", "plugin", "outputs"] : ["floor", "plugin"];
/** What the plugin is compared with at each size, and how the rows name it. */
const GROWN_BASELINES = ["floor", "outputs"] as const;
const BASELINE_NAMES: Record<(typeof GROWN_BASELINES)[number], string> = { floor: "floor", outputs: "outputs floor" };
const ENVIRONMENT_OUTPUT_NAMES = Object.keys(ENVIRONMENT_COMPUTED);
/** What an environment's create returns beyond its id (the plugin returns its computed outputs only). */
const ENVIRONMENT_OUTPUTS = { status: "active", created: "2026-12-01T00:00:00Z", updated: "2026-12-01T00:00:00Z", lastAccessed: "2026-12-01T00:00:00Z", fileCount: 3, sizeBytes: 1800 };
const STEPS = ["up", "preview", "destroy"] as const;
type Step = (typeof STEPS)[number];
/** Each step as the rows name it. */
const STEP_NAMES: Record<Step, string> = { up: "up", preview: "preview (no-op)", destroy: "destroy" };
/** An empty list of measures for each step. */
const perStep = () => Object.fromEntries(STEPS.map((step) => [step, [] as number[]])) as Record<Step, number[]>;

/**
 * The fleet program of a variant: `count` resources (stack config) with the same inputs. `component`
 * and `remote` (also `guarded`, profiled) are `GuardedEnvironment`s with the same hooks as a bundle.
 */
function fleetProgram(variant: "plugin" | "dynamic" | "floor" | "outputs" | "stubbed" | "component" | "remote" | "guarded"): string {
  const make = {
    plugin: `(name, args) => new genv.plugin.Environment(name, args)`,
    stubbed: `(name, args) => new genv.plugin.Environment(name, args)`,
    dynamic: `(name, args) => new genv.Environment(name, args)`,
    floor: `(name, args) => new pulumi.CustomResource("fleetfloor:index:Thing", name, args)`,
    // The output properties plugin.Environment declares, and its secret one.
    outputs: `(name, args) => new pulumi.CustomResource("fleetfloor:index:ThingWithOutputs", name, { ${ENVIRONMENT_OUTPUT_NAMES.map((output) => `${output}: undefined`).join(", ")}, ...args }, { additionalSecretOutputs: ${JSON.stringify(ENVIRONMENT_SECRET_OUTPUTS)} })`,
    remote: REMOTE_COMPONENT,
    guarded: REMOTE_COMPONENT,
    component: `(name, args) => new genv.GuardedEnvironment(name, {
  hooks: bundle,
  sources: args.sources.slice(2),
  network: genv.NetworkPolicy.disabled(),
  acknowledgedWarnings: ["inline-hooks-writable"],
})`,
  }[variant];
  const id = ["component", "remote", "guarded"].includes(variant) ? "environmentId" : "id";
  return `"use strict";
const pulumi = require("@pulumi/pulumi");
const genv = require("pulumi-gemini-environments");
const base = JSON.parse(require("node:fs").readFileSync(require("node:path").join(__dirname, "inputs.json"), "utf8"));
const config = new pulumi.Config();
const count = config.getNumber("count") ?? 0;
const editFirst = config.get("editFirst") ?? "";
${variant === "component" ? 'const bundle = new genv.HookBundle({ hooks: JSON.parse(base.sources[0].content), scripts: { "gate.py": { content: base.sources[1].content } } });\n' : ""}const make = ${make};
const fleet = Array.from({ length: count }, (_, i) =>
  make(\`agent-\${i}\`, { sources: [...base.sources, { type: "inline", target: "workspace/task.txt", content: \`task \${i}\${i === 0 ? editFirst : ""}\\n\` }], network: "disabled" }),
);
exports.ids = fleet.map((resource) => resource.${id});
`;
}

const REMOTE_COMPONENT = `(name, args) => new genv.plugin.GuardedEnvironment(name, {
  hooks: { config: JSON.parse(base.sources[0].content), scripts: { "gate.py": base.sources[1].content } },
  sources: args.sources.slice(2),
  network: args.network,
  acknowledgedWarnings: ["inline-hooks-writable"],
})`;

/**
 * The plugin fleet as a Pulumi YAML program: the same resources, written out one by one (YAML has no
 * loop), so the program is rewritten for each count.
 */
function yamlFleetProgram(count: number, inputs: { sources: Array<Record<string, string>> }, plugins: string): string {
  const names = Array.from({ length: count }, (_, i) => `agent-${i}`);
  const resources = names.map((name, i) => {
    const sources = [...inputs.sources, { type: "inline", target: "workspace/task.txt", content: `task ${i}\n` }];
    // JSON is YAML: each resource's properties as one flow mapping.
    // The schema's typed form of the network (`"disabled"` is the API's): YAML checks the types.
    return `  ${name}:\n    type: gemini-environments:index:Environment\n    properties: ${JSON.stringify({ sources, network: { disabled: true } })}\n`;
  });
  return `name: fleet-yaml\nruntime: yaml\n${plugins}${count ? `resources:\n${resources.join("")}` : ""}outputs:\n  ids: ${JSON.stringify(names.map((name) => `\${${name}.id}`))}\n`;
}

/** The plugin fleet as a Python program, through the generated Python SDK (sdk/python). */
const PYTHON_FLEET_PROGRAM = `import json
from pathlib import Path

import pulumi
import pulumi_gemini_environments as genv

base = json.loads((Path(__file__).parent / "inputs.json").read_text())
count = pulumi.Config().get_int("count") or 0

fleet = [
    genv.Environment(
        f"agent-{i}",
        sources=base["sources"] + [{"type": "inline", "target": "workspace/task.txt", "content": f"task {i}\\n"}],
        network={"disabled": True},
    )
    for i in range(count)
]
pulumi.export("ids", [environment.id for environment in fleet])
`;

/**
 * The floor's provider: `provider.main` with a create that returns at once (an environment's outputs
 * for a ThingWithOutputs, nothing for a Thing) and a delete that does nothing.
 */
const FLOOR_PROVIDER = (pulumiDir: string) => `"use strict";
const { main } = require(${JSON.stringify(path.join(pulumiDir, "provider"))});
let next = 0;
main({ version: "0.0.1", async create(urn) { return { id: \`thing-\${process.pid}-\${next++}\`, outs: urn.includes("ThingWithOutputs") ? ${JSON.stringify(ENVIRONMENT_OUTPUTS)} : {} }; }, async delete() {} }, process.argv.slice(2));
`;

/** The sdk baseline, run as its own Node process like any script: the requests from a JSON file, `parallel` at a time. */
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

/** A timed step (`wallAndCpuMs`) and the API calls it made. */
type Timed<T> = WallAndCpu<T> & { calls: LogEntry[] };

export interface FleetBenchOptions {
  /** The fleet's sizes, the base first. Default `DEFAULT_FLEET_SIZES`. */
  sizes?: number[];
  /** Also measure what a user can do at the largest size (bench/_fleet-options.ts): minutes at 1,000. */
  userOptions?: boolean;
}

export async function benchFleet({ sizes = DEFAULT_FLEET_SIZES, userOptions = false }: FleetBenchOptions = {}, log: (line: string) => void = console.log): Promise<Comparison[]> {
  const count = sizes[0];
  const requests: LogEntry[] = [];
  const bench = await startEngineBench("fleet", ["--log-format", "json"], (line) => {
    if (line.startsWith("{")) requests.push(JSON.parse(line) as LogEntry);
  });
  const { repoRoot, scratch, workspace } = bench;
  // Programs and plugins on Node.js 22: the language hosts and the plugins' launchers run `node` from PATH.
  const node22 = (await execFileAsync(path.join(repoRoot, "scripts", "node22"), [], { cwd: repoRoot })).stdout.trim().split("\n").pop()!;
  const env = { ...bench.env, PATH: [node22, bench.env.PATH].join(path.delimiter) };
  const nodeVersion = (await execFileAsync(path.join(node22, "node"), ["--version"])).stdout.trim();
  const cleanups: Array<() => Promise<void>> = [];
  try {
    await fs.mkdir(path.join(scratch, "floor"));

    // The programs, the inputs they share, and the floor's plugin.
    const inputs = await fleetInputs(repoRoot);
    const stub = await startApiStub();
    cleanups.push(stub.close);
    const pulumiDir = path.join(workspace.root, "node_modules", "@pulumi", "pulumi");
    const floorLauncher = await writeFloorPlugin(path.join(scratch, "floor"), pulumiDir);
    const pluginLauncher = await releasedPlugin(repoRoot, path.join(scratch, "plugin"));
    const stacks = {} as Record<Variant, Stack>;
    const dirs = {} as Record<Variant, string>;
    const envs = {} as Record<Variant, Record<string, string>>;
    const pluginYaml = `plugins:\n  providers:\n    - name: gemini-environments\n      path: ${path.dirname(pluginLauncher)}\n`;
    // The Python language host runs python3 from PATH: first the venv with pulumi and our wheel (scripts/python-sdk-venv).
    const pythonBin = (await execFileAsync(path.join(repoRoot, "scripts", "python-sdk-venv"), [], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 })).stdout.trim().split("\n").pop()!;
    /** The fleet's size: stack config, but for YAML, whose program is rewritten. */
    const setCount = async (variant: Variant, count: number) => {
      if (variant === "yaml") await fs.writeFile(path.join(dirs.yaml, "Pulumi.yaml"), yamlFleetProgram(count, inputs, pluginYaml));
      else await stacks[variant].setConfig("count", { value: String(count) });
    };
    for (const variant of VARIANTS) {
      const plugins = `plugins:\n  providers:\n    - name: fleetfloor\n      path: ${path.dirname(floorLauncher)}\n`;
      const inputsFile = { "inputs.json": JSON.stringify(inputs) };
      dirs[variant] =
        variant === "yaml"
          ? await writeProgram(path.join(scratch, "fleet-yaml"), { "Pulumi.yaml": yamlFleetProgram(count, inputs, pluginYaml) })
          : variant === "python"
            ? await writeProgram(path.join(scratch, "fleet-python"), { "Pulumi.yaml": `name: fleet-python\nruntime: python\n${pluginYaml}`, "__main__.py": PYTHON_FLEET_PROGRAM, ...inputsFile })
            : await workspace.addProgram(`fleet-${variant}`, { "index.js": fleetProgram(variant), ...inputsFile }, projectYaml(`fleet-${variant}`, { floor: plugins, outputs: plugins, dynamic: "", component: "", plugin: pluginYaml, stubbed: pluginYaml, remote: pluginYaml }[variant]));
      const envVars = variant === "stubbed" ? { ...env, GOOGLE_GEMINI_BASE_URL: stub.url } : variant === "python" ? { ...env, PATH: [pythonBin, env.PATH].join(path.delimiter) } : env;
      envs[variant] = envVars;
      stacks[variant] = await bench.stack(dirs[variant], "bench", envVars);
      await setCount(variant, count);
    }

    const timed = async <T>(body: () => Promise<T>): Promise<Timed<T>> => {
      const before = requests.length;
      const measured = await wallAndCpuMs(body);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the last log lines
      return { ...measured, calls: requests.slice(before) };
    };
    const perResource = (calls: LogEntry[]) => {
      const byMethod = new Map<string, number>();
      for (const call of calls) byMethod.set(call.method, (byMethod.get(call.method) ?? 0) + 1);
      const parts = [...byMethod].map(([method, n]) => `${(n / count).toFixed(2)} ${method}`);
      return `${(calls.length / count).toFixed(2)} per resource${parts.length ? ` (${parts.join(", ")})` : ""}`;
    };

    // Warm-up: each engine variant once with one resource (plugin processes, module caches, disk).
    for (const variant of VARIANTS) {
      await setCount(variant, 1);
      await stacks[variant].up();
      await stacks[variant].destroy();
      await setCount(variant, count);
    }

    // Rounds, the variants alternating.
    const times = Object.fromEntries([...ALL_VARIANTS, "sdk"].map((variant) => [variant, perStep()])) as Record<Variant | "sdk", Record<Step, number[]>>;
    /** CPU of each step's `pulumi` command and all it ran (engine, language host, program, plugins); not the API's. */
    const cpu = Object.fromEntries(ALL_VARIANTS.map((variant) => [variant, perStep()])) as Record<Variant, Record<Step, number[]>>;
    /** API calls of each no-op preview (each must make none). */
    const previewCalls = Object.fromEntries(ALL_VARIANTS.map((variant) => [variant, 0])) as Record<Variant, number>;
    let apiCalls = "";
    const state = {} as Record<Variant, { perEnvironment: number; inputs: number; copies: number }>;
    const sdkScript = path.join(scratch, "fleet-sdk.js");
    await fs.writeFile(sdkScript, SDK_SCRIPT);
    const client = path.join(repoRoot, "dist", "client", "client.js");
    const requestsFile = path.join(scratch, "create.json");
    await fs.writeFile(requestsFile, JSON.stringify(Array.from({ length: count }, (_, i) => ({ sources: [...inputs.sources, { type: "inline", target: "workspace/task.txt", content: `task ${i}\n` }], network: "disabled" }))));
    const runSdk = (mode: string, file: string) => execFileAsync(process.execPath, [sdkScript, client, mode, file, String(ENGINE_PARALLEL)], { env, maxBuffer: 16 * 1024 * 1024 });

    /**
     * A variant's `up` of `count`, its no-op `preview` and its `destroy`, each timed, checked (the up
     * made `count`, the preview plans nothing) and pushed to `wall` and `cpu`; `beforeDestroy`, untimed,
     * runs on what is up.
     */
    const measureSteps = async (variant: Variant, count: number, wall: Record<Step, number[]>, cpuMs: Record<Step, number[]>, beforeDestroy?: (up: Timed<unknown>, preview: Timed<unknown>) => Promise<void>) => {
      const stack = stacks[variant];
      const up = await timed(() => stack.up());
      if (up.result.outputs.ids.value.length !== count) throw new Error(`${variant}: pulumi up made ${up.result.outputs.ids.value.length} resources`);
      const preview = await timed(() => stack.preview());
      const planned = Object.entries(preview.result.changeSummary).filter(([op, n]) => op !== "same" && n > 0);
      if (planned.length > 0) throw new Error(`${variant}: the preview after up is not a no-op: ${JSON.stringify(preview.result.changeSummary)}`);
      await beforeDestroy?.(up, preview);
      const destroy = await timed(() => stack.destroy());
      for (const [step, measured] of [["up", up], ["preview", preview], ["destroy", destroy]] as const) {
        wall[step].push(measured.ms);
        cpuMs[step].push(measured.cpuMs);
      }
      return { up, preview, destroy };
    };

    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts at another variant, so that none always follows the same one.
      for (const variant of VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length])) {
        const { preview, destroy } = await measureSteps(variant, count, times[variant], cpu[variant], async (up, preview) => {
          if (round > 0) return;
          state[variant] = stateOf((await stacks[variant].exportStack()).deployment.resources as StateResource[], inputs);
          if (variant !== "plugin") return;
          const refresh = await timed(() => stacks[variant].refresh());
          apiCalls = `up ${perResource(up.calls)}; no-op preview ${perResource(preview.calls)}; refresh ${perResource(refresh.calls)}`;
        });
        previewCalls[variant] += preview.calls.length;
        if (round === 0 && variant === "plugin") apiCalls += `; destroy ${perResource(destroy.calls)}`;
      }
      const created = await timed(() => runSdk("create", requestsFile));
      await fs.writeFile(path.join(scratch, "delete.json"), created.result.stdout);
      const deleted = await timed(() => runSdk("delete", path.join(scratch, "delete.json")));
      times.sdk.up.push(created.ms);
      times.sdk.destroy.push(deleted.ms);
    }

    // Start-up: spawn to the port on stdout, the plugin and the bare provider alternating.
    const startup = { plugin: [] as number[], bare: [] as number[] };
    for (let i = 0; i < STARTUP_RUNS; i++) {
      startup.plugin.push(await startupMs(pluginLauncher, env));
      startup.bare.push(await startupMs(floorLauncher, env));
    }

    // The plugin process's own CPU against the floor's plugin, each step, outside the timed rounds: the
    // engine and the program are the same for both, and make most of the noise of the whole command's.
    const pluginCpu = Object.fromEntries((["plugin", "floor"] as const).map((variant) => [variant, perStep()])) as Record<"plugin" | "floor", Record<Step, number[]>>;
    const cpuFile = path.join(scratch, "plugin-cpu.txt");
    const reporter = path.join(__dirname, "_plugin-cpu.js");
    for (let i = 0; i < PLUGIN_CPU_ROUNDS; i++) {
      for (const variant of ["plugin", "floor"] as const) {
        const stack = await bench.stack(dirs[variant], "bench", { ...envs[variant], NODE_OPTIONS: `--require ${reporter}`, GENV_BENCH_PLUGIN_CPU: cpuFile });
        const steps: Array<[Step, () => Promise<unknown>]> = [["up", () => stack.up()], ["preview", () => stack.preview()], ["destroy", () => stack.destroy()]];
        for (const [step, run] of steps) {
          await fs.writeFile(cpuFile, "");
          await run();
          const reported = (await fs.readFile(cpuFile, "utf8")).split("\n").filter(Boolean).map(Number);
          if (reported.length === 0) throw new Error(`${variant} ${step}: the plugin reported no CPU time`);
          pluginCpu[variant][step].push(reported.reduce((sum, ms) => sum + ms, 0));
        }
      }
    }

    // One profiled pass, outside the timed rounds (GENV_PROVIDER_PROFILE, provider/plugin/_profile.ts):
    // the plugin fleet's up, no-op preview, refresh and destroy; the remote-component fleet's up and destroy.
    const phases: Array<{ fleet: string; step: string; costs: Map<string, number> }> = [];
    for (const fleet of ["plugin", "guarded"] as const) {
      const profile = path.join(scratch, `profile-${fleet}.jsonl`);
      const dir = await workspace.addProgram(`fleet-profiled-${fleet}`, { "index.js": fleetProgram(fleet), "inputs.json": JSON.stringify(inputs) }, projectYaml(`fleet-profiled-${fleet}`, pluginYaml));
      const stack = await bench.stack(dir, "bench", { ...env, GENV_PROVIDER_PROFILE: profile });
      await stack.setConfig("count", { value: String(count) });
      const steps: Array<[string, () => Promise<unknown>]> = [
        ["up", () => stack.up()],
        ...(fleet === "plugin" ? ([["no-op preview", () => stack.preview()], ["refresh", () => stack.refresh()]] as Array<[string, () => Promise<unknown>]>) : []),
        ["destroy", () => stack.destroy()],
      ];
      for (const [step, run] of steps) {
        await fs.writeFile(profile, "");
        await run();
        phases.push({ fleet, step, costs: phaseCosts(await fs.readFile(profile, "utf8"), count) });
      }
    }

    // The other sizes: GROWN_VARIANTS only, alternating round by round.
    const grown = new Map<number, Record<GrownVariant, { wall: Record<Step, number[]>; cpu: Record<Step, number[]> }>>();
    /** A variant's measures of a step at `size`, round by round. */
    const roundsAt = (size: number, variant: GrownVariant, kind: "wall" | "cpu", step: Step) => (size === count ? (kind === "wall" ? times : cpu)[variant][step] : grown.get(size)![variant][kind][step]);
    /** What a resource costs in a fleet of `size`: per resource, so that sizes compare. */
    const perResourceAt = (size: number, variant: GrownVariant, kind: "wall" | "cpu", step: Step) => median(roundsAt(size, variant, kind, step)) / size;
    const spreadAt = (size: number, kind: "wall" | "cpu", step: Step, baseline: GrownVariant) => roundRatios(roundsAt(size, "plugin", kind, step), roundsAt(size, baseline, kind, step));
    const sizeColumns = STEPS.flatMap((step) => GROWN_VARIANTS.map((variant) => `${variant} ${step}`));
    const sizeLine = (size: number) =>
      `    ${String(size).padEnd(6)}${STEPS.flatMap((step) => GROWN_VARIANTS.map((variant) => `${perResourceAt(size, variant, "wall", step).toFixed(1)} / ${perResourceAt(size, variant, "cpu", step).toFixed(1)}`.padStart(17))).join("")}`;
    for (const size of sizes.slice(1)) {
      const measures = Object.fromEntries(GROWN_VARIANTS.map((variant) => [variant, { wall: perStep(), cpu: perStep() }])) as Record<GrownVariant, { wall: Record<Step, number[]>; cpu: Record<Step, number[]> }>;
      grown.set(size, measures);
      for (const variant of GROWN_VARIANTS) await setCount(variant, size);
      for (let round = 0; round < ROUNDS; round++) {
        for (const variant of round % 2 === 0 ? GROWN_VARIANTS : [...GROWN_VARIANTS].reverse()) await measureSteps(variant, size, measures[variant].wall, measures[variant].cpu);
      }
      for (const variant of GROWN_VARIANTS) await setCount(variant, count);
      // Printed as soon as measured: a later failure (--user-options) does not lose it.
      log(`  ms per resource at ${size}, wall / CPU, ${sizeColumns.join(", ")}:\n${sizeLine(size)}`);
    }

    const optionRows = userOptions
      ? await measureFleetOptions({ size: Math.max(...sizes), defaultParallel: ENGINE_PARALLEL, stack: (name, extra = {}) => bench.stack(dirs.plugin, name, { ...envs.plugin, ...extra }) }, ROUNDS, log)
      : [];

    const m = (values: number[]) => median(values);
    const row = (name: string, ours: number, baselineName: string, baseline: number, target: number, note?: string): Comparison => ({ name, ours, baselineName, baseline, target, ...(note && { note }) });
    log(`\nfleet of ${count} (examples/fleet's inputs), Pulumi ${ENGINE_PARALLEL} operations in parallel (its default here), programs and the floor's plugin on Node.js ${nodeVersion}, the plugin on its single executable's; median of ${ROUNDS} rounds, variants alternating`);
    log(`  ${["", "up ms", "preview ms", "destroy ms"].map((s, i) => (i === 0 ? s.padEnd(10) : s.padStart(11))).join("")}`);
    for (const variant of [...VARIANTS, "sdk"] as const) log(`  ${variant.padEnd(10)}${STEPS.map((step) => (times[variant][step].length ? m(times[variant][step]).toFixed(0) : "—").padStart(11)).join("")}`);
    const range = (values: number[]) => (values.length ? `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}` : "—");
    log(`  ranges (min–max ms), up/preview/destroy: ${VARIANTS.map((variant) => `${variant} ${STEPS.map((step) => range(times[variant][step])).join(" / ")}`).join("; ")}`);
    log(`  CPU ms of the pulumi command and all it ran (not the API's), medians: ${VARIANTS.map((variant) => `${variant} ${STEPS.map((step) => m(cpu[variant][step]).toFixed(0)).join("/")}`).join(", ")}`);
    log(`  plugin process CPU ms (median of ${PLUGIN_CPU_ROUNDS}), up/preview/destroy: ours ${STEPS.map((step) => m(pluginCpu.plugin[step]).toFixed(0)).join("/")}, the floor's plugin ${STEPS.map((step) => m(pluginCpu.floor[step]).toFixed(0)).join("/")}`);
    log(`  API calls of the no-op previews, all rounds: ${VARIANTS.map((variant) => `${variant} ${previewCalls[variant]}`).join(", ")}`);
    log(`  plugin start-up (spawn to port, median of ${STARTUP_RUNS}): ${m(startup.plugin).toFixed(0)} ms; a bare provider.main plugin ${m(startup.bare).toFixed(0)} ms (+${(m(startup.plugin) - m(startup.bare)).toFixed(0)} ms; goal ≤ +150 ms)`);
    for (const variant of (["floor", "plugin", "dynamic"] as const).filter((variant) => state[variant])) {
      const { perEnvironment, inputs: inputBytes, copies } = state[variant];
      log(`  state per resource, ${variant}: ${perEnvironment} bytes for ${inputBytes} bytes of inputs (${(perEnvironment / inputBytes).toFixed(2)}×; the inputs held ${copies}×)`);
    }
    log(`  API calls, plugin: ${apiCalls}`);
    log(`  plugin phases, ms per resource (one profiled pass; each call's time from its start to its answer, calls overlapping; serialization = gRPC call less core call):`);
    for (const { fleet, step, costs } of phases) {
      const parts = PHASES.filter((phase) => costs.has(phase)).map((phase) => `${phase} ${costs.get(phase)!.toFixed(2)}`);
      log(`    ${`${fleet === "guarded" ? "remote component" : "plugin"} ${step}`.padEnd(30)}${parts.join(", ")}`);
    }
    if (grown.size > 0) {
      log(`  how cost grows: ms per resource, wall / CPU (medians; at ${count} of the rounds above, at ${[...grown.keys()].join(" and ")} of ${ROUNDS} rounds of ${GROWN_VARIANTS.join(", ")} alone)`);
      log(`    ${"size".padEnd(6)}${sizeColumns.map((column) => column.padStart(17)).join("")}`);
      for (const size of sizes) log(sizeLine(size));
    }
    // Growth from the size before, not from the base: at 50 the processes' start dominates a resource's cost.
    const growthRows = [...grown.keys()].flatMap((size) =>
      STEPS.flatMap((step) => {
        const previous = sizes[sizes.indexOf(size) - 1];
        const [floorGrowth, pluginGrowth] = (["floor", "plugin"] as const).map((variant) => perResourceAt(size, variant, "cpu", step) / perResourceAt(previous, variant, "cpu", step));
        const [floorWallGrowth, pluginWallGrowth] = (["floor", "plugin"] as const).map((variant) => perResourceAt(size, variant, "wall", step) / perResourceAt(previous, variant, "wall", step));
        return [
          // In wall time, the API's work included, which the CPU rows leave out (genv serve is not the
          // command's child): a destroy of 1,000 whose deletes held the emulator up grew only here.
          row(`wall per resource, pulumi ${STEP_NAMES[step]}, plugin, ${size} vs ${previous}`, perResourceAt(size, "plugin", "wall", step), `plugin at ${previous}`, perResourceAt(previous, "plugin", "wall", step), Math.round(floorWallGrowth * 1.05 * 100) / 100, `the floor grew ${floorWallGrowth.toFixed(2)}x; the plugin ${(pluginWallGrowth / floorWallGrowth).toFixed(2)}x the floor's growth`),
          // Against the floor, and against the outputs floor when measured: what the plugin adds beyond the engine's cost of an environment's outputs.
          ...GROWN_BASELINES.filter((baseline) => GROWN_VARIANTS.includes(baseline)).flatMap((baseline) => [
            row(`pulumi ${STEP_NAMES[step]} of ${size}, plugin, per resource`, perResourceAt(size, "plugin", "wall", step), `${BASELINE_NAMES[baseline]}, per resource`, perResourceAt(size, baseline, "wall", step), 1.05, spreadAt(size, "wall", step, baseline)),
            row(`CPU of pulumi ${STEP_NAMES[step]} of ${size}, plugin, per resource`, perResourceAt(size, "plugin", "cpu", step), `${BASELINE_NAMES[baseline]}, per resource`, perResourceAt(size, baseline, "cpu", step), 1.05, spreadAt(size, "cpu", step, baseline)),
          ]),
          // The plugin's growth against the floor's, within 5 %: the engine's own growth is not the provider's to remove.
          row(`CPU per resource, pulumi ${STEP_NAMES[step]}, plugin, ${size} vs ${previous}`, perResourceAt(size, "plugin", "cpu", step), `plugin at ${previous}`, perResourceAt(previous, "plugin", "cpu", step), Math.round(floorGrowth * 1.05 * 100) / 100, `the floor grew ${floorGrowth.toFixed(2)}x; the plugin ${(pluginGrowth / floorGrowth).toFixed(2)}x the floor's growth`),
        ];
      }),
    );
    const floorPerResource = m(times.floor.up) / count;
    const phaseRow = (fleet: string, step: string, phase: Phase, target: number, note?: string): Comparison => {
      const costs = phases.find((measured) => measured.fleet === fleet && measured.step === step)!.costs;
      return row(`${fleet === "guarded" ? "remote component" : "plugin"} ${step}, ${phase} per resource`, costs.get(phase) ?? 0, "floor up, per resource", floorPerResource, target, note);
    };


    const rows = [
      row(`pulumi up of ${count}, plugin`, m(times.plugin.up), "floor (no-op provider)", m(times.floor.up), 1.05),
      row(`pulumi preview (no-op) of ${count}, plugin`, m(times.plugin.preview), "floor (no-op provider)", m(times.floor.preview), 1.05, `${previewCalls.plugin} API calls`),
      row(`pulumi destroy of ${count}, plugin`, m(times.plugin.destroy), "floor (no-op provider)", m(times.floor.destroy), 1.05),
      row(`pulumi up of ${count}, plugin, API stubbed`, m(times.stubbed.up), "floor (no-op provider)", m(times.floor.up), 1.05),
      row(`pulumi preview (no-op) of ${count}, plugin, API stubbed`, m(times.stubbed.preview), "floor (no-op provider)", m(times.floor.preview), 1.05),
      row(`pulumi destroy of ${count}, plugin, API stubbed`, m(times.stubbed.destroy), "floor (no-op provider)", m(times.floor.destroy), 1.05),
      row(`pulumi up of ${count}, dynamic provider`, m(times.dynamic.up), "floor (no-op provider)", m(times.floor.up), 1.05),
      row(`pulumi destroy of ${count}, dynamic provider`, m(times.dynamic.destroy), "floor (no-op provider)", m(times.floor.destroy), 1.05),
      // Against a floor with the outputs an environment has: what the provider adds beyond what any provider of it costs.
      ...STEPS.map((step) =>
        row(`pulumi ${STEP_NAMES[step]} of ${count}, plugin, API stubbed`, m(times.stubbed[step]), "outputs floor (no-op, same outputs)", m(times.outputs[step]), 1.05),
      ),
      // The same steps in CPU: on 2 shared cores, less noisy than wall time, and it leaves out the API's work.
      ...STEPS.flatMap((step) => [
        row(`CPU of pulumi ${STEP_NAMES[step]} of ${count}, plugin`, m(cpu.plugin[step]), "floor (no-op provider)", m(cpu.floor[step]), 1.05),
        row(`CPU of pulumi ${STEP_NAMES[step]} of ${count}, plugin`, m(cpu.plugin[step]), "outputs floor (no-op, same outputs)", m(cpu.outputs[step]), 1.05),
        row(`CPU of pulumi ${STEP_NAMES[step]} of ${count}, remote component`, m(cpu.remote[step]), "local component (dynamic)", m(cpu.component[step]), 1.05),
      ]),
      // What the plugin's process costs beyond the floor's, per resource, against the floor's whole cost per resource.
      ...STEPS.map((step) =>
        row(`plugin process CPU beyond the floor's plugin, ${step === "preview" ? "no-op preview" : step}, per resource`, (m(pluginCpu.plugin[step]) - m(pluginCpu.floor[step])) / count, `floor ${step === "preview" ? "preview" : step} CPU, per resource`, m(cpu.floor[step]) / count, 0.05),
      ),
      // The remote component (the plugin's construct) against the same component built in the program.
      row(`pulumi up of ${count}, remote component`, m(times.remote.up), "local component (dynamic)", m(times.component.up), 1.05),
      row(`pulumi preview (no-op) of ${count}, remote component`, m(times.remote.preview), "local component (dynamic)", m(times.component.preview), 1.05, `${previewCalls.remote} API calls`),
      row(`pulumi destroy of ${count}, remote component`, m(times.remote.destroy), "local component (dynamic)", m(times.component.destroy), 1.05),
      // The same plugin fleet from the other languages, against the JavaScript program (no ts-node: the least a Node.js program costs).
      row(`pulumi up of ${count}, YAML program (plugin)`, m(times.yaml.up), "JavaScript program (plugin)", m(times.plugin.up), 1.05),
      row(`pulumi destroy of ${count}, YAML program (plugin)`, m(times.yaml.destroy), "JavaScript program (plugin)", m(times.plugin.destroy), 1.05),
      row(`pulumi up of ${count}, Python program (plugin)`, m(times.python.up), "JavaScript program (plugin)", m(times.plugin.up), 1.05),
      row(`pulumi destroy of ${count}, Python program (plugin)`, m(times.python.destroy), "JavaScript program (plugin)", m(times.plugin.destroy), 1.05),
      row(`pulumi up of ${count}, plugin`, m(times.plugin.up), `sdk script, ${ENGINE_PARALLEL} at a time`, m(times.sdk.up), 1.3),
      row(`pulumi up of ${count}, floor`, m(times.floor.up), `sdk script, ${ENGINE_PARALLEL} at a time`, m(times.sdk.up), 1.3),
      row("plugin start-up (spawn to port)", m(startup.plugin), "bare provider.main", m(startup.bare), Math.round(((m(startup.bare) + 150) / m(startup.bare)) * 100) / 100),
      // The floor's resource has the same inputs, once, and no outputs: the state's least for them.
      row("state per environment (bytes), plugin", state.plugin.perEnvironment, "floor: same inputs once", state.floor.perEnvironment, 1.1),
      row("state per environment (bytes), dynamic", state.dynamic?.perEnvironment, "floor: same inputs once", state.floor.perEnvironment, 1.1),
      // The plugin's own work per resource, against the floor's whole cost per resource: together within the 5 % goal.
      phaseRow("plugin", "up", "check", 0.05),
      phaseRow("plugin", "no-op preview", "diff", 0.05),
      phaseRow("plugin", "up", "serialization", 0.05),
      phaseRow("plugin", "up", "create", 1, "(the API's answer included)"),
      phaseRow("guarded", "up", "construct", 0.05),
      phaseRow("guarded", "up", "serialization", 0.05),
      ...growthRows,
      ...optionRows,
    ];
    // A variant left out (GENV_BENCH_FLEET_VARIANTS) measured nothing: its rows go.
    return rows.filter((comparison) => Number.isFinite(comparison.ours) && Number.isFinite(comparison.baseline));
  } finally {
    for (const cleanup of cleanups) await cleanup();
    await bench.cleanup();
  }
}

/**
 * An Environments API that answers at once: creates get a fresh id and fixed counts, deletes `{}`.
 * In this process: its work is a few microseconds per request.
 */
async function startApiStub(): Promise<{ url: string; close: () => Promise<void> }> {
  const http = await import("node:http");
  let next = 0;
  const server = http.createServer((request, response) => {
    request.resume().on("end", () => {
      const now = new Date().toISOString();
      const body =
        request.method === "POST"
          ? { id: `env_${(next++).toString(16).padStart(20, "0")}`, status: "active", created: now, updated: now, last_accessed: now, file_count: "3", size_bytes: "1800" }
          : {};
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** examples/fleet's shared sources: the security gate's hooks.json and gate.py. */
async function fleetInputs(repoRoot: string): Promise<{ sources: Array<Record<string, string>> }> {
  const gate = await fs.readFile(path.join(repoRoot, "examples", "fleet", "hooks-scripts", "gate.py"), "utf8");
  const hooks = serializeHooks(hooksConfig({ "security-gate": group().before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })) }));
  return {
    sources: [
      { type: "inline", target: ".agents/hooks.json", content: hooks },
      { type: "inline", target: ".agents/hooks-scripts/gate.py", content: gate },
    ],
  };
}

function projectYaml(name: string, plugins: string): string {
  return `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n${plugins}`;
}

/** A program in another language than JavaScript (no node_modules: the plugin's path is absolute). */
async function writeProgram(dir: string, files: Record<string, string>): Promise<string> {
  await fs.mkdir(dir);
  for (const [file, content] of Object.entries(files)) await fs.writeFile(path.join(dir, file), content);
  return dir;
}

async function writeFloorPlugin(dir: string, pulumiDir: string): Promise<string> {
  await fs.writeFile(path.join(dir, "floor.js"), FLOOR_PROVIDER(pulumiDir));
  const launcher = path.join(dir, "pulumi-resource-fleetfloor");
  await fs.writeFile(launcher, `#!/bin/sh\nexec node "$(dirname "$0")/floor.js" "$@"\n`, { mode: 0o755 });
  return launcher;
}

interface StateResource {
  type: string;
  inputs?: Record<string, unknown>;
}

/** Bytes of state per environment, of its inputs (without the dynamic provider's `__provider`), and how many times the inputs' gate.py is in it. */
function stateOf(resources: StateResource[], inputs: { sources: Array<Record<string, string>> }) {
  const environments = resources.filter((r) => ["gemini-environments:index:Environment", "pulumi-nodejs:dynamic/gemini-environments:Environment", "fleetfloor:index:Thing", "fleetfloor:index:ThingWithOutputs"].includes(r.type));
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
  const perEnvironment = Math.round(environments.reduce((sum, r) => sum + bytes(r), 0) / environments.length);
  const ownInputs = (r: StateResource) => Object.fromEntries(Object.entries(r.inputs ?? {}).filter(([key]) => key !== "__provider"));
  const inputBytes = Math.round(environments.reduce((sum, r) => sum + bytes(ownInputs(r)), 0) / environments.length);
  const gate = JSON.stringify(inputs.sources[1].content).slice(1, 80);
  const copies = JSON.stringify(environments[0]).split(gate).length - 1;
  return { perEnvironment, inputs: inputBytes, copies };
}

const PHASES = ["check", "diff", "create", "read", "update", "delete", "construct", "construct's wait", "serialization"] as const;
type Phase = (typeof PHASES)[number];

/**
 * Milliseconds per resource of each phase in a GENV_PROVIDER_PROFILE file: a core method's calls
 * (`core.<method>`); construct, the component built (`component.construct`), and its wait, the rest of
 * its gRPC call (its outputs, which wait for its child's registration and create through the engine);
 * serialization, the resource calls' gRPC time beyond their core calls.
 */
function phaseCosts(profile: string, count: number): Map<string, number> {
  const totals = new Map<string, number>();
  for (const line of profile.split("\n")) {
    if (!line) continue;
    const { phase, ms } = JSON.parse(line) as { phase: string; ms: number };
    totals.set(phase, (totals.get(phase) ?? 0) + ms);
  }
  const costs = new Map<string, number>();
  let serialization = 0;
  let served = false;
  for (const phase of PHASES) {
    const core = totals.get(`core.${phase}`);
    const grpc = totals.get(`grpc.${phase}`);
    if (phase === "construct") {
      const built = totals.get("component.construct");
      if (built !== undefined) costs.set("construct", built / count);
      if (built !== undefined && grpc !== undefined) costs.set("construct's wait", (grpc - built) / count);
      continue;
    }
    if (core === undefined) continue;
    costs.set(phase, core / count);
    if (grpc !== undefined) {
      serialization += grpc - core;
      served = true;
    }
  }
  if (served) costs.set("serialization", serialization / count);
  return costs;
}

/** `--sizes 50,300,1000`: whole numbers above 0, each once. */
export function parseFleetSizes(text: string): number[] {
  const sizes = text.split(",").map((size) => size.trim());
  const bad = sizes.filter((size) => !/^[1-9][0-9]*$/.test(size));
  if (bad.length > 0) throw new Error(`--sizes: ${bad.map((size) => JSON.stringify(size)).join(", ")} is not a number of resources above 0 (e.g. --sizes 50,300,1000; the first is the base, where every variant runs)`);
  if (new Set(sizes).size !== sizes.length) throw new Error(`--sizes: ${text} names a size twice`);
  return sizes.map(Number);
}

function variantsToRun(list: string | undefined): Variant[] {
  if (!list) return ALL_VARIANTS;
  const chosen = new Set(list.split(",").map((name) => name.trim()));
  const unknown = [...chosen].filter((name) => !ALL_VARIANTS.includes(name as Variant));
  if (unknown.length > 0) throw new Error(`GENV_BENCH_FLEET_VARIANTS: no variant ${unknown.join(", ")} (the variants: ${ALL_VARIANTS.join(", ")})`);
  return ALL_VARIANTS.filter((variant) => variant === "floor" || variant === "plugin" || chosen.has(variant));
}
