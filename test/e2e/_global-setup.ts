// Once per jest run that has e2e files, before any of them: the Pulumi engine (built from Go modules
// when not cached) and the package's built tarball with its shared install. Every e2e file's fixture
// (useE2E) finds them cached, so parallel workers never build them side by side, and no test's
// timeout has to cover a cold build.
import { ensurePulumiEngine } from "../../devtools/pulumi-engine";
import { createPackedWorkspace } from "../../devtools/packed-workspace";
import { repoRoot } from "./engine";

export default async function prepareE2E(): Promise<void> {
  const started = performance.now();
  const [, workspace] = await Promise.all([
    ensurePulumiEngine(repoRoot),
    createPackedWorkspace({ repoRoot, build: true, pulumiDir: process.env.GENV_E2E_PULUMI_DIR || undefined }),
  ]);
  await workspace.cleanup();
  process.stderr.write(`\ne2e: the engine and the packed package ready in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
