// examples/emulator-container end to end, against the real dockerd of scripts/docker-engine: one
// `pulumi up` runs the emulator's image as a container (EmulatorContainer, on @pulumi/docker and its
// plugin from scripts/docker-plugin) and creates a GuardedEnvironment in it through a plugin.Provider fed
// with the container's baseUrl and generated key; a hook decides a tool call in the container; a preview
// changes nothing; `pulumi destroy` leaves no container and no volume. The container is on the engine's
// default bridge network, its port published on 127.0.0.1, as EmulatorContainer does by default: an
// engine without a bridge is a missing prerequisite, named (never a silent `network: host`).
//
// Cold, this builds the docker plugin (≈ 7 min on two cores) and the image (≈ 4 min); .ci/run prepares
// the plugin before `npm test`.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as path from "node:path";
import { promisify } from "node:util";

import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";

import { createPackedWorkspace, type PackedWorkspace } from "../../devtools/packed-workspace";
import { EnvironmentsClient } from "../../client/client";
import { ENGINE_BUILD_TIMEOUT_MS, pulumiCommand, pulumiEngine, repoRoot, type PulumiEngine } from "./engine";
import { docker, dockerBridgeNeeds, machineNeeds, runScript } from "./_emulator-image";
import { freePort } from "../support/ports";
import { describeNeeding } from "../support/prerequisites";

const TEST_TIMEOUT_MS = 300_000;

const execFileAsync = promisify(execFile);

