/**
 * The previous release's package as users got it, for the upgrade test: the tree of the commit it was
 * cut from (`git archive` of this repository's own history), built and packed by that tree's own
 * `npm run build` and `npm pack`, as its release workflow did — never by today's scripts, which may
 * expect files an old tree does not have. The tarball is cached once per machine as
 * `~/.cache/pulumi-gemini-environments/releases/<version>-<commit>/<name>-<version>.tgz`; the cache only
 * saves the build: a cold run makes the same tarball the same way.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { runCommand, timeLeftOf } from "../support/commands";

/** 0.2.0 was cut from this commit (there is no tag in this repository: the release workflow makes it). */
export const PREVIOUS_RELEASE = { version: "0.2.0", commit: "af118e3e68b2272c100d91e65c2eb8b09e033cfa" } as const;

/** A cold build's share of a test hook: extracting, compiling (tsc, about a minute on a busy 2-core machine) and packing. */
export const RELEASE_BUILD_TIMEOUT_MS = 240_000;

/**
 * The release's `npm pack` tarball, built from its commit with its own scripts. The commit's tree is
 * compiled with this checkout's node_modules (linked in): its dependencies are the same, or it would
 * not be an upgrade this package supports.
 */
export async function packedRelease(repoRoot: string, release: { version: string; commit: string } = PREVIOUS_RELEASE): Promise<string> {
  const releasesRoot = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-gemini-environments", "releases");
  const packed = path.join(releasesRoot, `${release.version}-${release.commit.slice(0, 12)}`);
  const existing = packedTarball(packed);
  if (existing) return existing;

  const left = timeLeftOf(RELEASE_BUILD_TIMEOUT_MS);
  try {
    await runCommand(["git", "cat-file", "-e", `${release.commit}^{commit}`], { cwd: repoRoot, timeoutMs: left() });
  } catch (error) {
    throw new Error(`${release.version}'s commit ${release.commit} is not in this clone's history (a shallow clone?): git fetch --unshallow`, { cause: error });
  }
  await fs.promises.mkdir(releasesRoot, { recursive: true });
  const stage = await fs.promises.mkdtemp(path.join(releasesRoot, ".stage-"));
  try {
    const archive = path.join(stage, "source.tar");
    await runCommand(["git", "archive", "--format=tar", "-o", archive, release.commit], { cwd: repoRoot, timeoutMs: left() });
    const tree = path.join(stage, "tree");
    await fs.promises.mkdir(tree);
    await runCommand(["tar", "-xf", archive, "-C", tree], { cwd: stage, timeoutMs: left() });
    await fs.promises.symlink(fs.realpathSync(path.join(repoRoot, "node_modules")), path.join(tree, "node_modules"));
    await runCommand(["npm", "run", "build"], { cwd: tree, timeoutMs: left() });
    const out = path.join(stage, "out");
    await fs.promises.mkdir(out);
    await runCommand(["npm", "pack", "--pack-destination", out], { cwd: tree, timeoutMs: left() });
    // What an earlier layout of this cache left under the same name (the extracted tree alone) is no pack.
    if (fs.existsSync(packed) && !packedTarball(packed)) await fs.promises.rm(packed, { recursive: true, force: true });
    await fs.promises.rename(out, packed).catch((error: NodeJS.ErrnoException) => {
      if (!packedTarball(packed)) throw error; // else another run published it first
    });
  } finally {
    await fs.promises.rm(stage, { recursive: true, force: true });
  }
  return packedTarball(packed)!;
}

function packedTarball(dir: string): string | undefined {
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((name) => name.endsWith(".tgz")) : undefined;
  return file && path.join(dir, file);
}
