/**
 * `npm run bench terraform`: `terraform apply`, a no-op `plan` and `destroy` of 50 environments
 * (examples/fleet's inputs: hooks.json, gate.py, a task file, no network) against `genv serve` (its
 * own process), with this provider (`geminienvironments_environment`, the release's zip for this
 * machine from scripts/pack-terraform, in a filesystem mirror) and with the floor, Mastercard/restapi
 * 3.0.0 (`restapi_object`, the same requests as plain JSON: a generic REST provider in Go, built by
 * scripts/restapi-provider), side by side, alternating round by round so that both see the same
 * machine. Each step's wall time, and its CPU time: Terraform's and its provider's (the emulator's is
 * left out). The plan must be a no-op (`-detailed-exitcode` 0) and destroy must leave no environment,
 * or the run fails rather than measure a broken step. Both run at Terraform's default -parallelism (10).
 *
 * Then the plugin's start-up: spawn to go-plugin's handshake line on stdout, as Terraform waits for
 * it (its magic cookie and a client certificate given, so the plugin makes its own for mTLS), against
 * restapi's, alternating.
 *
 * Both engines in one run, Terraform (on PATH) and OpenTofu (scripts/opentofu, built once if need be),
 * each in its own working directories, their rounds interleaved so that both see the same machine.
 *
 * Each step's row gives the median of its rounds and, beside it, the lowest and highest ratio of a
 * single round (ours against the floor measured next to it), so that a ratio near the goal is read
 * with its spread.
 *
 * Goals: each step within 1.25× the floor on either engine, wall and CPU; the plugin's start-up under
 * 300 ms. Runs from the repo after `npm run build`; `GENV_BENCH_TERRAFORM=terraform` or `=tofu` runs one
 * engine alone; `GENV_BENCH_TERRAFORM_ROUNDS` (default 3), `GENV_BENCH_TERRAFORM_COUNT` (50).
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { EnvironmentsClient } from "../client/client";
import { group, command, hooksConfig } from "../hooks/builders";
import { serializeHooks } from "../hooks/serialize";
import { cliConfig, mirrorOfZips, PROVIDER_SOURCE, terraformEngine, terraformEnv, terraformPlatform, type EngineName, type TerraformEngine } from "../devtools/terraform";
import { execFileAsync, median, roundRatios, startServeProcess, wallAndCpuMs, type Comparison } from "./_measure";

const ROUNDS = Number(process.env.GENV_BENCH_TERRAFORM_ROUNDS) > 0 ? Number(process.env.GENV_BENCH_TERRAFORM_ROUNDS) : 3;
const COUNT = Number(process.env.GENV_BENCH_TERRAFORM_COUNT) > 0 ? Number(process.env.GENV_BENCH_TERRAFORM_COUNT) : 50;
const STARTUP_RUNS = 11;
const TARGET = 1.25;
const STARTUP_GOAL_MS = 300;
/** go-plugin's handshake, as Terraform starts a provider (hashicorp/terraform internal/plugin/serve.go). */
const MAGIC_COOKIE = { TF_PLUGIN_MAGIC_COOKIE: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2", PLUGIN_PROTOCOL_VERSIONS: "6" };
const RESTAPI_SOURCE = "mastercard/restapi";

const STEPS = ["apply", "plan", "destroy"] as const;
type Step = (typeof STEPS)[number];
const STEP_NAMES: Record<Step, string> = { apply: "apply", plan: "plan (no-op)", destroy: "destroy" };
type Variant = "ours" | "floor";

/** The fleet's inputs, as bench/fleet.ts makes them, without the task file each environment adds. */
async function fleetSources(repoRoot: string): Promise<Array<Record<string, string>>> {
  const gate = await fs.readFile(path.join(repoRoot, "examples", "fleet", "hooks-scripts", "gate.py"), "utf8");
  const hooks = serializeHooks(hooksConfig({ "security-gate": group().before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })) }));
  return [
    { type: "inline", target: ".agents/hooks.json", content: hooks },
    { type: "inline", target: ".agents/hooks-scripts/gate.py", content: gate },
  ];
}

const TASK = '{ type = "inline", target = "workspace/task.txt", content = "task ${count.index}\\n" }';

/** This provider's configuration: `count` environments, the API's key and URL from the environment. */
function oursConfiguration(count: number): string {
  return `terraform {
  required_providers {
    geminienvironments = { source = "${PROVIDER_SOURCE}" }
  }
}
provider "geminienvironments" {}
locals {
  base = jsondecode(file("\${path.module}/inputs.json"))
}
resource "geminienvironments_environment" "agent" {
  count   = ${count}
  sources = concat(local.base.sources, [${TASK}])
  network = { disabled = true }
}
`;
}

