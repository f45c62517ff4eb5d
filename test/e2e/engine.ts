// Helper for e2e tests that drive a real Pulumi engine (CLI + Node.js language host + dynamic-provider
// launcher) through the Automation API (`@pulumi/pulumi/automation`).
//
// `pulumiEngine()` runs scripts/pulumi-engine once per module instance (jest gives each test file its own
// module registry, so: once per test file; a cached engine answers in well under a second, a cold build
// from Go modules takes minutes) and returns the engine's bin dir plus an environment for the CLI:
// PATH prefixed by the bin dir, no update check, a fresh PULUMI_HOME, a passphrase secrets provider and a
// fresh file:// backend in PULUMI_BACKEND_URL. Pass `env` as `envVars` to LocalWorkspace and
// `await pulumiCommand(binDir)` as its `pulumiCommand`.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { PulumiCommand } from "@pulumi/pulumi/automation";

export const repoRoot = path.resolve(__dirname, "..", "..");
const script = path.join(repoRoot, "scripts", "pulumi-engine");

/** A cold build of the engine can take this long on a 2-core machine; use it for beforeAll timeouts. */
export const ENGINE_BUILD_TIMEOUT_MS = 45 * 60 * 1000;

export interface PulumiEngine {
  /** Absolute path of the dir holding pulumi, pulumi-language-nodejs and pulumi-resource-pulumi-nodejs. */
  binDir: string;
  /** process.env plus PATH, PULUMI_SKIP_UPDATE_CHECK, PULUMI_HOME, PULUMI_CONFIG_PASSPHRASE, PULUMI_BACKEND_URL, NODE_PATH. */
  env: Record<string, string>;
  /** Removes the temp PULUMI_HOME and backend dirs made for this env. */
  cleanup: () => Promise<void>;
}

let binDirPromise: Promise<string> | undefined;

function runScript(): Promise<string> {
  return new Promise((resolve, reject) => {
    // Progress (and a build's go output) goes straight to our stderr; the answer is stdout's last line.
    const child = spawn(script, [], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code !== 0) {
        reject(new Error(`scripts/pulumi-engine failed (exit ${code ?? signal}); its stderr is above`));
        return;
      }
      const lines = stdout.trim().split("\n");
      const binDir = lines[lines.length - 1]?.trim() ?? "";
      if (!path.isAbsolute(binDir) || !fs.existsSync(path.join(binDir, "pulumi"))) {
        reject(new Error(`scripts/pulumi-engine printed no usable bin dir: ${JSON.stringify(stdout)}`));
        return;
      }
      resolve(binDir);
    });
  });
}

/** The engine's bin dir; runs scripts/pulumi-engine at most once per module instance. */
export function pulumiEngineBinDir(): Promise<string> {
  binDirPromise ??= runScript();
  return binDirPromise;
}

export async function pulumiEngine(): Promise<PulumiEngine> {
  const binDir = await pulumiEngineBinDir();
  const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pulumi-e2e-"));
  const home = path.join(scratch, "home");
  const backend = path.join(scratch, "backend");
  await fs.promises.mkdir(home);
  await fs.promises.mkdir(backend);

  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined) env[k] = v;
  }
  Object.assign(env, {
    PATH: [binDir, process.env.PATH].filter(Boolean).join(path.delimiter),
    PULUMI_SKIP_UPDATE_CHECK: "1",
    PULUMI_HOME: home,
    PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase",
    PULUMI_BACKEND_URL: `file://${backend}`,
    // The dynamic-provider launcher resolves @pulumi/pulumi from the provider's working directory;
    // inline Automation API programs run in a temp workDir, so let it fall back to our node_modules.
    NODE_PATH: [path.join(repoRoot, "node_modules"), process.env.NODE_PATH].filter(Boolean).join(path.delimiter),
  });
  return {
    binDir,
    env,
    cleanup: () => fs.promises.rm(scratch, { recursive: true, force: true }),
  };
}

/**
 * A PulumiCommand for the engine in `binDir` (PulumiCommand.get wants an install root holding bin/pulumi),
 * for LocalWorkspace's `pulumiCommand` option.
 */
export async function pulumiCommand(binDir: string): Promise<PulumiCommand> {
  let root = path.dirname(binDir);
  if (path.basename(binDir) !== "bin") {
    root = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pulumi-root-"));
    await fs.promises.symlink(binDir, path.join(root, "bin"));
  }
  return PulumiCommand.get({ root });
}