interface StateResource {
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

const machine = machineNeeds();

describeNeeding({ ...machine, ...dockerBridgeNeeds(machine) })("examples/emulator-container: the emulator as a container a Pulumi program manages", () => {
  let dockerHost: string;
  let engine: PulumiEngine;
  let workspace: PackedWorkspace;
  let stack: Stack;
  let program: string;
  let envVars: Record<string, string>;
  let output = "";
  /** The container's and the volume's names, from the state after `up`. */
  const made = { container: "", volume: "" };

  /** One operation, its output kept for the error when it fails. */
  async function run<T>(what: string, operation: (onOutput: (out: string) => void) => Promise<T>): Promise<T> {
    output = "";
    try {
      return await operation((out) => (output += out));
    } catch (error) {
      throw new Error(`${what} of examples/emulator-container failed: ${String(error)}\n--- output (last 60 lines) ---\n${output.split("\n").slice(-60).join("\n")}`);
    }
  }

  beforeAll(async () => {
    // One at a time: they share two cores.
    dockerHost = await runScript("docker-engine");
    engine = await pulumiEngine();
    const image = await runScript("emulator-image");
    workspace = await createPackedWorkspace({ repoRoot, build: true, pulumiDir: process.env.GENV_E2E_PULUMI_DIR || undefined });
    program = await workspace.addExample("emulator-container");
    envVars = { ...engine.env, DOCKER_HOST: dockerHost };
    // Installs pulumi-resource-docker 5.0.0 into this engine's PULUMI_HOME (built from the source bundle once, then cached).
    await runScript("docker-plugin", [], envVars);
    stack = await LocalWorkspace.createOrSelectStack({ stackName: "e2e", workDir: program }, { envVars, pulumiCommand: await pulumiCommand(engine.binDir) });
    // No `network`: the default, the engine's bridge with the port published on 127.0.0.1.
    const config = { image, port: String(await freePort()) };
    for (const [key, value] of Object.entries(config)) await stack.setConfig(key, { value });
  }, ENGINE_BUILD_TIMEOUT_MS);

  afterAll(async () => {
    if (made.container) await docker(dockerHost, ["rm", "--force", made.container]).catch(() => undefined);
    if (made.volume) await docker(dockerHost, ["volume", "rm", "--force", made.volume]).catch(() => undefined);
    await workspace?.cleanup();
    await engine?.cleanup();
  }, TEST_TIMEOUT_MS);

  test("one `pulumi up`: the container is healthy, the environment is in it, a hook decides a tool call there", async () => {
    const result = await run("pulumi up", (onOutput) => stack.up({ onOutput }));
    const { baseUrl, apiKey, environmentId } = result.outputs;
    expect(baseUrl.value).toBe(`http://127.0.0.1:${(await stack.getConfig("port")).value}`);
    expect(apiKey.secret).toBe(true);
    expect(apiKey.value).toMatch(/^genv_[A-Za-z0-9_-]{43}$/);
    expect(environmentId.value).toMatch(/^env_/);

    // The state as `pulumi stack export` gives it (the Automation API's exportStack passes --show-secrets).
    const exported = await execFileAsync(path.join(engine.binDir, "pulumi"), ["stack", "export", "--stack", "e2e"], { cwd: program, env: envVars, maxBuffer: 64 * 1024 * 1024 });
    const resources = (JSON.parse(exported.stdout).deployment as { resources: StateResource[] }).resources;
    made.container = String(resources.find((resource) => resource.type === "docker:index/container:Container")?.outputs?.name ?? "");
    made.volume = String(resources.find((resource) => resource.type === "docker:index/volume:Volume")?.outputs?.name ?? "");
    expect(made.container).not.toBe("");
    expect(made.volume).not.toBe("");
    // The key is in the state only encrypted (the key's resource, the container's env, the provider, the outputs).
    expect(exported.stdout).not.toContain(apiKey.value);
    expect(exported.stdout).toContain('"ciphertext"');
    // The key's dynamic provider is serialized as a require of the installed package, not by value.
    const keyResource = resources.find((resource) => resource.type === "pulumi-nodejs:dynamic/gemini-environments:EmulatorApiKey");
    expect(String(keyResource?.inputs?.__provider)).toContain('require("pulumi-gemini-environments/dist/provider/components/emulator-api-key-provider.js")');

    const inspected = JSON.parse(await docker(dockerHost, ["inspect", made.container]))[0];
    expect(inspected.State.Health.Status).toBe("healthy");
    // On the bridge, with an address of its own there, and 8765 published on 127.0.0.1 only.
    expect(inspected.HostConfig.NetworkMode).toBe("bridge");
    expect(Object.keys(inspected.NetworkSettings.Networks)).toEqual(["bridge"]);
    expect(inspected.NetworkSettings.Networks.bridge.IPAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(inspected.NetworkSettings.Ports).toEqual({ "8765/tcp": [{ HostIp: "127.0.0.1", HostPort: (await stack.getConfig("port")).value }] });
    expect(inspected.Mounts).toEqual([expect.objectContaining({ Type: "volume", Name: made.volume, Destination: "/data" })]);

    const client = new EnvironmentsClient({ apiKey: apiKey.value, baseUrl: baseUrl.value });
    try {
      const denied = await client.executeTool(environmentId.value, { name: "code_execution", args: { code: "rm /workspace/notes.txt" } });
      expect(denied).toMatchObject({ decision: "deny", reason: "This workspace keeps its files: deletes are blocked." });
      expect(denied.hooks).toEqual([expect.objectContaining({ group: "no-deletes", event: "pre_tool_execution", decision: "deny" })]);
      const allowed = await client.executeTool(environmentId.value, { name: "code_execution", args: { code: "cat /workspace/notes.txt" } });
      expect(allowed).toMatchObject({ decision: "allow", exit_code: 0, output: "keep me\n" });
    } finally {
      await client.close();
    }
  }, TEST_TIMEOUT_MS);

  test("a preview after it changes nothing: the key, the image and the container stay", async () => {
    const preview = await run("pulumi preview", (onOutput) => stack.preview({ onOutput }));
    const changes = Object.entries(preview.changeSummary).filter(([kind]) => kind !== "same");
    expect(changes).toEqual([]);
    expect(preview.changeSummary.same).toBeGreaterThan(0);
  }, TEST_TIMEOUT_MS);

  test("`pulumi destroy` leaves no container and no volume", async () => {
    const result = await run("pulumi destroy", (onOutput) => stack.destroy({ onOutput }));
    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.resourceChanges?.delete).toBeGreaterThan(0);
    const containers = await docker(dockerHost, ["ps", "--all", "--format", "{{.Names}}"]);
    expect(containers.split("\n")).not.toContain(made.container);
    const volumes = await docker(dockerHost, ["volume", "ls", "--format", "{{.Name}}"]);
    expect(volumes.split("\n")).not.toContain(made.volume);
    expect(((await stack.exportStack()).deployment as { resources?: unknown[] }).resources ?? []).toEqual([]);
  }, TEST_TIMEOUT_MS);

  test("an image the engine has not and cannot pull: up stops naming the image and both ways to have it, before any container", async () => {
    const missing = `genv-emulator:missing-${randomBytes(4).toString("hex")}`;
    const missingStack = await LocalWorkspace.createOrSelectStack({ stackName: "missing-image", workDir: program }, { envVars, pulumiCommand: await pulumiCommand(engine.binDir) });
    await missingStack.setConfig("image", { value: missing });
    await missingStack.setConfig("port", { value: String(await freePort()) });
    let failure = "";
    await missingStack.up({ onOutput: (out) => (failure += out) }).then(
      () => {
        throw new Error(`up succeeded with the image ${missing}, which the engine cannot have`);
      },
      (error: unknown) => (failure += String(error)),
    );
    expect(failure).toContain(`the emulator's image ${missing} is not in the Docker engine and could not be pulled (`);
    expect(failure).toContain(`docker pull ${missing} (the release pushes ghcr.io/gemini-environments/pulumi-gemini-environments:`);
    expect(failure).toContain("scripts/emulator-image (it prints genv-emulator:local), and give that name as EmulatorContainer's image");
    // Nothing of it in the engine (other files' containers come and go on the same dockerd: the stack's state says what it made).
    const made = ((await missingStack.exportStack()).deployment as { resources?: StateResource[] }).resources ?? [];
    expect(made.filter((resource) => resource.type.startsWith("docker:index/") && resource.type !== "docker:index/volume:Volume").map((resource) => resource.type)).toEqual([]);
    await missingStack.destroy();
  }, TEST_TIMEOUT_MS);

  test("examples/yaml-emulator-container: the same in Pulumi YAML, up (a hook's deny), a preview with no change, destroy", async () => {
    const yamlProgram = await workspace.addExample("yaml-emulator-container");
    const yamlStack = await LocalWorkspace.createOrSelectStack({ stackName: "e2e", workDir: yamlProgram }, { envVars, pulumiCommand: await pulumiCommand(engine.binDir) });
    const key = `yaml-${randomBytes(16).toString("hex")}`;
    await yamlStack.setConfig("image", { value: (await stack.getConfig("image")).value });
    const port = String(await freePort());
    await yamlStack.setConfig("port", { value: port });
    await yamlStack.setConfig("emulatorApiKey", { value: key, secret: true });

    const up = await run("pulumi up (YAML)", (onOutput) => yamlStack.up({ onOutput }));
    const { baseUrl, apiKey, environmentId } = up.outputs;
    expect(apiKey).toEqual({ value: key, secret: true });
    const client = new EnvironmentsClient({ apiKey: key, baseUrl: baseUrl.value });
    try {
      const denied = await client.executeTool(environmentId.value, { name: "code_execution", args: { code: "rm /workspace/notes.txt" } });
      expect(denied).toMatchObject({ decision: "deny", reason: "This workspace keeps its files: deletes are blocked." });
    } finally {
      await client.close();
    }
    const preview = await run("pulumi preview (YAML)", (onOutput) => yamlStack.preview({ onOutput }));
    expect(Object.entries(preview.changeSummary).filter(([kind]) => kind !== "same")).toEqual([]);

    const exported = await execFileAsync(path.join(engine.binDir, "pulumi"), ["stack", "export", "--stack", "e2e"], { cwd: yamlProgram, env: envVars, maxBuffer: 64 * 1024 * 1024 });
    const resources = (JSON.parse(exported.stdout).deployment as { resources: StateResource[] }).resources;
    const container = String(resources.find((resource) => resource.type === "docker:index/container:Container")?.outputs?.name ?? "");
    const volume = String(resources.find((resource) => resource.type === "docker:index/volume:Volume")?.outputs?.name ?? "");
    expect(exported.stdout).not.toContain(key);
    expect(JSON.parse(await docker(dockerHost, ["inspect", container]))[0].NetworkSettings.Ports).toEqual({ "8765/tcp": [{ HostIp: "127.0.0.1", HostPort: port }] });
    await run("pulumi destroy (YAML)", (onOutput) => yamlStack.destroy({ onOutput }));
    expect((await docker(dockerHost, ["ps", "--all", "--format", "{{.Names}}"])).split("\n")).not.toContain(container);
    expect((await docker(dockerHost, ["volume", "ls", "--format", "{{.Name}}"])).split("\n")).not.toContain(volume);
  }, TEST_TIMEOUT_MS);
});
