// A self_hosted Environment through the real engine: the key the API returns once, at create, is a
// secret output — encrypted in the exported state, masked in the engine's output — kept by refresh
// although GetEnvironment never returns it, and readable with `pulumi stack output --show-secrets`.
import type { Stack } from "@pulumi/pulumi/automation";

import { E2E_TEST_TIMEOUT_MS, listIds, pluginProject, program, useE2E } from "./_workspace";

const PROGRAM = program(`
const env = new genv.Environment("daemon", {
  mode: "self_hosted",
  systemInstruction: "Answer in one line.",
  customConfig: { pool: "gpu", replicas: 2 },
  sources: [{ type: "inline", target: "workspace/README.md", content: "self-hosted\\n" }],
});
exports.environmentId = env.id;
exports.mode = env.mode;
exports.environmentKey = env.environmentKey;
`);

describe("a self_hosted Environment's key (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let dir: string;
  let environmentId: string;
  let key: string;

  /** The state as `pulumi stack export` prints it without --show-secrets. */
  const exportedState = () => e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
  const environmentOutputs = async () => {
    const state = await stack.exportStack(); // --show-secrets: the decrypted values
    const resource = (state.deployment.resources as Array<{ type: string; outputs?: Record<string, unknown> }>).find(
      (r) => r.type === "pulumi-nodejs:dynamic/gemini-environments:Environment",
    );
    return resource?.outputs ?? {};
  };

  beforeAll(async () => {
    dir = await e2e().workspace.addProgram("self-hosted", PROGRAM);
    stack = await e2e().stack(dir, "self-hosted");
  }, E2E_TEST_TIMEOUT_MS);

  test("up creates it; the key is a secret stack output, never in the engine's output", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    environmentId = up.outputs.environmentId.value;
    key = up.outputs.environmentKey.value;
    expect(key).toMatch(/^envkey_[A-Za-z0-9_-]{43}$/);
    expect(up.outputs.environmentKey.secret).toBe(true);
    expect(up.outputs.mode).toEqual({ value: "self_hosted", secret: false });
    expect(up.output).not.toContain(key);

    const environment = await e2e().client.get(environmentId);
    expect(environment).toMatchObject({ mode: "self_hosted", system_instruction: "Answer in one line.", custom_config: { pool: "gpu", replicas: 2 } });
    expect(environment).not.toHaveProperty("environment_key");
  }, E2E_TEST_TIMEOUT_MS);

  test("the exported state holds the key only encrypted", async () => {
    const exported = await exportedState();
    expect(exported).toContain(environmentId);
    expect(exported).toContain('"ciphertext"');
    expect(exported).not.toContain(key);
    expect(exported).not.toContain(key.slice("envkey_".length));
  }, E2E_TEST_TIMEOUT_MS);

  test("refresh keeps the key, still secret, though GET does not return it; a preview after it changes nothing", async () => {
    const requests = await e2e().requestsDuring(() => e2e().run(stack, (s, onOutput) => s.refresh({ onOutput })));
    expect(requests).toEqual([`GET /v1beta/environments/${environmentId}`]);
    // Decrypted by --show-secrets, and still wrapped as a secret in the state.
    expect((await environmentOutputs()).environmentKey).toEqual({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", plaintext: JSON.stringify(key) });
    const exported = await exportedState();
    expect(exported).not.toContain(key);
    expect(exported).toContain('"ciphertext"');

    const outputs = await stack.outputs();
    expect(outputs.environmentKey).toEqual({ value: key, secret: true });
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput, diff: true }));
    expect(preview.changeSummary).toEqual({ same: 2 });
    expect(preview.output).not.toContain(key);
  }, E2E_TEST_TIMEOUT_MS);

  test("`pulumi stack output --show-secrets` hands it to the daemon; without the flag it stays masked", async () => {
    expect((await e2e().pulumi(["stack", "output", "environmentKey", "--show-secrets", "--stack", stack.name], dir)).trim()).toBe(key);
    expect((await e2e().pulumi(["stack", "output", "environmentKey", "--stack", stack.name], dir)).trim()).toBe("[secret]");
  }, E2E_TEST_TIMEOUT_MS);

  test("destroy deletes it", async () => {
    const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(destroy.summary.resourceChanges).toEqual({ delete: 2 });
  }, E2E_TEST_TIMEOUT_MS);
});

// The same through the native plugin, from Pulumi YAML: no additionalSecretOutputs on the program's
// side, so the key is secret because the plugin marks it so (its core's secret computed output).
const YAML_PROGRAM = `
resources:
  daemon:
    type: gemini-environments:index:Environment
    properties:
      mode: self_hosted
      systemInstruction: Answer in one line.
      customConfig:
        pool: gpu
  plain:
    type: gemini-environments:index:Environment
    properties:
      mode: on_demand
outputs:
  environmentId: \${daemon.id}
  environmentKey: \${daemon.environmentKey}
`;

describe("a self_hosted Environment's key through the plugin (Pulumi YAML, real engine)", () => {
  const e2e = useE2E();

  test("up: the key is a secret output and encrypted in state; refresh keeps it; mode on_demand declared previews no change; destroy", async () => {
    const dir = await e2e().workspace.addProgram(
      "self-hosted-yaml",
      { "index.js": "" },
      `${pluginProject("self-hosted-yaml", e2e().pluginBinDir, "runtime: yaml")}${YAML_PROGRAM}`,
    );
    const stack = await e2e().stack(dir, "self-hosted-yaml");
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    const key = up.outputs.environmentKey.value;
    expect(key).toMatch(/^envkey_[A-Za-z0-9_-]{43}$/);
    expect(up.outputs.environmentKey.secret).toBe(true);
    expect(up.output).not.toContain(key);
    expect(await e2e().client.get(up.outputs.environmentId.value)).toMatchObject({ mode: "self_hosted", custom_config: { pool: "gpu" } });

    const exported = () => e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    expect(await exported()).not.toContain(key);
    await e2e().run(stack, (s, onOutput) => s.refresh({ onOutput }));
    expect(await exported()).not.toContain(key);
    expect((await stack.outputs()).environmentKey).toEqual({ value: key, secret: true });

    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput, diff: true }));
    expect(preview.changeSummary).toEqual({ same: 3 });
    await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(await listIds(e2e().client)).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);
});
