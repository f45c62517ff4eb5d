/**
 * The real Pulumi engine against `genv serve` for the benchmarks that drive it (fleet, faults,
 * policy): the package installed from its tarball into a throwaway workspace (run `npm run build`
 * first), the engine of `scripts/pulumi-engine`, a local file:// backend, and stacks through the
 * Automation API with the server's key and URL.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { createPackedWorkspace, type PackedWorkspace } from "../devtools/packed-workspace";
import { ensurePulumiEngine, localPulumiEnv, pulumiCommand } from "../devtools/pulumi-engine";
import { startServeProcess } from "./_measure";

export interface EngineBench {
  repoRoot: string;
  server: Awaited<ReturnType<typeof startServeProcess>>;
  /** A temp dir of the bench's own, removed by `cleanup`. */
  scratch: string;
  workspace: PackedWorkspace;
  /** The CLI's environment: local backend, GOOGLE_API_KEY and GOOGLE_GEMINI_BASE_URL of the server. */
  env: Record<string, string>;
  /** Stack `stackName` of the program in `dir`, with `envVars` (default `env`). */
  stack(dir: string, stackName: string, envVars?: Record<string, string>): Promise<Stack>;
  /** Removes the workspace and the scratch dir, stops the server. */
  cleanup(): Promise<void>;
}

/** `name` tags the scratch dir; `serveArgs` and `onLogLine` go to `startServeProcess`. */
export async function startEngineBench(name: string, serveArgs: string[] = [], onLogLine?: (line: string) => void): Promise<EngineBench> {
  const repoRoot = path.resolve(__dirname, "..", "..");
  const server = await startServeProcess(serveArgs, onLogLine);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), `genv-bench-${name}-`));
  let workspace: PackedWorkspace | undefined;
  const cleanup = async () => {
    await workspace?.cleanup();
    await fs.rm(scratch, { recursive: true, force: true });
    await server.stop();
  };
  try {
    workspace = await createPackedWorkspace({ repoRoot, build: false });
    const binDir = await ensurePulumiEngine(repoRoot);
    await Promise.all(["home", "backend"].map((dir) => fs.mkdir(path.join(scratch, dir))));
    const env = { ...localPulumiEnv(binDir, path.join(scratch, "home"), path.join(scratch, "backend")), GOOGLE_API_KEY: server.key, GOOGLE_GEMINI_BASE_URL: server.url };
    const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
    const cli = await pulumiCommand(binDir);
    return {
      repoRoot,
      server,
      scratch,
      workspace,
      env,
      stack: (dir, stackName, envVars = env) => LocalWorkspace.createOrSelectStack({ stackName, workDir: dir }, { envVars, pulumiCommand: cli }),
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
