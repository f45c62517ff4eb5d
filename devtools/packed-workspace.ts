/**
 * A throwaway directory where Pulumi programs use this package exactly as a user would: installed
 * from its `npm pack` tarball, not from the sources. That matters for the dynamic provider: Pulumi's
 * closure serializer captures a module under `node_modules` as a `require` of the package, while a
 * module of the repo itself would be serialized by value (and fail).
 *
 * ```
 * <root>/package.json
 * <root>/node_modules/pulumi-gemini-environments   installed from the tarball (install scripts skipped)
 * <root>/node_modules/@pulumi/pulumi               a symlink to one existing copy
 * <root>/node_modules/@pulumi/policy               a symlink to the repo's copy (the policy pack's optional peer)
 * <root>/node_modules/@pulumi/docker               a symlink to the repo's copy (EmulatorContainer's optional peer)
 * <root>/programs/<name>/{Pulumi.yaml,package.json,index.js,...}
 * ```
 *
 * With `build`, `<root>/node_modules` is a link to one install of the built tarball shared by every
 * workspace of the same sources (`~/.cache/pulumi-gemini-environments/installs`); programs only read it.
 *
 * Programs are plain JavaScript (examples are transpiled from TypeScript once, here) with
 * `typescript: false`, so the language host skips ts-node. Used by the demo, the e2e tests and the benchmarks;
 * runs only from a checkout of the repo (it needs `npm`, and `typescript` for a build or an example).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

const PACKAGE_NAME = "pulumi-gemini-environments";
/** The files that steer the build and the pack, whatever tsconfig.build.json and package.json list. */
const PACKAGE_CONFIG = ["package.json", "README.md", "schema.json", "tsconfig.json", "tsconfig.build.json"];
/** Example files that are not part of a program run. */
const EXAMPLE_SKIP = new Set(["package.json", "package-lock.json", "tsconfig.json", ".npmrc", ".gitignore", "README.md", "node_modules", "bin"]);

export type PackedWorkspaceOptions = PackageSource & {
  /** The repo checkout whose node_modules the workspace links `@pulumi/*` from (and, but with `tarball`, whose package it packs). */
  repoRoot: string;
  /** The `@pulumi/pulumi` package dir programs use; default the repo's own copy. */
  pulumiDir?: string;
  /** Progress lines. */
  log?: (line: string) => void;
};

/** Where the installed package comes from. */
type PackageSource =
  | {
      /**
       * `true`: compile the sources into a staging dir and pack that, cached by a hash of the sources
       * (under `~/.cache/pulumi-gemini-environments/packs`), so the repo's `dist` is never touched and
       * parallel test files share one build. `false`: pack the repo as it is (`dist` must be fresh, e.g.
       * after `npm run build`).
       */
      build: boolean;
    }
  | {
      /** A tarball packed elsewhere (another release's), installed as it is. */
      tarball: string;
    };

export interface PackedWorkspace {
  /** The dir holding `node_modules`; programs live beneath it. */
  root: string;
  /** The packed tarball that was installed. */
  tarball: string;
  /** Writes a JavaScript program (`files` must include `index.js`); returns its dir. */
  addProgram(name: string, files: Record<string, string>, pulumiYaml?: string): Promise<string>;
  /** Copies `examples/<example>` as program `name` (default the example's), transpiling `index.ts`; returns its dir. */
  addExample(example: string, name?: string): Promise<string>;
  /** Removes the workspace (the pack cache stays). */
  cleanup(): Promise<void>;
}

export async function createPackedWorkspace(options: PackedWorkspaceOptions): Promise<PackedWorkspace> {
  const log = options.log ?? (() => undefined);
  const root = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-workspace-"));
  let tarball: string;
  try {
    tarball = "tarball" in options ? options.tarball : await packPackage({ ...options, into: root });
    await fs.promises.writeFile(path.join(root, "package.json"), JSON.stringify({ name: "genv-workspace", private: true }) + "\n");
    if ("build" in options && options.build) {
      // A built tarball is named by its inputs' hash, so its install can be made once and shared
      // (read-only) by every workspace of the same sources, e.g. each e2e test file's.
      await fs.promises.symlink(await sharedInstall(tarball, options, log), path.join(root, "node_modules"));
    } else {
      await installInto(root, tarball, options, log);
    }
    await fs.promises.mkdir(path.join(root, "programs"));
  } catch (error) {
    await fs.promises.rm(root, { recursive: true, force: true });
    throw error;
  }
  return {
    root,
    tarball,
    addProgram: (name, files, pulumiYaml) => writeProgram(path.join(root, "programs", name), name, files, pulumiYaml),
    addExample: (example, name) => copyExample(path.join(options.repoRoot, "examples", example), path.join(root, "programs", name ?? example)),
    cleanup: () => fs.promises.rm(root, { recursive: true, force: true }),
  };
}

