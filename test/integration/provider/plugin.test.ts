/**
 * The native plugin over gRPC, launched as the engine launches it (bin/pulumi-resource-gemini-environments
 * of the package installed from its tarball) against a real emulator: plugin info and schema,
 * configuration (configure's arguments, PULUMI_CONFIG, checkConfig making the key secret), check,
 * the detailed diff, create, read by id alone (import), update and delete of both resources, with
 * secrets kept secret exactly where they were.
 */
import * as fs from "node:fs";
import * as path from "node:path";

import { createPackedWorkspace, type PackedWorkspace } from "../../../devtools/packed-workspace";
import { EnvironmentsClient } from "../../../client/client";
import { defaultCredentialId } from "../../../provider/credential/inputs";
import { inline, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";
import { SECRET, startPlugin, type PluginClient } from "../../support/plugin-client";

const repoRoot = path.resolve(__dirname, "..", "..", "..");
const NO_CREDENTIALS = { GOOGLE_API_KEY: undefined, GEMINI_API_KEY: undefined, GOOGLE_GEMINI_BASE_URL: undefined, PULUMI_CONFIG: undefined };

let workspace: PackedWorkspace;
let emulator: TestEmulator;
let plugin: PluginClient;
let launcher: string;

beforeAll(async () => {
  [workspace, emulator] = await Promise.all([createPackedWorkspace({ repoRoot, build: true }), startTestEmulator()]);
  launcher = path.join(workspace.root, "node_modules", "pulumi-gemini-environments", "bin", "pulumi-resource-gemini-environments");
  plugin = await startPlugin(launcher, NO_CREDENTIALS);
  expect(await plugin.configure({ apiKey: SECRET(TEST_KEY), baseUrl: emulator.url, version: "0.1.0" })).toEqual({ acceptSecrets: true });
}, 180_000);

afterAll(async () => {
  await plugin?.close();
  await emulator?.close();
  await workspace?.cleanup();
});

const sources = [inline("main.py", "print(1)"), { type: "inline", target: "secret.txt", content: SECRET("hunter2") }];

test("plugin info and schema: the package's version, schema.json as is", async () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
  expect(await plugin.version()).toBe(version);
  expect(await plugin.schema()).toEqual(JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8")));
  expect((await plugin.schema()).version).toBe(version);
});

describe("configuration", () => {
  test("checkConfig makes an explicit provider's apiKey secret and checks baseUrl", async () => {
    expect(await plugin.checkConfig({ apiKey: "k", baseUrl: "http://127.0.0.1:1" })).toEqual({
      inputs: { apiKey: SECRET("k"), baseUrl: "http://127.0.0.1:1" },
      failures: [],
    });
    expect((await plugin.checkConfig({ baseUrl: "localhost:8765" })).failures).toEqual([
      { property: "baseUrl", reason: 'baseUrl: "localhost:8765" is not an http(s) URL, e.g. http://127.0.0.1:8765' },
    ]);
  });

  test("PULUMI_CONFIG at launch is used without configure; no key anywhere names where to put one", async () => {
    const configured = await startPlugin(launcher, { ...NO_CREDENTIALS, PULUMI_CONFIG: JSON.stringify({ apiKey: TEST_KEY, baseUrl: emulator.url }) });
    const bare = await startPlugin(launcher, NO_CREDENTIALS);
    try {
      const { id } = await configured.create("Environment", {});
      expect(id).toMatch(/^env_/);
      await configured.delete("Environment", id, {});
      await expect(bare.create("Environment", {})).rejects.toThrow(/GOOGLE_API_KEY or GEMINI_API_KEY/);
    } finally {
      await Promise.all([configured.close(), bare.close()]);
    }
  });
});

test("GENV_PROVIDER_PROFILE: each call's gRPC time and its core's time, a JSON line per call", async () => {
  const profile = path.join(workspace.root, "profile.jsonl");
  const profiled = await startPlugin(launcher, { ...NO_CREDENTIALS, GENV_PROVIDER_PROFILE: profile });
  try {
    await profiled.configure({ apiKey: SECRET(TEST_KEY), baseUrl: emulator.url, version: "0.1.0" });
    await profiled.check("Environment", { sources });
    const { id } = await profiled.create("Environment", { sources });
    await profiled.delete("Environment", id, {});
  } finally {
    await profiled.close();
  }
  const lines = fs.readFileSync(profile, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { phase: string; ms: number });
  expect(lines.map((line) => line.phase).sort()).toEqual(["core.check", "core.create", "core.delete", "grpc.check", "grpc.create", "grpc.delete"]);
  const ms = Object.fromEntries(lines.map((line) => [line.phase, line.ms]));
  // A gRPC call holds its core's call: what is left is the marshalling.
  for (const phase of ["check", "create", "delete"]) expect(ms[`grpc.${phase}`]).toBeGreaterThanOrEqual(ms[`core.${phase}`]);
});

describe("Environment", () => {
  test("check names the path; a secret input stays secret where it was", async () => {
    const bad = await plugin.check("Environment", { sources: [...sources, inline("../x", "a")] });
    expect(bad.failures).toEqual([{ property: "sources", reason: 'sources[2].target: "../x" escapes the environment root' }]);
    expect((await plugin.check("Environment", { sources })).inputs).toEqual({ sources });
  });

  test("diff is detailed: each changed path named with its kind; edited and added inline sources update in place", async () => {
    const olds = { sources, network: "disabled", status: "active" };
    expect(await plugin.diff("Environment", "env_x", olds, { sources, network: "disabled" })).toMatchObject({ changes: "none", replaces: [], detailedDiff: {} });
    const changed = [sources[0], { ...sources[1], content: SECRET("other") }, inline("b", "b")];
    expect(await plugin.diff("Environment", "env_x", olds, { sources: changed, network: "disabled" })).toEqual({
      changes: "some",
      replaces: [],
      diffs: ["sources"],
      deleteBeforeReplace: false,
      detailedDiff: {
        "sources[1].content": { kind: "update", inputDiff: true },
        "sources[2]": { kind: "add", inputDiff: true },
      },
    });
    expect(await plugin.diff("Environment", "env_x", olds, { sources: [changed[0], { ...changed[1], target: "moved.txt" }], network: { allowlist: [] } })).toMatchObject({
      replaces: ["sources", "network"],
      detailedDiff: {
        "sources[1].target": { kind: "updateReplace", inputDiff: true },
        "sources[1].content": { kind: "updateReplace", inputDiff: true },
        network: { kind: "updateReplace", inputDiff: true },
      },
    });
    expect((await plugin.diff("Environment", "env_x", { ...olds, status: "expired" }, { sources, network: "disabled" })).detailedDiff).toEqual({
      status: { kind: "updateReplace", inputDiff: false },
    });
  });

  test("update uploads an edited secret source in place: same id, computed outputs only, the new content in the environment", async () => {
    const created = await plugin.create("Environment", { sources, network: "disabled" });
    const news = { sources: [sources[0], { ...sources[1], content: SECRET("correct horse") }], network: "disabled" };
    const outs = await plugin.update("Environment", created.id, created.properties, news, { sources, network: "disabled" });
    expect(outs).toEqual({ ...created.properties, sizeBytes: 8 + 13, updated: expect.any(String), lastAccessed: expect.any(String) });
    const client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator.url });
    expect((await client.files.downloadBuffer(created.id, "secret.txt")).data.toString()).toBe("correct horse");
    await client.close();
    await plugin.delete("Environment", created.id, outs);
  });

  test("create returns the computed outputs only; read by id alone (import) gives the inputs; refresh keeps secrets; delete", async () => {
    const created = await plugin.create("Environment", { sources, network: "disabled" });
    // The inputs stay in the state's inputs, once: the outputs do not repeat them.
    expect(created.properties).toEqual({
      status: "active",
      fileCount: 2,
      sizeBytes: 8 + 7,
      created: expect.stringMatching(/Z$/),
      updated: expect.stringMatching(/Z$/),
      lastAccessed: expect.stringMatching(/Z$/),
    });

    const imported = await plugin.read("Environment", created.id);
    expect(imported.id).toBe(created.id);
    // The network in the form every language's generated code binds (the API answers "disabled").
    expect(imported.inputs).toEqual({ sources: [sources[0], { ...sources[1], content: "hunter2" }], network: { disabled: true } });
    expect(imported.properties).toMatchObject({ status: "active", fileCount: 2 });
    expect(imported.properties).not.toHaveProperty("sources");

    const refreshed = await plugin.read("Environment", created.id, created.properties, { sources, network: "disabled" });
    expect(refreshed).toMatchObject({ inputs: { sources, network: "disabled" }, properties: { status: "active" } });

    await plugin.delete("Environment", created.id, created.properties);
    expect(await plugin.read("Environment", created.id, created.properties)).toEqual({ id: "" });
    await expect(plugin.delete("Environment", created.id, created.properties)).resolves.toBeUndefined();
  });
});

