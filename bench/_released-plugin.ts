/**
 * The Pulumi plugin as the engine downloads it on this machine: scripts/pack-plugin's release tarball
 * of this machine's Linux (the single executable, with its code cache; GENV_PLUGIN_SEA=0 in `env`
 * packs the Node.js launcher with dist/ and node_modules/ instead, GENV_PLUGIN_SNAPSHOT=0 the bare
 * bundle), unpacked into `dir`. Returns the executable's path. Runs from the repo after `npm run build`.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileAsync } from "./_measure";

export async function releasedPlugin(repoRoot: string, dir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const platform = `linux-${os.arch() === "x64" ? "amd64" : os.arch()}`;
  const release = `${dir}.release`;
  await execFileAsync(path.join(repoRoot, "scripts", "pack-plugin"), ["--release", release, "--platforms", platform], { env, maxBuffer: 16 * 1024 * 1024 });
  const version = JSON.parse(await fs.readFile(path.join(repoRoot, "package.json"), "utf8")).version;
  await fs.mkdir(dir, { recursive: true });
  await execFileAsync("tar", ["-xzf", path.join(release, `pulumi-resource-gemini-environments-v${version}-${platform}.tar.gz`), "-C", dir]);
  await fs.rm(release, { recursive: true, force: true });
  return path.join(dir, "pulumi-resource-gemini-environments");
}
