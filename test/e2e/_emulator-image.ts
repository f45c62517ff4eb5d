// What the emulator-image e2e test needs around the Pulumi engine: the scripts that prepare the Docker
// engine, the docker-build plugin, buildkitd and the offline base (each cached outside the repo), a
// buildkitd of the test's own registered as a buildx "remote" builder, the example program in a temp
// dir, and the `docker` CLI.
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { repoRoot } from "./engine";

const execFileAsync = promisify(execFile);

/**
 * What the test needs of the machine, and whether it is here: only what no installing can change.
 * dockerd and buildkitd run only on Linux, and only as root here (no rootless set-up is attempted).
 */
export function machineNeeds(): Record<string, boolean> {
  return {
    [`Linux (Docker engines and buildkitd are started only there; this is ${process.platform})`]: process.platform === "linux",
    "root (uid 0), to start dockerd and buildkitd, as CI runs the tests": process.getuid?.() === 0,
  };
}

/**
 * Whether the Docker engine has a working bridge network, which a container's published port needs, as
 * describeNeeding names it. Runs scripts/docker-engine once, at collection (it starts an engine with
 * dockerd's default bridge when none runs, about a second, and restarts its own engine that lost its
 * bridge), and takes its warning as the reason where the engine still has none. Only where `machine`
 * (machineNeeds()) holds: elsewhere the script cannot start an engine, and root is the missing need.
 */
export function dockerBridgeNeeds(machine: Record<string, boolean>): Record<string, boolean> {
  const name = "a bridge network in the Docker engine, for a port published on 127.0.0.1 (scripts/docker-engine starts dockerd with its default bridge)";
  if (Object.values(machine).includes(false)) return { [name]: true };
  const result = spawnSync(path.join(repoRoot, "scripts", "docker-engine"), { cwd: repoRoot, encoding: "utf8" });
  process.stderr.write(result.stderr);
  // A failing script is no missing prerequisite: beforeAll runs it again and fails with it.
  const why = result.status === 0 ? /no working bridge network: (.*?)\. Containers/.exec(result.stderr)?.[1] : undefined;
  return { [why ? `${name}: ${why}` : name]: why === undefined };
}

/** Runs `scripts/<name>` (its progress goes to our stderr), with `env` if given; resolves to the last line of its stdout. */
export function runScript(name: string, args: string[] = [], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(repoRoot, "scripts", name), args, { cwd: repoRoot, env: env ?? process.env, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (stdout += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const last = stdout.trim().split("\n").pop()?.trim() ?? "";
      if (code === 0 && last) resolve(last);
      else reject(new Error(`scripts/${name} failed (exit ${code ?? signal}); its stderr is above`));
    });
  });
}

/** `docker ARGS` against `host`; resolves to stdout. */
export async function docker(host: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync("docker", args, { env: { ...process.env, DOCKER_HOST: host }, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`docker ${args.join(" ")} failed: ${stderr?.trim() || String(error)}`);
  }
}

export interface Buildkit {
  /** The buildx builder's name, registered in `dockerConfig`. */
  builder: string;
  /** A DOCKER_CONFIG directory holding the builder (buildx/instances/<builder>). */
  dockerConfig: string;
  stop(): Promise<void>;
}

/**
 * A buildkitd of the test's own on a socket in a temp dir, registered as a buildx "remote" builder in
 * a DOCKER_CONFIG of its own. Its state (the layer cache) lives in the cache beside the binary, so a
 * second run rebuilds only what changed.
 */
