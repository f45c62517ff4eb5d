// Helper for e2e tests that drive a real Pulumi engine (CLI + Node.js language host + dynamic-provider
// launcher) through the Automation API (`@pulumi/pulumi/automation`).
//
// `pulumiEngine()` runs scripts/pulumi-engine once per module instance (jest gives each test file its own
// module registry, so: once per test file; a cached engine answers in well under a second, a cold build
// from Go modules takes minutes) and returns the engine's bin dir plus an environment for the CLI:
// PATH prefixed by the bin dir, no update check, a fresh PULUMI_HOME, a passphrase secrets provider and a
// fresh file:// backend in PULUMI_BACKEND_URL. Pass `env` as `envVars` to LocalWorkspace and
// `await pulumiCommand(binDir)` as its `pulumiCommand`.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { ENGINE_BUILD_TIMEOUT_MS, ensurePulumiEngine, localPulumiEnv, pulumiCommand } from "../../devtools/pulumi-engine";

export { ENGINE_BUILD_TIMEOUT_MS, pulumiCommand };

export const repoRoot = path.resolve(__dirname, "..", "..");

const execFileAsync = promisify(execFile);

export interface PulumiEngine {
  /** Absolute path of the dir holding pulumi, pulumi-language-nodejs and pulumi-resource-pulumi-nodejs. */
  binDir: string;
  /**
   * process.env (without Gemini credentials) plus PATH, PULUMI_SKIP_UPDATE_CHECK, PULUMI_HOME,
   * PULUMI_CONFIG_PASSPHRASE, PULUMI_BACKEND_URL, NODE_PATH.
   */
  env: Record<string, string>;
  /** Removes the temp PULUMI_HOME and backend dirs made for this env. */
  cleanup: () => Promise<void>;
}

let binDirPromise: Promise<string> | undefined;

/** The engine's bin dir; runs scripts/pulumi-engine at most once per module instance. */
export function pulumiEngineBinDir(): Promise<string> {
  binDirPromise ??= ensurePulumiEngine(repoRoot);
  return binDirPromise;
}

let pythonBinDirPromise: Promise<string> | undefined;

/**
 * The bin dir of a venv with the `pulumi` Python package (scripts/python-venv, cached outside the
 * repo), to put first on PATH for Python programs; at most once per module instance.
 */
export function pythonVenvBinDir(): Promise<string> {
  pythonBinDirPromise ??= execFileAsync(path.join(repoRoot, "scripts", "python-venv"), [], { cwd: repoRoot }).then(({ stdout }) => stdout.trim().split("\n").pop()!);
  return pythonBinDirPromise;
}

let pythonSdkBinDirPromise: Promise<string> | undefined;

/**
 * The bin dir of a venv with only `pulumi` and our wheel built from sdk/python (scripts/python-sdk-venv,
 * cached outside the repo), as a user of the Python SDK has; at most once per module instance.
 */
export function pythonSdkVenvBinDir(): Promise<string> {
  pythonSdkBinDirPromise ??= execFileAsync(path.join(repoRoot, "scripts", "python-sdk-venv"), [], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 }).then(({ stdout }) => stdout.trim().split("\n").pop()!);
  return pythonSdkBinDirPromise;
}

export async function pulumiEngine(): Promise<PulumiEngine> {
  const binDir = await pulumiEngineBinDir();
  const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pulumi-e2e-"));
  const home = path.join(scratch, "home");
  const backend = path.join(scratch, "backend");
  await fs.promises.mkdir(home);
  await fs.promises.mkdir(backend);

  const env = localPulumiEnv(binDir, home, backend);
  // The dynamic-provider launcher resolves @pulumi/pulumi from the provider's working directory;
  // inline Automation API programs run in a temp workDir, so let it fall back to our node_modules.
  env.NODE_PATH = [path.join(repoRoot, "node_modules"), process.env.NODE_PATH].filter(Boolean).join(path.delimiter);
  return {
    binDir,
    env,
    cleanup: () => fs.promises.rm(scratch, { recursive: true, force: true }),
  };
}
