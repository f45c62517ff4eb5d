/**
 * Terraform and OpenTofu for the tests and the bench: the engines (`terraform` on PATH, Terraform 1.11
 * on these machines; `tofu` built from Go modules by scripts/opentofu), a filesystem mirror of the
 * provider made of its release zips (scripts/pack-terraform), and a CLI configuration that installs
 * the provider from that mirror and nothing from the network.
 *
 * ```
 * <mirror>/registry.terraform.io/gemini-environments/geminienvironments/terraform-provider-geminienvironments_<version>_<os>_<arch>.zip
 * <mirror>/registry.opentofu.org/gemini-environments/geminienvironments/  (the same zip: OpenTofu's default host)
 * ```
 *
 * The packed layout: the zip as the release publishes it, which `terraform init` checks and unpacks
 * (its lock file records the zip's hash, `zh:`). The mirror is made once per set of sources, from the
 * packed workspace's build (devtools/packed-workspace.ts, never the repo's dist/), and cached in
 * ~/.cache/pulumi-gemini-environments/terraform-mirrors/. Runs only from a checkout.
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { createPackedWorkspace, markUsed, pruneCache } from "./packed-workspace";

const execFileAsync = promisify(execFile);

/** The provider's source address, as a configuration's required_providers names it. */
export const PROVIDER_SOURCE = "gemini-environments/geminienvironments";
/** The hosts a source address without one means: Terraform's registry, and OpenTofu's. */
export const REGISTRY_HOSTS = ["registry.terraform.io", "registry.opentofu.org"] as const;
/**
 * How long a first call may take (no test waits longer than 10 minutes): scripts/opentofu's build
 * (3 to 5.5 minutes on a shared 2-core machine, the longer with an empty Go build cache), or a pack
 * of the provider (a build of the sources and a single executable, a minute or two). .ci/run builds
 * OpenTofu before the tests.
 */
export const TERRAFORM_TOOLS_TIMEOUT_MS = 10 * 60_000;

export type EngineName = "terraform" | "tofu";

export interface TerraformEngine {
  name: EngineName;
  /** The executable's absolute path. */
  binary: string;
}

/** This machine's platform as Terraform names it: `linux_amd64`. */
export function terraformPlatform(): string {
  const arch = { x64: "amd64", arm64: "arm64" }[os.arch() as string] ?? os.arch();
  return `${os.platform()}_${arch}`;
}

