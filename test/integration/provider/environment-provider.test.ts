/**
 * The Environment provider's methods called directly (as the engine's dynamic-provider host calls
 * them) against a real emulator.
 */
import * as provider from "../../../provider/environment-provider";
import { UNKNOWN, type EnvironmentOutputs } from "../../../provider/environment/inputs";
import { EnvironmentsClient } from "../../../client/client";
import { inline, startTestEmulator, TEST_KEY } from "../../support/emulator";
import { useProviderEmulator } from "../../support/provider-emulator";

const emulator = useProviderEmulator();

const sources = [inline("main.py", "print('Hello, World!')"), inline(".agents/hooks-scripts/gate.py", "print('{}')")];

describe("check", () => {
  test("a failure names the property path and the fix", async () => {
    const result = await provider.check!({}, { sources: [...sources, inline("../x", "a")] });
    expect(result.failures).toEqual([{ property: "sources", reason: 'sources[2].target: "../x" escapes the environment root' }]);
  });

  test.each([
    [{ network: "off" as never }, "network", 'network: must be {allowlist: [{domain: "…"}]} or {disabled: true} (the API\'s "disabled" and {"allowlist": […]} are accepted too)'],
    [{ fromEnvironment: "not an id" }, "fromEnvironment", "fromEnvironment: must be an environment id such as env_abc123 or environments/env_abc123"],
    [{ fromEnvironment: "env_a", sources }, "sources", "sources: must be empty when fromEnvironment is set: a fork copies its origin's files"],
    [{ adopt: "env_a", fromEnvironment: "env_b" }, "adopt", "adopt: cannot be combined with fromEnvironment: adopt takes an existing environment as it is"],
    [{ mode: "SELF_HOSTED" as never }, "mode", 'mode: must be "on_demand" or "self_hosted" (got "SELF_HOSTED"); enum values are lowercase on the wire'],
    [{ systemInstruction: "x" }, "systemInstruction", 'systemInstruction: is only supported for self_hosted environments; set mode: "self_hosted" (mode is "on_demand")'],
    [{ mode: "on_demand" as const, customConfig: { a: 1 } }, "customConfig", 'customConfig: is only supported for self_hosted environments; set mode: "self_hosted" (mode is "on_demand")'],
    [{ mode: "self_hosted" as const, customConfig: [1] as never }, "customConfig", 'customConfig: must be a JSON object, e.g. {"pool": "gpu"}'],
  ])("%j fails on %s", async (news, property, reason) => {
    expect((await provider.check!({}, news)).failures).toEqual([{ property, reason }]);
  });

  test("values unknown during preview pass, while the known ones are still checked", async () => {
    const news = { sources: [inline("a", UNKNOWN), { type: "inline" as const, target: UNKNOWN, content: "x" }, inline("/abs", "x")] };
    expect((await provider.check!({}, news)).failures).toEqual([
      { property: "sources", reason: 'sources[2].target: "/abs" is absolute: give it relative to the environment root, e.g. "abs"' },
    ]);
    expect((await provider.check!({}, { sources: UNKNOWN as never, network: UNKNOWN as never })).failures).toEqual([]);
    // The self-hosted fields are checked once mode is known.
    expect((await provider.check!({}, { mode: UNKNOWN as never, systemInstruction: "x", customConfig: { a: 1 } })).failures).toEqual([]);
    expect((await provider.check!({}, { mode: "self_hosted", systemInstruction: UNKNOWN, customConfig: { a: UNKNOWN } })).failures).toEqual([]);
  });
});

