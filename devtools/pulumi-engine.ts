/**
 * The Pulumi engine (CLI + Node.js language host + dynamic-provider launcher) for the demo, the e2e
 * tests and the fleet benchmark: `scripts/pulumi-engine` of the repo checkout finds it, or builds it
 * from Go modules once and caches it outside the repo. Runs only from a checkout (the script is not
 * part of the package).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { PulumiCommand } from "@pulumi/pulumi/automation";

/**
 * How long a test may wait for the engine (no test waits longer than 10 minutes): a cold build takes
 * about 7 minutes on a 2-core machine, and .ci/run makes it before the tests.
 */
export const ENGINE_BUILD_TIMEOUT_MS = 10 * 60 * 1000; // 10 min

/** Runs `scripts/pulumi-engine` (its progress goes to our stderr); resolves to the engine's bin dir. */
export function ensurePulumiEngine(repoRoot: string): Promise<string> {
  const script = path.join(repoRoot, "scripts", "pulumi-engine");
  return new Promise((resolve, reject) => {
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

/**
 * A PulumiCommand for the engine in `binDir` (PulumiCommand.get wants an install root holding bin/pulumi),
 * for LocalWorkspace's `pulumiCommand` option.
 */
export async function pulumiCommand(binDir: string): Promise<PulumiCommand> {
  const { PulumiCommand } = await import("@pulumi/pulumi/automation");
  let root = path.dirname(binDir);
  if (path.basename(binDir) !== "bin") {
    root = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pulumi-root-"));
    await fs.promises.symlink(binDir, path.join(root, "bin"));
  }
  return PulumiCommand.get({ root });
}

/**
 * The environment for the CLI with a local, throwaway setup: process.env without Gemini credentials
 * (nothing reaches a real account by accident), PATH led by the engine, no update check, `home` as
 * PULUMI_HOME, a passphrase secrets provider and a file:// backend in `backendDir`.
 */
export function localPulumiEnv(binDir: string, home: string, backendDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  for (const key of ["GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "PULUMI_ACCESS_TOKEN"]) delete env[key];
  return Object.assign(env, {
    PATH: [binDir, process.env.PATH].filter(Boolean).join(path.delimiter),
    PULUMI_SKIP_UPDATE_CHECK: "1",
    PULUMI_HOME: home,
    PULUMI_CONFIG_PASSPHRASE: "local-passphrase",
    PULUMI_BACKEND_URL: `file://${backendDir}`,
  });
}
