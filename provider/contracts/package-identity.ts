/**
 * The package's own identity, read once from the files it ships: its root (the first directory above
 * this module that holds package.json and schema.json: the repository, the installed package, or the
 * plugin's directory), its version, and what the plugin's resources and functions register so that
 * the engine can install the plugin on demand. Loads nothing else, so the plugin's compile cache can
 * use it before any other module loads.
 *
 * In a single executable (plugin/single-executable.ts) nothing lies beside it: package.json and
 * schema.json are the assets scripts/pack-plugin injected with the bundle, and the root is the
 * executable's directory.
 */
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { startupSnapshot } from "node:v8";

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json")) && existsSync(path.join(dir, "schema.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json with a schema.json beside it above ${from}`);
  }
}

/**
 * node:sea when this runs in a single executable (Node.js 20.12 and newer have it), else undefined;
 * undefined too while a startup snapshot is made, where Node.js warns of node:sea.
 */
function singleExecutable(): typeof import("node:sea") | undefined {
  if (startupSnapshot.isBuildingSnapshot()) return undefined;
  try {
    const sea = require("node:sea") as typeof import("node:sea");
    return sea.isSea() ? sea : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An asset scripts/pack-plugin injected into the single executable (its text), or undefined when this
 * does not run in one.
 */
export function singleExecutableAsset(name: string): string | undefined {
  return singleExecutable()?.getAsset(name, "utf8");
}

/** Whether this runs in a single executable. */
export function inSingleExecutable(): boolean {
  return singleExecutable() !== undefined;
}

let root: string | undefined;

/** The package's root directory; in a single executable, the executable's directory. */
export function packageRoot(): string {
  return (root ??= singleExecutable() ? path.dirname(process.execPath) : findPackageRoot(__dirname));
}

/** A file the package ships at its root: package.json or schema.json (in a single executable, its asset). */
export function packagedFile(name: "package.json" | "schema.json"): string {
  return singleExecutableAsset(name) ?? readFileSync(path.join(packageRoot(), name), "utf8");
}

let version: string | undefined;

/** `version` of the package's package.json. Throws when it cannot be read. */
export function packageVersion(): string {
  return (version ??= (JSON.parse(packagedFile("package.json")) as { version: string }).version);
}

/** The options a generated SDK registers with each of its resources and invokes. */
export interface PluginRegistration {
  version: string;
  pluginDownloadURL: string;
}

let registration: PluginRegistration | undefined;

/**
 * The plugin's version and download URL, as schema.json gives them: registered with a resource or an
 * invoke, they let the engine find the plugin, or download and install it when it is missing, as it
 * does for any published provider, with no `plugins:` in Pulumi.yaml.
 */
export function pluginRegistration(): PluginRegistration {
  if (registration) return registration;
  const schema = JSON.parse(packagedFile("schema.json")) as PluginRegistration;
  return (registration = { version: schema.version, pluginDownloadURL: schema.pluginDownloadURL });
}

/** `opts` (a resource's or an invoke's options) with the plugin's version and download URL where the program set none. */
export function withPluginRegistration<Options extends Partial<PluginRegistration>>(opts: Options | undefined): Options {
  const { version, pluginDownloadURL } = pluginRegistration();
  return { ...(opts as Options), version: opts?.version ?? version, pluginDownloadURL: opts?.pluginDownloadURL ?? pluginDownloadURL };
}

/**
 * The emulator's image of this version, as the release workflow pushes it: the package's name under the
 * repository owner's GitHub container registry, tagged with the version
 * (`ghcr.io/gemini-environments/pulumi-gemini-environments:0.2.0`); `scripts/release-version` derives
 * the same name for the workflow.
 */
export function releasedEmulatorImage(): string {
  const manifest = JSON.parse(packagedFile("package.json")) as { name: string; version: string; repository: { url: string } };
  const owner = /github\.com[/:]([^/]+)\//.exec(manifest.repository.url)?.[1];
  if (owner === undefined) throw new Error(`package.json's repository (${manifest.repository.url}) is not on GitHub: no released emulator image to name`);
  return `ghcr.io/${owner.toLowerCase()}/${manifest.name}:${manifest.version}`;
}
