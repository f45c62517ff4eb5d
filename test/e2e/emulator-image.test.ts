// The emulator's image, end to end: examples/emulator-image builds the Dockerfile through the Pulumi
// engine and @pulumi/docker-build (a buildkitd of our own as the builder, the offline base of
// scripts/emulator-base-image, so no registry is needed), the image runs as docs/emulator.md says, and an
// environment, a tool call and a hook's deny happen inside the container through the SDK. Then the two
// ways the container refuses tool calls: without the security options, and as root.
//
// Cold, this builds the docker-build plugin (≈ 4.5 min), buildkitd (≈ 1.5 min), the base (≈ 30 s) and
// the image (≈ 4 min); .ci/run prepares the first three before `npm test`.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { randomBytes } from "node:crypto";

import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";

import { EnvironmentsClient } from "../../client/client";
import { EnvironmentsApiError } from "../../client/errors";
import { ENGINE_BUILD_TIMEOUT_MS, pulumiCommand, pulumiEngine, repoRoot, type PulumiEngine } from "./engine";
import { freePort } from "../support/ports";
import { docker, localCaCertificates, machineNeeds, runScript, startBuildkit, typeCheckImageProgram, waitFor, writeImageProgram, type Buildkit } from "./_emulator-image";
import { describeNeeding } from "../support/prerequisites";

/** The run line of docs/emulator.md ("The emulator in a container"), less the port mapping: an engine without a bridge gives only the host's network. */
const SECURITY = ["--security-opt", "seccomp=unconfined", "--security-opt", "systempaths=unconfined"];
const KEY = `e2e-${randomBytes(8).toString("hex")}`;
const SECURITY_GATE = fs.readFileSync(path.join(repoRoot, "examples", "security-gate", "hooks-scripts", "gate.py"), "utf8");
const HOOKS = {
  "security-gate": { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] },
};
const TEST_TIMEOUT_MS = 120_000;