/** `terraform` on PATH, or undefined. */
export function terraformOnPath(): string | undefined {
  try {
    return execFileSync("sh", ["-c", "command -v terraform"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** `tofu`, built by scripts/opentofu the first time (TERRAFORM_TOOLS_TIMEOUT_MS), then cached. */
export async function openTofuBinary(repoRoot: string): Promise<string> {
  const { stdout } = await execFileAsync(path.join(repoRoot, "scripts", "opentofu"), [], { timeout: TERRAFORM_TOOLS_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  return path.join(stdout.trim().split("\n").pop()!, "tofu");
}

/** `tofu` if scripts/opentofu has built it already (`--cached`: nothing is built here); else undefined. */
export function cachedOpenTofuBinary(repoRoot: string): string | undefined {
  try {
    const stdout = execFileSync(path.join(repoRoot, "scripts", "opentofu"), ["--cached"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return path.join(stdout.trim().split("\n").pop()!, "tofu");
  } catch {
    return undefined;
  }
}

/** The engine named, ready to run (tofu built if need be). */
export async function terraformEngine(name: EngineName, repoRoot: string): Promise<TerraformEngine> {
  if (name === "tofu") return { name, binary: await openTofuBinary(repoRoot) };
  const binary = terraformOnPath();
  if (!binary) throw new Error("no terraform on PATH (Terraform 1.11 or newer: https://developer.hashicorp.com/terraform/install)");
  return { name, binary };
}

/**
 * Places release zips into `mirror` in the packed layout, under both registries' hosts (hard links
 * where the file system allows, else copies).
 */
export async function mirrorOfZips(zips: readonly string[], mirror: string): Promise<void> {
  for (const host of REGISTRY_HOSTS) {
    const dir = path.join(mirror, host, PROVIDER_SOURCE);
    await fs.promises.mkdir(dir, { recursive: true });
    for (const zip of zips) {
      const to = path.join(dir, path.basename(zip));
      await fs.promises.link(zip, to).catch(() => fs.promises.copyFile(zip, to));
    }
  }
}

export interface ProviderMirror {
  /** The mirror's root, for `filesystem_mirror { path = … }`. */
  dir: string;
  /** The provider's version in it (package.json's). */
  version: string;
  /** The zip of this machine's platform. */
  zip: string;
}

/**
 * A mirror holding this machine's zip of the provider, built from the current sources (the packed
 * workspace's build, shared), packed once per set of sources and cached.
 */
export async function providerMirror(repoRoot: string, log: (line: string) => void = () => undefined): Promise<ProviderMirror> {
  const workspace = await createPackedWorkspace({ repoRoot, build: true, log });
  try {
    const installed = path.join(workspace.root, "node_modules", "pulumi-gemini-environments");
    const version = (JSON.parse(await fs.promises.readFile(path.join(installed, "package.json"), "utf8")) as { version: string }).version;
    const platform = terraformPlatform();
    const zipName = `terraform-provider-geminienvironments_${version}_${platform}.zip`;
    const cacheRoot = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-gemini-environments", "terraform-mirrors");
    // The built tarball sits in a directory named by its sources' hash (packs/<hash>/<name>-<version>.tgz): so is the mirror, with the packing's.
    const final = path.join(cacheRoot, `${path.basename(path.dirname(workspace.tarball))}-${packingHash(repoRoot)}-${path.basename(workspace.tarball, ".tgz")}-${platform}`);
    const found = () => ({ dir: path.join(final, "mirror"), version, zip: path.join(final, "mirror", REGISTRY_HOSTS[0], PROVIDER_SOURCE, zipName) });
    if (fs.existsSync(found().zip)) {
      markUsed(final);
      return found();
    }
    await fs.promises.mkdir(cacheRoot, { recursive: true });
    // A mirror is 45-65 MB: those of other sources go a day after their last use, as the packs do.
    pruneCache(cacheRoot, path.basename(final));
    const stage = await fs.promises.mkdtemp(path.join(cacheRoot, ".build-"));
    try {
      log(`packing the Terraform provider for ${platform} into ${final}`);
      await execFileAsync(path.join(repoRoot, "scripts", "pack-terraform"), ["--from", installed, "--release", path.join(stage, "zips"), "--platforms", platform.replace("_", "-")], {
        cwd: repoRoot,
        timeout: TERRAFORM_TOOLS_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      });
      await mirrorOfZips([path.join(stage, "zips", zipName)], path.join(stage, "mirror"));
      await fs.promises.rm(path.join(stage, "zips"), { recursive: true });
      // Another process may have made the same mirror meanwhile: either is the same.
      await fs.promises.rename(stage, final).catch((error: NodeJS.ErrnoException) => {
        if (!fs.existsSync(found().zip)) throw error;
      });
    } finally {
      await fs.promises.rm(stage, { recursive: true, force: true });
    }
    return found();
  } finally {
    await workspace.cleanup();
  }
}

/** What makes the zip of a build: the packing scripts and the bundler of the single executable's snapshot. */
const PACKING_INPUTS = ["scripts/pack-plugin", "scripts/pack-terraform", "scripts/node-sea", "node_modules/esbuild/package.json"];

/** A hash over PACKING_INPUTS' contents and the switches scripts/pack-plugin reads, e.g. `9c04e1d2`. */
function packingHash(repoRoot: string): string {
  const hash = createHash("sha256");
  for (const input of PACKING_INPUTS) hash.update(input).update("\0").update(fs.readFileSync(path.join(repoRoot, input))).update("\0");
  for (const name of ["GENV_PLUGIN_SEA", "GENV_PLUGIN_SNAPSHOT"]) hash.update(`${name}=${process.env[name] ?? ""}\0`);
  return hash.digest("hex").slice(0, 8);
}

export interface MirrorInstallation {
  /** A filesystem mirror's root. */
  dir: string;
  /** The providers it serves (source addresses); nothing else is taken from it. */
  providers: readonly string[];
}

/**
 * A CLI configuration (`TF_CLI_CONFIG_FILE`, for Terraform and OpenTofu alike) that installs each
 * provider from its mirror and nothing from the network: `direct` excludes them, and a configuration
 * that asks for any other provider fails at init instead of downloading it.
 */
export function cliConfig(mirrors: readonly MirrorInstallation[]): string {
  const list = (items: readonly string[]) => `[${items.map((item) => JSON.stringify(item)).join(", ")}]`;
  const all = mirrors.flatMap((mirror) => mirror.providers);
  const blocks = mirrors.map((mirror) => `  filesystem_mirror {\n    path    = ${JSON.stringify(mirror.dir)}\n    include = ${list(mirror.providers)}\n  }\n`);
  return `provider_installation {\n${blocks.join("")}  direct {\n    exclude = ${list(all)}\n  }\n}\n`;
}

/**
 * The environment a terraform or tofu command runs in: `TF_CLI_CONFIG_FILE` (written by the caller
 * from cliConfig), no checkpoint calls, no colour, no prompts, the API's key and URL for the provider
 * (GOOGLE_API_KEY and GOOGLE_GEMINI_BASE_URL, as the Pulumi provider reads them).
 */
export function terraformEnv(options: { cliConfigFile: string; baseUrl: string; apiKey: string; pluginCacheDir?: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("TF_") || name === "GEMINI_API_KEY") delete env[name];
  return {
    ...env,
    TF_CLI_CONFIG_FILE: options.cliConfigFile,
    TF_IN_AUTOMATION: "1",
    TF_INPUT: "0",
    CHECKPOINT_DISABLE: "1",
    NO_COLOR: "1",
    GOOGLE_API_KEY: options.apiKey,
    GOOGLE_GEMINI_BASE_URL: options.baseUrl,
    ...(options.pluginCacheDir ? { TF_PLUGIN_CACHE_DIR: options.pluginCacheDir } : {}),
  };
}