describe("Environment, self_hosted (mode, systemInstruction, customConfig, environmentKey)", () => {
  const selfHosted = { mode: "self_hosted", systemInstruction: "be brief", customConfig: { pool: "gpu" } };

  test("check: the self-hosted fields need mode self_hosted, named by their input names; an unknown mode defers them", async () => {
    expect((await plugin.check("Environment", { systemInstruction: "x" })).failures).toEqual([
      { property: "systemInstruction", reason: expect.stringMatching(/^systemInstruction: is only supported for self_hosted environments/) },
    ]);
    expect((await plugin.check("Environment", { mode: "SELF_HOSTED" })).failures).toEqual([
      { property: "mode", reason: expect.stringContaining("enum values are lowercase") },
    ]);
    const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    expect((await plugin.check("Environment", { mode: UNKNOWN, systemInstruction: "x" })).failures).toEqual([]);
    expect((await plugin.check("Environment", selfHosted)).failures).toEqual([]);
  });

  test("diff: declaring mode on_demand is no change; a changed mode field replaces", async () => {
    const olds = { status: "active" };
    expect(await plugin.diff("Environment", "env_x", olds, { mode: "on_demand" })).toMatchObject({ changes: "none", detailedDiff: {} });
    expect(await plugin.diff("Environment", "env_x", { ...olds, mode: "on_demand" }, {})).toMatchObject({ changes: "none" });
    expect(await plugin.diff("Environment", "env_x", { ...olds, ...selfHosted }, { ...selfHosted, customConfig: { pool: "cpu" } })).toMatchObject({
      changes: "some",
      replaces: ["customConfig"],
      detailedDiff: { "customConfig.pool": { kind: "updateReplace", inputDiff: true } },
    });
  });

  test("create: the key is a secret output; refresh keeps it (Get never returns it), still secret; import has none", async () => {
    const created = await plugin.create("Environment", selfHosted);
    expect(created.properties).toMatchObject({ status: "active", environmentKey: SECRET(expect.any(String)) });
    expect(created.properties).not.toHaveProperty("mode");

    const refreshed = await plugin.read("Environment", created.id, created.properties, selfHosted);
    expect(refreshed.properties?.environmentKey).toEqual(created.properties.environmentKey);
    expect(refreshed.inputs).toEqual(selfHosted);

    const imported = await plugin.read("Environment", created.id);
    expect(imported.inputs).toEqual(selfHosted);
    expect(imported.properties).not.toHaveProperty("environmentKey");

    const onDemand = await plugin.create("Environment", {});
    expect(onDemand.properties).not.toHaveProperty("environmentKey");
    expect((await plugin.read("Environment", onDemand.id)).inputs).toEqual({});
    await plugin.delete("Environment", onDemand.id, onDemand.properties);
    await plugin.delete("Environment", created.id, created.properties);
  });
});

