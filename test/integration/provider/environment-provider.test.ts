/**
 * The Environment provider's methods called directly (as the engine's dynamic-provider host calls
 * them) against a real emulator.
 */
import * as provider from "../../../provider/environment-provider";
import { UNKNOWN, type EnvironmentOutputs } from "../../../provider/environment-inputs";
import { EnvironmentsClient } from "../../../sdk/client";
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
    [{ network: "off" as never }, "network", 'network: must be "disabled" or {"allowlist": [{"domain": "…"}]}'],
    [{ fromEnvironment: "not an id" }, "fromEnvironment", "fromEnvironment: must be an environment id such as env_abc123 or environments/env_abc123"],
    [{ fromEnvironment: "env_a", sources }, "sources", "sources: must be empty when fromEnvironment is set: a fork copies its origin's files"],
    [{ adopt: "env_a", fromEnvironment: "env_b" }, "adopt", "adopt: cannot be combined with fromEnvironment: adopt takes an existing environment as it is"],
  ])("%j fails on %s", async (news, property, reason) => {
    expect((await provider.check!({}, news)).failures).toEqual([{ property, reason }]);
  });

  test("values unknown during preview pass, while the known ones are still checked", async () => {
    const news = { sources: [inline("a", UNKNOWN), { type: "inline" as const, target: UNKNOWN, content: "x" }, inline("/abs", "x")] };
    expect((await provider.check!({}, news)).failures).toEqual([
      { property: "sources", reason: 'sources[2].target: "/abs" is absolute: give it relative to the environment root, e.g. "abs"' },
    ]);
    expect((await provider.check!({}, { sources: UNKNOWN as never, network: UNKNOWN as never })).failures).toEqual([]);
  });
});

describe("diff", () => {
  const olds = { sources, network: { allowlist: [{ domain: "a.example.com" }] }, status: "active" } as unknown as EnvironmentOutputs;

  test("equal inputs give no diff", async () => {
    expect(await provider.diff!("env_x", olds, { sources, network: olds.network })).toMatchObject({ changes: false, replaces: [] });
  });

  test.each([
    [{ sources: [sources[0], inline(".agents/hooks-scripts/gate.py", "changed")], network: olds.network }, ["sources[1].content"]],
    [{ sources: [...sources, inline("b", "b")], network: olds.network }, ["sources[2]"]],
    [{ sources: [sources[0]], network: olds.network }, ["sources[1]"]],
    [{ sources, network: "disabled" as const }, ["network"]],
    [{ sources, network: { allowlist: [{ domain: "b.example.com" }] } }, ["network.allowlist[0].domain"]],
    [{ sources, network: olds.network, fromEnvironment: "env_y" }, ["fromEnvironment"]],
  ])("a change replaces and names its path: %j", async (news, replaces) => {
    const result = await provider.diff!("env_x", olds, news);
    expect(result).toEqual({ changes: true, replaces, deleteBeforeReplace: false });
  });

  test("adopt is not a change: removing it after adoption keeps the environment", async () => {
    expect((await provider.diff!("env_x", { ...olds, adopt: "env_x" }, { sources, network: olds.network })).changes).toBe(false);
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
    expect((error as Error).message).toMatch(/differs at sources\[0\]\.content/);
    expect((error as Error).message).not.toMatch(/hunter2|other/);
  });
});
