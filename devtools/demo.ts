#!/usr/bin/env node
/**
 * `npm run demo` (`node dist/devtools/demo.js [--quiet]`): the whole story on one machine, no account and no network. Starts the
 * emulator in-process (in memory), makes sure the Pulumi engine is there (scripts/pulumi-engine),
 * installs this package from its `npm pack` tarball into a temp program made from
 * examples/security-gate, runs `pulumi up` through the Automation API (local file:// backend, temp
 * PULUMI_HOME, the API key as a secret in stack config), shows the environment and its files, asks the
 * emulator's `:executeTool` for the hook's decision on two commands (when the emulator has it), then
 * `pulumi destroy` and removes the stack. Runs from a checkout after `npm run build`: it needs the
 * engine's build script, the examples and the emulator's packages, so it is dev tooling, not a command
 * of the shipped `genv`.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Command } from "commander";
import type { RunningEmulator } from "../emulator/server";
import { CLIError } from "../cli/errors";
import { loadEmulator } from "../cli/commands/load-emulator";
import { runProgram } from "../cli/main";
import { EnvironmentsClient } from "../client/client";
import { createPackedWorkspace, type PackedWorkspace } from "./packed-workspace";
import { ensurePulumiEngine, localPulumiEnv, pulumiCommand } from "./pulumi-engine";

const EXAMPLE = "security-gate";
const STACK = "demo";
/** Tool calls shown against the security gate: one it denies, one it allows. */
const TOOL_CALLS = ["rm -rf /tmp/forbidden", "echo hello"];

export interface DemoOptions {
  /** The repo checkout (holds scripts/pulumi-engine, examples/ and a built dist/). */
  repoRoot: string;
  /** Progress and results, one line at a time. */
  log: (line: string) => void;
  /** Pulumi's own output, as it streams. */
  pulumiOutput?: (text: string) => void;
}

async function main(argv: string[]): Promise<void> {
  const program = new Command("npm run demo --")
    .description("create an environment from examples/security-gate with the real Pulumi engine against the local emulator, then destroy it")
    .option("--quiet", "hide Pulumi's own output", false)
    .exitOverride()
    .action(async (options: { quiet: boolean }) => {
      const pulumiOutput = options.quiet ? undefined : indentedLines((line) => process.stdout.write(`    │ ${line}\n`));
      await runDemo({ repoRoot: findRepoRoot(__dirname), log: (line) => process.stdout.write(`${line}\n`), pulumiOutput });
    });
  await runProgram(program, argv, "demo");
}