describe("Credential", () => {
  const bearer = { credentialId: "plugin-token", type: "bearer_token", token: "ghp_one", prefix: "token" };

  test("the token is secret in check's inputs (so in the state) whatever its origin, and never in the outputs", async () => {
    expect((await plugin.check("Credential", bearer)).inputs).toEqual({ ...bearer, token: SECRET("ghp_one") });
    const created = await plugin.create("Credential", bearer);
    // credentialId stays in the outputs: an allowlist's reference to it is known at preview.
    expect(created).toMatchObject({ id: "plugin-token", properties: { status: "active", credentialId: "plugin-token" } });
    expect(JSON.stringify(created.properties)).not.toContain("ghp_one");
  });

  test("an omitted credentialId is derived from the URN's project, stack and name, as the TypeScript classes derive it", async () => {
    const { credentialId: _omitted, ...declared } = bearer;
    // urnOf: urn:pulumi:test::plugin::gemini-environments:index:Credential::r
    expect((await plugin.check("Credential", declared)).inputs).toEqual({ ...bearer, credentialId: defaultCredentialId("r", "plugin", "test"), token: SECRET("ghp_one") });
    expect((await plugin.check("Credential", { ...declared, credentialId: "bad id" })).failures).toEqual([
      { property: "credentialId", reason: expect.stringMatching(/^credentialId: must be 1-128/) },
    ]);
  });

  test("the outputs hold every non-secret input schema.json declares an output (a YAML `${cred.type}` reads them alone)", async () => {
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8"));
    const credential = schema.resources["gemini-environments:index:Credential"];
    const declared = Object.keys(credential.inputProperties).filter((property) => property in credential.properties && !credential.properties[property].secret);
    const variable = { credentialId: "plugin-variable", type: "environment_variable", value: "var-secret-1", injectionLocation: ["header"], trustedDomains: ["api.example.com"] };
    const created = await plugin.create("Credential", variable);
    const given = declared.filter((property) => property in variable);
    expect(given).toEqual(["credentialId", "type", "injectionLocation", "trustedDomains"]);
    expect(Object.fromEntries(given.map((property) => [property, created.properties[property]]))).toEqual(
      Object.fromEntries(given.map((property) => [property, variable[property as keyof typeof variable]])),
    );
    expect(JSON.stringify(created.properties)).not.toContain("var-secret-1");
    const moved = { ...variable, trustedDomains: ["api.example.org"] };
    const updated = await plugin.update("Credential", "plugin-variable", created.properties, moved, variable);
    expect(updated).toMatchObject({ type: "environment_variable", trustedDomains: ["api.example.org"] });
    await plugin.delete("Credential", "plugin-variable", updated);
  });

  test("a rotated token updates in place, an id change replaces: the detailed diff says which", async () => {
    const olds = { status: "active" };
    const oldInputs = { ...bearer, token: SECRET("ghp_one") };
    const rotated = { ...bearer, token: SECRET("ghp_two") };
    expect(await plugin.diff("Credential", "plugin-token", { ...oldInputs, ...olds }, rotated)).toEqual({
      changes: "some",
      replaces: [],
      diffs: ["token"],
      deleteBeforeReplace: false,
      detailedDiff: { token: { kind: "update", inputDiff: true } },
    });
    expect((await plugin.diff("Credential", "plugin-token", { ...oldInputs, ...olds }, { ...rotated, credentialId: "other" })).detailedDiff).toEqual({
      credentialId: { kind: "updateReplace", inputDiff: true },
      token: { kind: "update", inputDiff: true },
    });
    const before = emulator.requests.length;
    // The old inputs come with the request (the outputs leave the token out).
    expect(await plugin.update("Credential", "plugin-token", olds, rotated, oldInputs)).toMatchObject({ status: "active" });
    expect(emulator.requests.slice(before).map((entry) => `${entry.method} ${entry.path}`)).toEqual(["PATCH /v1beta/credentials/plugin-token?update_mask=token"]);
  });

  test("read by id alone gives the id and type (the API never returns secrets); delete", async () => {
    const imported = await plugin.read("Credential", "plugin-token");
    expect(imported.inputs).toEqual({ credentialId: "plugin-token", type: "bearer_token" });
    await plugin.delete("Credential", "plugin-token", {});
    expect(await plugin.read("Credential", "plugin-token")).toEqual({ id: "" });
  });
});