/** The floor's: the same requests through restapi_object, the server's additions (times, counts) ignored as drift. */
function floorConfiguration(count: number, baseUrl: string, apiKey: string): string {
  return `terraform {
  required_providers {
    restapi = { source = "${RESTAPI_SOURCE}", version = "3.0.0" }
  }
}
provider "restapi" {
  uri                  = ${JSON.stringify(baseUrl)}
  headers              = { "x-goog-api-key" = ${JSON.stringify(apiKey)}, "Content-Type" = "application/json" }
  write_returns_object = true
  id_attribute         = "id"
}
locals {
  base = jsondecode(file("\${path.module}/inputs.json"))
}
resource "restapi_object" "agent" {
  count                   = ${count}
  path                    = "/v1beta/environments"
  ignore_server_additions = true
  data                    = jsonencode({ sources = concat(local.base.sources, [${TASK}]), network = "disabled" })
}
`;
}

/** The engines to measure: both, or the one `GENV_BENCH_TERRAFORM` names. */
function engineNames(): EngineName[] {
  const chosen = process.env.GENV_BENCH_TERRAFORM;
  if (!chosen) return ["terraform", "tofu"];
  if (chosen !== "terraform" && chosen !== "tofu") throw new Error(`GENV_BENCH_TERRAFORM=${chosen}: say terraform or tofu, or leave it unset for both`);
  return [chosen];
}