export async function startBuildkit(binary: string): Promise<Buildkit> {
  const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-buildkit-"));
  const socket = path.join(scratch, "buildkitd.sock");
  const state = path.join(path.dirname(path.dirname(binary)), "state");
  const runc = ["/usr/sbin/runc", "/usr/bin/runc", "/usr/local/sbin/runc"].find((candidate) => fs.existsSync(candidate));
  if (!runc) throw new Error("buildkitd needs runc: apt-get install runc (docker.io depends on it)");
  const log = fs.openSync(path.join(scratch, "buildkitd.log"), "a");
  // setpriv --pdeathsig: killed with the test's process, so a run that is killed leaves no buildkitd
  // holding the state's lock (the next run's buildkitd would exit at once, "could not lock").
  const child: ChildProcess = spawn(
    "setpriv",
    ["--pdeathsig", "KILL", "--", binary, "--root", state, "--addr", `unix://${socket}`, "--oci-worker-binary", runc, "--oci-worker-net", "host", "--containerd-worker=false"],
    { stdio: ["ignore", log, log] },
  );
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    await fs.promises.rm(scratch, { recursive: true, force: true });
  };
  for (let waited = 0; !fs.existsSync(socket); waited += 100) {
    if (child.exitCode !== null || waited > 60_000) {
      // Its message is the log's first line of its own; a Go stack trace follows it.
      const lines = fs.readFileSync(path.join(scratch, "buildkitd.log"), "utf8").split("\n");
      const tail = [...lines.filter((line) => line.startsWith("buildkitd:")), ...lines.slice(-8)].join("\n");
      await stop();
      throw new Error(`buildkitd did not start (${child.exitCode === null ? "no socket after 60 s" : `exit ${child.exitCode}`}):\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const builder = "genv-e2e";
  const dockerConfig = path.join(scratch, "docker-config");
  await fs.promises.mkdir(path.join(dockerConfig, "buildx", "instances"), { recursive: true });
  // buildx's store format (github.com/docker/buildx store.NodeGroup), what `docker buildx create --driver remote` writes.
  const instance = { Name: builder, Driver: "remote", Nodes: [{ Name: `${builder}0`, Endpoint: `unix://${socket}`, Platforms: null, DriverOpts: null, Flags: null, Files: null }], Dynamic: false };
  await fs.promises.writeFile(path.join(dockerConfig, "buildx", "instances", builder), JSON.stringify(instance));
  return { builder, dockerConfig, stop };
}

/**
 * examples/emulator-image as a JavaScript program in `dir` (index.ts transpiled, `typescript: false`),
 * with `@pulumi/pulumi` linked from `pulumiDir` and `@pulumi/docker-build` copied from the plugin's cache.
 */
export async function writeImageProgram(dir: string, pulumiDir: string, dockerBuildSdk: string): Promise<void> {
  const ts = await import("typescript");
  const source = path.join(repoRoot, "examples", "emulator-image");
  await fs.promises.mkdir(path.join(dir, "node_modules", "@pulumi"), { recursive: true });
  const output = ts.transpileModule(await fs.promises.readFile(path.join(source, "index.ts"), "utf8"), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  await fs.promises.writeFile(path.join(dir, "index.js"), output.outputText);
  const yaml = await fs.promises.readFile(path.join(source, "Pulumi.yaml"), "utf8");
  await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), yaml.replace(/^runtime: nodejs$/m, "runtime:\n  name: nodejs\n  options:\n    typescript: false"));
  await fs.promises.writeFile(path.join(dir, "package.json"), JSON.stringify({ name: "emulator-image", private: true, main: "index.js" }) + "\n");
  await fs.promises.symlink(fs.realpathSync(pulumiDir), path.join(dir, "node_modules", "@pulumi", "pulumi"));
  await fs.promises.cp(dockerBuildSdk, path.join(dir, "node_modules", "@pulumi", "docker-build"), { recursive: true });
}

/**
 * The diagnostics of examples/emulator-image compiled with its tsconfig.json, `@pulumi/docker-build`
 * resolved to `dockerBuildSdk` and `@pulumi/pulumi` to `pulumiDir` (as `npm install` would lay them out).
 */
export async function typeCheckImageProgram(dockerBuildSdk: string, pulumiDir: string): Promise<string[]> {
  const ts = await import("typescript");
  const dir = path.join(repoRoot, "examples", "emulator-image");
  const configFile = ts.readConfigFile(path.join(dir, "tsconfig.json"), ts.sys.readFile);
  if (configFile.error) return [ts.flattenDiagnosticMessageText(configFile.error.messageText, "\n")];
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, dir);
  const options = {
    ...parsed.options,
    noEmit: true,
    baseUrl: dir,
    paths: { "@pulumi/docker-build": [dockerBuildSdk], "@pulumi/pulumi": [pulumiDir], "@pulumi/pulumi/*": [`${pulumiDir}/*`] },
  };
  return ts.getPreEmitDiagnostics(ts.createProgram(parsed.fileNames, options)).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${path.relative(repoRoot, diagnostic.file.fileName)}:${line + 1}:${character + 1}: ${message}`;
  });
}

/**
 * The CA certificates this machine added (/usr/local/share/ca-certificates, Debian's place for them:
 * a TLS-inspecting proxy's), concatenated into `file` for the image build's npm; false when none.
 */
export async function localCaCertificates(file: string): Promise<boolean> {
  const dir = "/usr/local/share/ca-certificates";
  const names = fs.existsSync(dir) ? (await fs.promises.readdir(dir)).filter((name) => name.endsWith(".crt")).sort() : [];
  if (names.length === 0) return false;
  const pems = await Promise.all(names.map((name) => fs.promises.readFile(path.join(dir, name), "utf8")));
  await fs.promises.writeFile(file, pems.join("\n"));
  return true;
}


/** Polls `probe` every 250 ms until it returns a value, for at most `ms`. */
export async function waitFor<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