/**
 * The package's `npm pack` tarball: with `build`, the cached build of the sources (see
 * PackedWorkspaceOptions.build); else the repo packed as it is, into `into`.
 */
export function packPackage(options: { repoRoot: string; build: boolean; into: string; log?: (line: string) => void }): Promise<string> {
  const log = options.log ?? (() => undefined);
  return options.build ? packBuilt(options.repoRoot, log) : packAsIs(options.repoRoot, options.into, log);
}

/** `Pulumi.yaml` of a JavaScript program: no ts-node in the language host. */
export function javascriptProject(name: string, extra = ""): string {
  return `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n${extra}`;
}

async function writeProgram(dir: string, name: string, files: Record<string, string>, pulumiYaml?: string): Promise<string> {
  if (!("index.js" in files)) throw new Error(`program ${name}: files must include index.js`);
  await fs.promises.mkdir(dir, { recursive: true });
  await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), pulumiYaml ?? javascriptProject(name));
  await fs.promises.writeFile(path.join(dir, "package.json"), JSON.stringify({ name, private: true, main: "index.js" }) + "\n");
  for (const [file, content] of Object.entries(files)) {
    await fs.promises.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.promises.writeFile(path.join(dir, file), content);
  }
  return dir;
}

/**
 * The example's files (hook scripts, workspace trees) with index.ts transpiled next to them as index.js.
 * A program in another language (no index.ts: YAML, Python) is copied as it is. Either way the plugin
 * path of Pulumi.yaml (`./node_modules/pulumi-gemini-environments/bin`) points at the workspace's
 * installed package.
 */
async function copyExample(source: string, dir: string): Promise<string> {
  await fs.promises.cp(source, dir, { recursive: true, filter: (file) => file === source || !EXAMPLE_SKIP.has(path.basename(file)) || path.dirname(file) !== source });
  const bin = path.join(dir, "..", "..", "node_modules", PACKAGE_NAME, "bin");
  const copiedYaml = await fs.promises.readFile(path.join(dir, "Pulumi.yaml"), "utf8");
  await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), copiedYaml.replaceAll(`./node_modules/${PACKAGE_NAME}/bin`, bin));
  if (!fs.existsSync(path.join(dir, "index.ts"))) return dir;
  const ts = await import("typescript");
  const indexTs = path.join(dir, "index.ts");
  const output = ts.transpileModule(await fs.promises.readFile(indexTs, "utf8"), {
    fileName: indexTs,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  await fs.promises.writeFile(path.join(dir, "index.js"), output.outputText);
  await fs.promises.rm(indexTs);
  await fs.promises.writeFile(path.join(dir, "package.json"), JSON.stringify({ name: path.basename(dir), private: true, main: "index.js" }) + "\n");
  const yaml = await fs.promises.readFile(path.join(dir, "Pulumi.yaml"), "utf8");
  if (!/^runtime: nodejs$/m.test(yaml)) throw new Error(`${source}/Pulumi.yaml: expected a "runtime: nodejs" line`);
  await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), yaml.replace(/^runtime: nodejs$/m, "runtime:\n  name: nodejs\n  options:\n    typescript: false"));
  return dir;
}

/**
 * Installs `tarball` into `dir`/node_modules, with `@pulumi/pulumi` (`options.pulumiDir`, default the
 * repo's) and the optional peers `@pulumi/policy` and `@pulumi/docker` linked to existing copies.
 */
async function installInto(dir: string, tarball: string, options: PackedWorkspaceOptions, log: (line: string) => void): Promise<void> {
  log(`installing ${path.basename(tarball)} into ${dir}`);
  // --legacy-peer-deps: npm must not install @pulumi/pulumi (a peer dependency) itself; we link one.
  // --ignore-scripts: the package's own dependencies have none; nothing else is installed here.
  await npm(["install", "--no-save", "--legacy-peer-deps", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], dir);
  await fs.promises.mkdir(path.join(dir, "node_modules", "@pulumi"), { recursive: true });
  await fs.promises.symlink(linkedPulumiDir(options), path.join(dir, "node_modules", "@pulumi", "pulumi"));
  for (const optionalPeer of ["policy", "docker"]) {
    await fs.promises.symlink(fs.realpathSync(path.join(options.repoRoot, "node_modules", "@pulumi", optionalPeer)), path.join(dir, "node_modules", "@pulumi", optionalPeer));
  }
}