/** Runs one preparation step; with GENV_E2E_TIMINGS set, says how long it took. */
async function timed<T>(what: string, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const value = await step();
  if (process.env.GENV_E2E_TIMINGS) process.stderr.write(`emulator-image e2e: ${what} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return value;
}

describeNeeding(machineNeeds())("the emulator's image, built through Pulumi", () => {
  let dockerHost: string;
  let engine: PulumiEngine;
  let buildkit: Buildkit | undefined;
  let stack: Stack | undefined;
  let scratch: string;
  let image: string;
  const containers: string[] = [];
  const pulumiDir = process.env.GENV_E2E_PULUMI_DIR || path.join(repoRoot, "node_modules", "@pulumi", "pulumi");
  let dockerBuildSdk: string;

  beforeAll(async () => {
    scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-image-e2e-"));
    // One at a time: they share two cores and the Go build cache.
    dockerHost = await timed("docker engine", () => runScript("docker-engine"));
    const pluginDir = await timed("docker-build plugin", () => runScript("docker-build-plugin"));
    const buildkitd = await timed("buildkitd binary", () => runScript("buildkitd"));
    const baseLayout = await timed("offline base", () => runScript("emulator-base-image", ["--oci"]));
    engine = await timed("Pulumi engine", () => pulumiEngine());
    buildkit = await timed("buildkitd start", () => startBuildkit(buildkitd));

    const program = path.join(scratch, "program");
    dockerBuildSdk = path.join(pluginDir, "node_modules", "@pulumi", "docker-build");
    await writeImageProgram(program, pulumiDir, dockerBuildSdk);
    const envVars = {
      ...engine.env,
      PATH: [pluginDir, engine.env.PATH].join(path.delimiter), // the engine finds the plugin on PATH
      DOCKER_HOST: dockerHost,
      DOCKER_CONFIG: buildkit.dockerConfig,
    };
    stack = await LocalWorkspace.createOrSelectStack({ stackName: "e2e", workDir: program }, { envVars, pulumiCommand: await pulumiCommand(engine.binDir) });
    const tag = `genv-emulator:e2e-${randomBytes(4).toString("hex")}`;
    const config: Record<string, string> = { context: repoRoot, tag, builder: buildkit.builder, baseLayout };
    if (await localCaCertificates(path.join(scratch, "ca.pem"))) config.extraCaCertsFile = path.join(scratch, "ca.pem");
    for (const [key, value] of Object.entries(config)) await stack.setConfig(key, { value });

    let output = "";
    try {
      const result = await timed("pulumi up (the image build)", () => stack!.up({ onOutput: (out) => (output += out) }));
      image = result.outputs.imageName.value as string;
    } catch (error) {
      throw new Error(`pulumi up of examples/emulator-image failed: ${String(error)}\n--- output (last 60 lines) ---\n${output.split("\n").slice(-60).join("\n")}`);
    }
    expect(image).toBe(tag);
  }, ENGINE_BUILD_TIMEOUT_MS);

  afterAll(async () => {
    for (const name of containers) await docker(dockerHost, ["rm", "--force", name]).catch(() => undefined);
    if (stack) await stack.destroy().catch((error: unknown) => console.warn(`pulumi destroy: ${String(error)}`));
    if (image) await docker(dockerHost, ["image", "rm", "--force", image]).catch(() => undefined);
    await buildkit?.stop();
    await engine?.cleanup();
    if (scratch) await fs.promises.rm(scratch, { recursive: true, force: true });
  }, TEST_TIMEOUT_MS);

  test("examples/emulator-image type-checks against the @pulumi/docker-build SDK it was built with", async () => {
    expect(await typeCheckImageProgram(dockerBuildSdk, pulumiDir)).toEqual([]);
  }, TEST_TIMEOUT_MS);

  /** `docker run -d` of the image as docs/emulator.md says (plus `extra`), listening on a free port of the host; resolves to a client of it. */
  async function run(extra: string[]): Promise<{ name: string; client: EnvironmentsClient }> {
    const name = `genv-e2e-${randomBytes(4).toString("hex")}`;
    const port = await freePort();
    containers.push(name);
    await docker(dockerHost, ["run", "--detach", "--name", name, "--network", "host", "--pids-limit", "512", "--env", `GENV_API_KEY=${KEY}`, ...extra, image, "serve", "--host", "127.0.0.1", "--port", String(port)]);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${name} prints ${url}`, 30_000, async () => ((await docker(dockerHost, ["logs", name])).includes(url) ? true : undefined));
    return { name, client: new EnvironmentsClient({ apiKey: KEY, baseUrl: url }) };
  }

  /** An environment with the security gate in front of code_execution and a file in its workspace. */
  async function guardedEnvironment(client: EnvironmentsClient): Promise<string> {
    const created = await client.create({
      sources: [
        { type: "inline", target: ".agents/hooks.json", content: JSON.stringify(HOOKS) },
        { type: "inline", target: ".agents/hooks-scripts/gate.py", content: SECURITY_GATE },
        { type: "inline", target: "workspace/notes.txt", content: "keep me\n" },
      ],
    });
    return created.id;
  }

  test("with the documented options, as the image's user (uid 10001): an environment, a tool call and a hook's deny", async () => {
    const { name, client } = await run(SECURITY);
    try {
      // The emulator itself runs as the image's user, uid 10001, seen from the host.
      const pid = (await docker(dockerHost, ["inspect", "--format", "{{.State.Pid}}", name])).trim();
      expect(fs.readFileSync(`/proc/${pid}/status`, "utf8")).toMatch(/^Uid:\t10001\t10001\t10001\t10001$/m);

      const id = await guardedEnvironment(client);
      const allowed = await client.executeTool(id, { name: "code_execution", args: { code: "id -u; cat /workspace/notes.txt" } });
      expect(allowed).toMatchObject({ decision: "allow", exit_code: 0, output: "1000\nkeep me\n" });
      expect(allowed.hooks).toEqual([expect.objectContaining({ group: "security-gate", event: "pre_tool_execution", decision: "allow" })]);

      const denied = await client.executeTool(id, { name: "code_execution", args: { code: "rm -rf /workspace" } });
      expect(denied).toMatchObject({ decision: "deny", reason: "Destructive command blocked by security gate." });
      expect((await client.files.downloadBuffer(id, "workspace/notes.txt")).data.toString("utf8")).toBe("keep me\n");

      // The image's health check finds the port on the command line.
      const health = await waitFor(`${name} healthy`, 60_000, async () => {
        const status = (await docker(dockerHost, ["inspect", "--format", "{{.State.Health.Status}}", name])).trim();
        return status === "starting" ? undefined : status;
      });
      expect(health).toBe("healthy");
    } finally {
      await client.close();
    }
  }, TEST_TIMEOUT_MS);

  test("without the security options: tool calls answer FAILED_PRECONDITION naming them", async () => {
    const { client } = await run([]);
    try {
      const id = await guardedEnvironment(client);
      const error = await client.executeTool(id, { name: "code_execution", args: { code: "echo hi" } }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EnvironmentsApiError);
      expect(error).toMatchObject({ httpStatus: 400, status: "FAILED_PRECONDITION" });
      expect((error as Error).message).toContain("--security-opt seccomp=unconfined --security-opt systempaths=unconfined");
    } finally {
      await client.close();
    }
  }, TEST_TIMEOUT_MS);

  test("with seccomp=unconfined alone: FAILED_PRECONDITION, bwrap cannot mount /proc", async () => {
    const { client } = await run(SECURITY.slice(0, 2));
    try {
      const id = await guardedEnvironment(client);
      const error = await client.executeTool(id, { name: "code_execution", args: { code: "echo hi" } }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ httpStatus: 400, status: "FAILED_PRECONDITION" });
      expect((error as Error).message).toMatch(/^bubblewrap cannot mount the sandbox's \/proc here .*systempaths=unconfined/);
    } finally {
      await client.close();
    }
  }, TEST_TIMEOUT_MS);

  test("as root (--user 0, no CAP_SYS_ADMIN): fails closed, FAILED_PRECONDITION saying to run as a non-root user", async () => {
    const { client } = await run([...SECURITY, "--user", "0"]);
    try {
      const id = await guardedEnvironment(client);
      const error = await client.executeTool(id, { name: "code_execution", args: { code: "echo hi" } }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ httpStatus: 400, status: "FAILED_PRECONDITION" });
      expect((error as Error).message).toMatch(/^the emulator runs as root but may not create a mount namespace/);
    } finally {
      await client.close();
    }
  }, TEST_TIMEOUT_MS);
});