export async function runDemo(options: DemoOptions): Promise<void> {
  const { log } = options;
  const started = performance.now();
  const step = (text: string) => log(`\n▶ ${text}  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    step("starting the local Environments API (genv serve, in memory)");
    const apiKey = `genv-demo-${randomBytes(8).toString("hex")}`;
    const emulator = await loadEmulator("the demo").startEmulator({ inMemory: true, apiKeys: [apiKey] });
    cleanups.push(() => emulator.close());
    log(`  ${emulator.url}`);

    step("making sure the Pulumi engine is there (scripts/pulumi-engine)");
    const binDir = await ensurePulumiEngine(options.repoRoot);
    log(`  ${binDir}`);

    step(`installing pulumi-gemini-environments from npm pack into a program made from examples/${EXAMPLE}`);
    const workspace = await createPackedWorkspace({ repoRoot: options.repoRoot, build: false, log: (line) => log(`  ${line}`) });
    cleanups.push(() => workspace.cleanup());
    const dir = await workspace.addExample(EXAMPLE);

    const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-demo-pulumi-"));
    cleanups.push(() => fs.promises.rm(scratch, { recursive: true, force: true }));
    await Promise.all([fs.promises.mkdir(path.join(scratch, "home")), fs.promises.mkdir(path.join(scratch, "backend"))]);
    const env = localPulumiEnv(binDir, path.join(scratch, "home"), path.join(scratch, "backend"));
    const environmentId = await upShowDestroy({ ...options, dir, env, binDir, emulator, apiKey, workspace, step });
    log(`\n✔ done in ${((performance.now() - started) / 1000).toFixed(1)} s: ${environmentId} was created, inspected and destroyed; nothing is left behind.`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

interface StackContext extends DemoOptions {
  dir: string;
  env: Record<string, string>;
  binDir: string;
  emulator: RunningEmulator;
  apiKey: string;
  workspace: PackedWorkspace;
  step: (text: string) => void;
}

async function upShowDestroy(context: StackContext): Promise<string> {
  const { log, step, emulator, apiKey } = context;
  const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
  const onOutput = context.pulumiOutput;
  const stack = await LocalWorkspace.createOrSelectStack({ stackName: STACK, workDir: context.dir }, { envVars: context.env, pulumiCommand: await pulumiCommand(context.binDir) });
  await stack.setConfig("gemini-environments:apiKey", { value: apiKey, secret: true });
  await stack.setConfig("gemini-environments:baseUrl", { value: emulator.url });

  step("pulumi up (local file:// backend; the API key is a secret in the stack config)");
  const up = await stack.up({ onOutput });
  const environmentId = String(up.outputs.environmentId?.value);

  const client = new EnvironmentsClient({ apiKey, baseUrl: emulator.url });
  try {
    step("what was created");
    const environment = await client.get(environmentId);
    log(`  environment  ${environment.id}`);
    log(`  status       ${environment.status}`);
    log(`  fileCount    ${environment.file_count}`);
    log("  files");
    for await (const file of client.listAllFiles({ environment: environmentId, recursive: true })) {
      log(`    /${file.path ?? file.name}  ${file.size_bytes ?? "?"} bytes`);
    }

    step("the security gate's decisions (POST …:executeTool, an emulator extension)");
    await showHookDecisions(emulator.url, apiKey, environmentId, log);
  } finally {
    await client.close();
  }

  step("pulumi destroy");
  await stack.destroy({ onOutput });
  await stack.workspace.removeStack(STACK);
  const left = await listCount(emulator.url, apiKey);
  log(`  environments left on the emulator: ${left}`);
  return environmentId;
}

/** Each of TOOL_CALLS through the hooks, as `deny`/`allow` lines; a note when the emulator has no `:executeTool`. */
async function showHookDecisions(baseUrl: string, apiKey: string, environmentId: string, log: (line: string) => void): Promise<void> {
  for (const code of TOOL_CALLS) {
    const response = await fetch(`${baseUrl}/v1beta/environments/${environmentId}:executeTool`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": apiKey },
      body: JSON.stringify({ tool_call: { name: "code_execution", args: { code } } }),
    });
    const body = (await response.json().catch(() => ({}))) as { decision?: string; reason?: string; output?: string; error?: unknown; error_message?: string };
    if (response.status === 404) {
      log("  (skipped: this emulator has no :executeTool endpoint yet)");
      return;
    }
    if (!response.ok) {
      log(`  ${JSON.stringify(code)}: HTTP ${response.status} ${JSON.stringify(body)}`);
      continue;
    }
    const detail = body.decision === "deny" ? body.reason : (body.output ?? "").trim() || (body.error ? JSON.stringify(body.error) : "");
    log(`  ${(body.decision ?? "?").padEnd(5)}  ${JSON.stringify(code)}${detail ? `  → ${detail}` : ""}`);
  }
}

async function listCount(baseUrl: string, apiKey: string): Promise<number> {
  const response = await fetch(`${baseUrl}/v1beta/environments`, { headers: { "x-goog-api-key": apiKey } });
  const body = (await response.json()) as { environments?: unknown[] };
  return body.environments?.length ?? 0;
}

/**
 * Pulumi's output arrives in chunks that split lines; this passes on whole lines, without the
 * non-interactive progress dots (`@ updating....`) and the hint to `pulumi stack rm` (the demo does that).
 */
function indentedLines(write: (line: string) => void): (text: string) => void {
  let pending = "";
  return (text) => {
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (/^@ /.test(line) || /pulumi stack rm|history and configuration associated/.test(line)) continue;
      write(line.trimEnd());
    }
  };
}

/** The checkout this file runs from (source or dist): the nearest dir up holding scripts/pulumi-engine. */
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "scripts", "pulumi-engine")) && fs.existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new CLIError("the demo runs from a checkout of pulumi-gemini-environments (it needs scripts/pulumi-engine and examples/)");
  }
}

if (require.main === module) {
  void main(process.argv);
}