function linkedPulumiDir(options: PackedWorkspaceOptions): string {
  return fs.realpathSync(options.pulumiDir ?? path.join(options.repoRoot, "node_modules", "@pulumi", "pulumi"));
}

/**
 * The node_modules of `tarball` installed once per tarball and `@pulumi/pulumi` (under
 * `~/.cache/pulumi-gemini-environments/installs`), published by a rename like the packs: parallel
 * first runs each install, one wins, none sees a half install.
 */
async function sharedInstall(tarball: string, options: PackedWorkspaceOptions, log: (line: string) => void): Promise<string> {
  const key = createHash("sha256").update(tarball).update("\0").update(linkedPulumiDir(options)).update("\0").update(options.repoRoot).digest("hex").slice(0, 16);
  const installsRoot = path.join(cacheHome(), "installs");
  const installed = path.join(installsRoot, key);
  if (fs.existsSync(installed)) return path.join(markUsed(installed), "node_modules");
  await fs.promises.mkdir(installsRoot, { recursive: true });
  const stage = await fs.promises.mkdtemp(path.join(installsRoot, ".stage-"));
  try {
    await fs.promises.writeFile(path.join(stage, "package.json"), JSON.stringify({ name: "genv-workspace", private: true }) + "\n");
    await installInto(stage, tarball, options, log);
    await fs.promises.rename(stage, installed).catch((error: NodeJS.ErrnoException) => {
      if (!fs.existsSync(installed)) throw error; // another run published the same install first
    });
    pruneCache(installsRoot, key);
  } finally {
    await fs.promises.rm(stage, { recursive: true, force: true });
  }
  return path.join(installed, "node_modules");
}

function cacheHome(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), PACKAGE_NAME);
}

/** `npm pack` of the repo as it is, into `into`. */
async function packAsIs(repoRoot: string, into: string, log: (line: string) => void): Promise<string> {
  if (!fs.existsSync(path.join(repoRoot, "dist", "index.js"))) throw new Error(`${repoRoot}/dist is missing: run npm run build first`);
  log("packing the package (npm pack)");
  return path.join(into, await npmPack(repoRoot, into));
}

/**
 * Compiles the sources into a staging dir with tsconfig.build.json and packs that; the tarball is
 * cached by a hash of every input, and published into the cache by a rename (safe for parallel runs).
 */