describe("diff", () => {
  const olds = { sources, network: { allowlist: [{ domain: "a.example.com" }] }, status: "active" } as unknown as EnvironmentOutputs;

  test("equal inputs give no diff", async () => {
    expect(await provider.diff!("env_x", olds, { sources, network: olds.network })).toMatchObject({ changes: false, replaces: [] });
  });

  test.each([
    [{ sources: [sources[0], inline(".agents/hooks-scripts/gate.py", "changed")], network: olds.network }],
    [{ sources: [...sources, inline("b", "b")], network: olds.network }],
    [{ sources: [sources[0], { ...sources[1], content: Buffer.from("changed").toString("base64"), encoding: "base64" as const }], network: olds.network }],
  ])("an edited or an added inline source is an update in place: %j", async (news) => {
    expect(await provider.diff!("env_x", olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  test.each([
    [{ sources: [sources[0]], network: olds.network }, ["sources[1]"]],
    [{ sources: [sources[0], inline(".agents/hooks-scripts/other.py", "print('{}')")], network: olds.network }, ["sources[1].target"]],
    [{ sources: [...sources, { type: "repository" as const, source: "file:///srv/repo" }], network: olds.network }, ["sources[2]"]],
    [{ sources: [sources[0], inline(".agents/hooks-scripts/gate.py", "changed")], network: olds.network, updateStrategy: "replace" as const }, ["sources[1].content"]],
    [{ sources, network: "disabled" as const }, ["network"]],
    [{ sources, network: { allowlist: [{ domain: "b.example.com" }] } }, ["network.allowlist[0].domain"]],
    [{ sources, network: olds.network, fromEnvironment: "env_y" }, ["fromEnvironment"]],
    [{ sources, network: olds.network, mode: "self_hosted" as const }, ["mode"]],
    [{ sources, network: olds.network, mode: "self_hosted" as const, systemInstruction: "x", customConfig: { pool: "gpu" } }, ["mode", "systemInstruction", "customConfig"]],
  ])("a change replaces and names its path: %j", async (news, replaces) => {
    const result = await provider.diff!("env_x", olds, news);
    expect(result).toEqual({ changes: true, replaces, deleteBeforeReplace: false });
  });

  test("declaring the default mode is no change; a changed custom_config names its path; the key is not an input", async () => {
    expect((await provider.diff!("env_x", olds, { sources, network: olds.network, mode: "on_demand" })).changes).toBe(false);
    const selfHosted = { ...olds, mode: "self_hosted", customConfig: { pool: "gpu", n: 1 }, environmentKey: "envkey_x" } as EnvironmentOutputs;
    const news = { sources, network: olds.network, mode: "self_hosted" as const, customConfig: { pool: "gpu", n: 1 } };
    expect((await provider.diff!("env_x", selfHosted, news)).changes).toBe(false);
    expect((await provider.diff!("env_x", selfHosted, { ...news, customConfig: { pool: "cpu", n: 1 } })).replaces).toEqual(["customConfig.pool"]);
  });

  test("adopt is not a change: removing it after adoption keeps the environment", async () => {
    expect((await provider.diff!("env_x", { ...olds, adopt: "env_x" }, { sources, network: olds.network })).changes).toBe(false);
  });

  test("an inline source that a later source writes over is not updated in place: the upload would win over the later one", async () => {
    const shadowed = [inline("workspace/conf.json", "{}"), { type: "repository" as const, source: "file:///srv/repo", target: "workspace" }];
    const result = await provider.diff!("env_x", { ...olds, sources: shadowed }, { sources: [inline("workspace/conf.json", "{\"a\":1}"), shadowed[1]], network: olds.network });
    expect(result.replaces).toEqual(["sources[0].content"]);
  });

  test("hook files refresh found rewritten are an update; with updateStrategy replace, a replacement", async () => {
    const drifted = { ...olds, driftedHookFiles: [".agents/hooks-scripts/gate.py"] };
    expect(await provider.diff!("env_x", drifted, { sources, network: olds.network })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect((await provider.diff!("env_x", drifted, { sources, network: olds.network, updateStrategy: "replace" })).replaces).toEqual(["driftedHookFiles"]);
  });

  test("an expired environment is replaced", async () => {
    const result = await provider.diff!("env_x", { ...olds, status: "expired" }, { sources, network: olds.network });
    expect(result).toMatchObject({ changes: true, replaces: ["status"] });
  });
});

describe("create, read, delete", () => {
  test("create returns the API's outputs in Pulumi's casing, read refreshes them, delete removes", async () => {
    const { id, outs } = await provider.create({ sources, network: "disabled" });
    expect(outs).toEqual({
      sources,
      network: "disabled",
      status: "active",
      created: expect.stringMatching(/Z$/),
      updated: expect.stringMatching(/Z$/),
      lastAccessed: expect.stringMatching(/Z$/),
      fileCount: 2,
      sizeBytes: 22 + 11,
    });
    const read = await provider.read!(id, outs!);
    expect(read).toEqual({ id, props: outs });
    await provider.remove!(id, outs!);
    expect((await emulator().json(`/v1beta/environments/${id}`)).status).toBe(404);
  });

  test("a self_hosted environment: its key is captured at create and kept by read, though Get never returns it", async () => {
    const inputs = { mode: "self_hosted" as const, systemInstruction: "Be terse.", customConfig: { pool: "gpu" } };
    const { id, outs } = await provider.create(inputs);
    expect(outs).toMatchObject({ ...inputs, environmentKey: expect.stringMatching(/^envkey_/) });
    const fromApi = await emulator().json(`/v1beta/environments/${id}`);
    expect(fromApi.body).toMatchObject({ mode: "self_hosted", system_instruction: "Be terse.", custom_config: { pool: "gpu" } });
    expect(fromApi.body).not.toHaveProperty("environment_key");
    const read = await provider.read!(id, outs!);
    expect(read).toEqual({ id, props: outs });
    // Environment.get (no prior state) cannot know the key.
    expect((await provider.read!(id, undefined as never)).props).not.toHaveProperty("environmentKey");
    await provider.remove!(id, outs!);
  });

  test("read of a deleted environment gives an empty id, so the engine drops it; delete of a gone one is done", async () => {
    const { id, outs } = await provider.create({ sources });
    await emulator().json(`/v1beta/environments/${id}`, { method: "DELETE" });
    expect(await provider.read!(id, outs!)).toEqual({ id: "" });
    await expect(provider.remove!(id, outs!)).resolves.toBeUndefined();
  });

  test("an expired environment is read with status expired and kept in state", async () => {
    const short = await startTestEmulator({ idleTtlMs: 200 });
    process.env.GOOGLE_GEMINI_BASE_URL = short.url;
    try {
      const { id, outs } = await provider.create({ sources });
      await new Promise((resolve) => setTimeout(resolve, 400));
      const read = await provider.read!(id, outs!);
      expect(read).toMatchObject({ id, props: { status: "expired" } });
      expect((await provider.diff!(id, read.props!, { sources })).replaces).toEqual(["status"]);
    } finally {
      await short.close();
    }
  });

  test("API errors surface with the server's message", async () => {
    // The bucket name passes the wire schema but not the server's own rules.
    await expect(provider.create({ sources: [{ type: "gcs", source: "gs://b/p", target: "r" }] })).rejects.toThrow(
      /sources\[0\]\.source: "b" is not a bucket name/,
    );
  });
});

describe("configuration", () => {
  test("stack config (configure) wins over the environment", async () => {
    process.env.GOOGLE_API_KEY = "wrong";
    process.env.GOOGLE_GEMINI_BASE_URL = "http://127.0.0.1:9";
    const config: Record<string, string> = { "gemini-environments:apiKey": TEST_KEY, "gemini-environments:baseUrl": emulator().url };
    await provider.configure!({ config: { get: (key) => config[key], require: (key) => config[key] } });
    const { id } = await provider.create({});
    expect((await emulator().json(`/v1beta/environments/${id}`)).status).toBe(200);
  });

  test("GEMINI_API_KEY is read when GOOGLE_API_KEY is absent", async () => {
    delete process.env.GOOGLE_API_KEY;
    process.env.GEMINI_API_KEY = TEST_KEY;
    await expect(provider.create({})).resolves.toMatchObject({ id: expect.stringMatching(/^env_/) });
  });

  test("no key anywhere is a clear error naming where to put one", async () => {
    delete process.env.GOOGLE_API_KEY;
    delete process.env.GEMINI_API_KEY;
    await expect(provider.create({})).rejects.toThrow(/GOOGLE_API_KEY or GEMINI_API_KEY/);
  });
});

describe("adopt", () => {
  test("an existing environment holding the declared inputs is taken under management without a create", async () => {
    const client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator().url });
    const existing = await client.create({ sources, network: "disabled" });
    await client.close();
    const before = emulator().requests.filter((r) => r.method === "POST").length;
    const { id, outs } = await provider.create({ sources, network: "disabled", adopt: existing.id });
    expect(id).toBe(existing.id);
    expect(outs).toMatchObject({ status: "active", fileCount: 2, adopt: existing.id });
    expect(emulator().requests.filter((r) => r.method === "POST").length).toBe(before);
  });

  test("a mismatch names the differing paths, never their values", async () => {
    const client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator().url });
    const existing = await client.create({ sources: [inline("secret.txt", "hunter2")] });
    await client.close();
    const error = await provider.create({ sources: [inline("secret.txt", "other")], adopt: existing.id }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/differs at sources\[0\]\.content\. .*`genv env get env_\w+` shows them/);
    expect((error as Error).message).not.toMatch(/hunter2|other/);
  });

  test("adopt compares mode, systemInstruction and customConfig too; the key cannot be recovered", async () => {
    const client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator().url });
    const existing = await client.create({ mode: "self_hosted", custom_config: { pool: "gpu" } });
    await client.close();
    const error = await provider.create({ adopt: existing.id }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/differs at mode, customConfig\. /);
    const { outs } = await provider.create({ adopt: existing.id, mode: "self_hosted", customConfig: { pool: "gpu" } });
    expect(outs).toMatchObject({ mode: "self_hosted", customConfig: { pool: "gpu" } });
    expect(outs).not.toHaveProperty("environmentKey");
  });
});