export async function benchTerraform(log: (line: string) => void = console.log): Promise<Comparison[]> {
  const repoRoot = path.resolve(__dirname, "..", "..");
  const engines = await Promise.all(engineNames().map((name) => terraformEngine(name, repoRoot)));
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "genv-bench-terraform-"));
  const serve = await startServeProcess();
  const client = new EnvironmentsClient({ apiKey: serve.key, baseUrl: serve.url });
  try {
    // The mirrors: this provider's release zip for this machine, and restapi's build.
    const platform = terraformPlatform();
    await execFileAsync(path.join(repoRoot, "scripts", "pack-terraform"), ["--release", path.join(scratch, "zips"), "--platforms", platform.replace("_", "-")], { maxBuffer: 64 * 1024 * 1024 });
    const [zip] = await fs.readdir(path.join(scratch, "zips"));
    await mirrorOfZips([path.join(scratch, "zips", zip)], path.join(scratch, "mirror"));
    const restapiMirror = (await execFileAsync(path.join(repoRoot, "scripts", "restapi-provider"), [], { maxBuffer: 16 * 1024 * 1024 })).stdout.trim().split("\n").pop()!;
    const cliConfigFile = path.join(scratch, "cli.tfrc");
    await fs.writeFile(
      cliConfigFile,
      cliConfig([
        { dir: path.join(scratch, "mirror"), providers: [PROVIDER_SOURCE] },
        { dir: restapiMirror, providers: [RESTAPI_SOURCE] },
      ]),
    );
    const env = terraformEnv({ cliConfigFile, baseUrl: serve.url, apiKey: serve.key });
    const inputs = JSON.stringify({ sources: await fleetSources(repoRoot) });
    const configurations = { ours: oursConfiguration(COUNT), floor: floorConfiguration(COUNT, serve.url, serve.key) };
    const dir = (engine: TerraformEngine, variant: Variant) => path.join(scratch, engine.name, variant);
    const run = (engine: TerraformEngine, variant: Variant, args: string[]) => execFileAsync(engine.binary, [...args, "-no-color"], { cwd: dir(engine, variant), env, maxBuffer: 64 * 1024 * 1024 });
    for (const engine of engines) {
      for (const variant of ["ours", "floor"] as const) {
        await fs.mkdir(dir(engine, variant), { recursive: true });
        await fs.writeFile(path.join(dir(engine, variant), "main.tf"), configurations[variant]);
        await fs.writeFile(path.join(dir(engine, variant), "inputs.json"), inputs);
        await run(engine, variant, ["init"]);
      }
    }
    const countEnvironments = async () => {
      let count = 0;
      for await (const _ of client.listAll()) count++;
      return count;
    };
    const steps: Record<Step, (engine: TerraformEngine, variant: Variant) => Promise<unknown>> = {
      apply: async (engine, variant) => run(engine, variant, ["apply", "-auto-approve"]),
      // Exit 2 (changes) rejects: a plan that is not a no-op is not measured.
      plan: async (engine, variant) => run(engine, variant, ["plan", "-detailed-exitcode"]),
      destroy: async (engine, variant) => run(engine, variant, ["destroy", "-auto-approve"]),
    };
    type Times = Record<Step, { ms: number[]; cpuMs: number[] }>;
    const perStep = () => Object.fromEntries(STEPS.map((step) => [step, { ms: [] as number[], cpuMs: [] as number[] }])) as Times;
    const times = new Map(engines.map((engine) => [engine, { ours: perStep(), floor: perStep() } as Record<Variant, Times>]));
    for (let round = 0; round < ROUNDS; round++) {
      const variants: Variant[] = round % 2 === 0 ? ["ours", "floor"] : ["floor", "ours"];
      for (const engine of round % 2 === 0 ? engines : [...engines].reverse()) {
        for (const variant of variants) {
          const measuredTimes = times.get(engine)![variant];
          for (const step of STEPS) {
            const measured = await wallAndCpuMs(() => steps[step](engine, variant));
            measuredTimes[step].ms.push(measured.ms);
            measuredTimes[step].cpuMs.push(measured.cpuMs);
            if (step === "apply" && (await countEnvironments()) !== COUNT) throw new Error(`${engine.name} ${variant}: apply left ${await countEnvironments()} environments, not ${COUNT}`);
            if (step === "destroy" && (await countEnvironments()) !== 0) throw new Error(`${engine.name} ${variant}: destroy left ${await countEnvironments()} environments`);
          }
          log(`  round ${round + 1}/${ROUNDS} ${engine.name} ${variant}: ${STEPS.map((step) => `${step} ${(measuredTimes[step].ms.at(-1)! / 1000).toFixed(1)} s`).join(", ")}`);
        }
      }
    }

    // Start-up: the executables Terraform installed, started as Terraform starts them.
    const installed = async (variant: Variant) => {
      const root = path.join(dir(engines[0], variant), ".terraform", "providers");
      const files = (await fs.readdir(root, { recursive: true })) as string[];
      return path.join(root, files.find((file) => path.basename(file).startsWith("terraform-provider-"))!);
    };
    const certificate = (await execFileAsync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-521", "-nodes", "-keyout", "/dev/null", "-subj", "/CN=localhost", "-days", "1"])).stdout;
    const startEnv = { PATH: process.env.PATH ?? "", HOME: os.homedir(), ...MAGIC_COOKIE, PLUGIN_CLIENT_CERT: certificate };
    const executables = { ours: await installed("ours"), floor: await installed("floor") };
    const startups = { ours: [] as number[], floor: [] as number[] };
    for (const variant of ["ours", "floor"] as const) await handshakeMs(executables[variant], startEnv); // warm-up: page cache
    for (let i = 0; i < STARTUP_RUNS; i++) for (const variant of ["ours", "floor"] as const) startups[variant].push(await handshakeMs(executables[variant], startEnv));

    const floorName = "Mastercard/restapi 3.0.0";
    const rows: Comparison[] = engines.flatMap((engine) => {
      const { ours, floor } = times.get(engine)!;
      return STEPS.flatMap((step) => [
        { name: `${engine.name} ${STEP_NAMES[step]}, ${COUNT} environments, wall`, ours: median(ours[step].ms), baselineName: floorName, baseline: median(floor[step].ms), target: TARGET, note: roundRatios(ours[step].ms, floor[step].ms) },
        { name: `${engine.name} ${STEP_NAMES[step]}, ${COUNT} environments, CPU`, ours: median(ours[step].cpuMs), baselineName: floorName, baseline: median(floor[step].cpuMs), target: TARGET, note: roundRatios(ours[step].cpuMs, floor[step].cpuMs) },
      ]);
    });
    const start = median(startups.ours);
    rows.push({
      name: "plugin start-up (spawn to handshake)",
      ours: start,
      baselineName: floorName,
      baseline: median(startups.floor),
      target: Number((STARTUP_GOAL_MS / median(startups.floor)).toFixed(1)),
      note: `goal < ${STARTUP_GOAL_MS} ms: ${start < STARTUP_GOAL_MS ? "met" : "missed"}`,
    });
    return rows;
  } finally {
    await client.close();
    await serve.stop();
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** Milliseconds from spawning a Terraform provider to its handshake line on stdout; then it is killed. */
function handshakeMs(executable: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(executable, [], { env, stdio: ["ignore", "pipe", "ignore"] });
    child.once("error", reject);
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes("\n")) return;
      const ms = performance.now() - started;
      if (!/^\d+\|\d+\|(tcp|unix)\|/.test(output)) reject(new Error(`${executable}: not a handshake: ${output}`));
      child.kill("SIGKILL");
      child.once("exit", () => resolve(ms));
    });
    child.once("exit", (code) => {
      if (!output.includes("\n")) reject(new Error(`${executable} exited ${code} before its handshake`));
    });
  });
}