async function packBuilt(repoRoot: string, log: (line: string) => void): Promise<string> {
  const hash = hashInputs(repoRoot);
  const cacheRoot = path.join(cacheHome(), "packs");
  const cached = path.join(cacheRoot, hash);
  const existing = fs.existsSync(cached) ? fs.readdirSync(cached).find((file) => file.endsWith(".tgz")) : undefined;
  if (existing) return path.join(markUsed(cached), existing);

  log("building and packing the package");
  await fs.promises.mkdir(cacheRoot, { recursive: true });
  const stage = await fs.promises.mkdtemp(path.join(cacheRoot, ".stage-"));
  try {
    const pkg = path.join(stage, "pkg");
    await fs.promises.mkdir(pkg);
    const tsc = require.resolve("typescript/bin/tsc", { paths: [repoRoot] });
    await execFileAsync(process.execPath, [tsc, "-p", path.join(repoRoot, "tsconfig.build.json"), "--outDir", path.join(pkg, "dist")], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
    // What npm run build copies beside the compiled code, read at run time (and injected into the single
    // executables): the Terraform provider's .proto files and the sandbox's enter.c.
    const protos = path.join(repoRoot, "provider", "terraform");
    for (const file of fs.readdirSync(protos).filter((name) => name.endsWith(".proto"))) await fs.promises.copyFile(path.join(protos, file), path.join(pkg, "dist", "provider", "terraform", file));
    await fs.promises.copyFile(path.join(repoRoot, "emulator", "sandbox", "enter.c"), path.join(pkg, "dist", "emulator", "sandbox", "enter.c"));
    for (const file of ["package.json", "README.md", "schema.json"]) await fs.promises.copyFile(path.join(repoRoot, file), path.join(pkg, file));
    await fs.promises.cp(path.join(repoRoot, "bin"), path.join(pkg, "bin"), { recursive: true });
    await fs.promises.cp(path.join(repoRoot, "policy-pack"), path.join(pkg, "policy-pack"), { recursive: true });
    await fs.promises.mkdir(path.join(pkg, "policy"));
    await fs.promises.copyFile(path.join(repoRoot, "policy", "package.json"), path.join(pkg, "policy", "package.json"));
    const out = path.join(stage, "out");
    await fs.promises.mkdir(out);
    await npmPack(pkg, out);
    await fs.promises.rename(out, cached).catch((error: NodeJS.ErrnoException) => {
      if (!fs.existsSync(cached)) throw error; // another run published the same build first
    });
    pruneCache(cacheRoot, hash);
  } finally {
    await fs.promises.rm(stage, { recursive: true, force: true });
  }
  return packBuilt(repoRoot, log);
}

/**
 * The package's inputs, repository-relative: what tsconfig.build.json compiles (its `include`), what
 * package.json ships (its `files`, less the `!` exclusions and the compiler's `outDir`, which the build
 * makes), and PACKAGE_CONFIG. Read from the build's own files, so that a folder added to the build or
 * renamed in it is in the pack cache's hash without a second list to keep, e.g.
 * `["README.md", "bench", "bin", "cli", "client", …]`.
 */
export function packageInputs(repoRoot: string): string[] {
  const ts: typeof import("typescript") = require(require.resolve("typescript", { paths: [repoRoot, __dirname] }));
  const readConfig = (file: string): { extends?: string; include?: string[]; compilerOptions?: { outDir?: string } } => {
    const { config, error } = ts.readConfigFile(path.join(repoRoot, file), ts.sys.readFile);
    if (error) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(error.messageText, "\n")}`);
    return config;
  };
  const build = readConfig("tsconfig.build.json");
  const outDir = build.compilerOptions?.outDir ?? (build.extends ? readConfig(build.extends).compilerOptions?.outDir : undefined);
  const normalize = (entry: string) => path.posix.normalize(entry).replace(/\/$/, "");
  const built = (entry: string) => outDir !== undefined && (entry === normalize(outDir) || entry.startsWith(`${normalize(outDir)}/`));
  const shipped = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { files?: string[] }).files ?? [];
  const entries = [...(build.include ?? []), ...shipped.filter((entry) => !entry.startsWith("!")), ...PACKAGE_CONFIG].map(normalize);
  return [...new Set(entries.filter((entry) => !built(entry)))].sort();
}

/** A hash over the package's inputs (paths and contents), e.g. `3f9a…`. */
function hashInputs(repoRoot: string): string {
  const hash = createHash("sha256");
  const visit = (relative: string) => {
    const full = path.join(repoRoot, relative);
    if (!fs.existsSync(full)) return;
    if (fs.statSync(full).isDirectory()) {
      for (const entry of fs.readdirSync(full).sort()) if (entry !== "node_modules") visit(path.join(relative, entry));
      return;
    }
    hash.update(relative).update("\0").update(fs.readFileSync(full)).update("\0");
  };
  for (const input of packageInputs(repoRoot)) visit(input);
  return hash.digest("hex").slice(0, 16);
}

/** Touches a cache entry, so that pruneCache counts a day from its last use, not from its making. */
export function markUsed(entry: string): string {
  const now = new Date();
  fs.utimesSync(entry, now, now);
  return entry;
}

/** Removes cache entries unused for a day, other than `keep`. */
export function pruneCache(cacheRoot: string, keep: string): void {
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const entry of fs.readdirSync(cacheRoot)) {
    const full = path.join(cacheRoot, entry);
    if (entry === keep || entry.startsWith(".")) continue;
    if (fs.statSync(full).mtimeMs < dayAgo) fs.rmSync(full, { recursive: true, force: true });
  }
}

async function npmPack(dir: string, into: string): Promise<string> {
  const { stdout } = await npm(["pack", "--json", "--pack-destination", into], dir);
  const [result] = JSON.parse(stdout) as Array<{ filename: string }>;
  return result.filename;
}

async function npm(args: string[], cwd: string): Promise<{ stdout: string }> {
  try {
    return await execFileAsync("npm", args, { cwd, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`npm ${args[0]} failed in ${cwd}: ${stderr ?? String(error)}`);
  }
}
