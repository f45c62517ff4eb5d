/**
 * The previous release's sources, for the upgrade test: the tree of the commit it was cut from,
 * extracted once per machine from this repository's own history (`git archive`) into
 * `~/.cache/pulumi-gemini-environments/releases/<version>-<commit>/`, with this checkout's
 * node_modules linked in to build it (its dependencies are the same, or it would not be an upgrade
 * this package supports).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { runCommand } from "../support/commands";

/** 0.2.0 was cut from this commit (there is no tag in this repository: the release workflow makes it). */
export const PREVIOUS_RELEASE = { version: "0.2.0", commit: "af118e3e68b2272c100d91e65c2eb8b09e033cfa" } as const;

const EXTRACT_TIMEOUT_MS = 120_000;

export async function checkoutOfRelease(repoRoot: string, release: { version: string; commit: string } = PREVIOUS_RELEASE): Promise<string> {
  const cacheHome = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-gemini-environments", "releases");
  const checkout = path.join(cacheHome, `${release.version}-${release.commit.slice(0, 12)}`);
  if (fs.existsSync(checkout)) return checkout;
  try {
    await runCommand(["git", "cat-file", "-e", `${release.commit}^{commit}`], { cwd: repoRoot, timeoutMs: EXTRACT_TIMEOUT_MS });
  } catch (error) {
    throw new Error(`${release.version}'s commit ${release.commit} is not in this clone's history (a shallow clone?): git fetch --unshallow`, { cause: error });
  }
  await fs.promises.mkdir(cacheHome, { recursive: true });
  const stage = await fs.promises.mkdtemp(path.join(cacheHome, ".stage-"));
  try {
    const archive = path.join(stage, "source.tar");
    await runCommand(["git", "archive", "--format=tar", "-o", archive, release.commit], { cwd: repoRoot, timeoutMs: EXTRACT_TIMEOUT_MS });
    const tree = path.join(stage, "tree");
    await fs.promises.mkdir(tree);
    await runCommand(["tar", "-xf", archive, "-C", tree], { cwd: stage, timeoutMs: EXTRACT_TIMEOUT_MS });
    await fs.promises.symlink(fs.realpathSync(path.join(repoRoot, "node_modules")), path.join(tree, "node_modules"));
    await fs.promises.rename(tree, checkout).catch((error: NodeJS.ErrnoException) => {
      if (!fs.existsSync(checkout)) throw error; // another run published it first
    });
  } finally {
    await fs.promises.rm(stage, { recursive: true, force: true });
  }
  return checkout;
}
