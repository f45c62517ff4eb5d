/** The environments endpoints over real HTTP: auth, validation, paging, delete, expiry. */
import { inline, OTHER_KEY, startTestEmulator, type TestEmulator } from "../../support/emulator";

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.close());

const create = (body: unknown, key?: string) =>
  emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify(body), key });

describe("authentication", () => {
  test("a missing key is 403 PERMISSION_DENIED, a wrong key 400, both in Google's envelope", async () => {
    const missing = await emulator.json("/v1beta/environments", { key: null });
    expect(missing.status).toBe(403);
    expect(missing.body.error).toMatchObject({ code: 403, status: "PERMISSION_DENIED" });
    const wrong = await emulator.json("/v1beta/environments", { key: "nope" });
    expect(wrong).toEqual({
      status: 400,
      body: { error: { code: 400, status: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key." } },
    });
  });

  test("each key sees only its own environments", async () => {
    const mine = await create({});
    expect((await emulator.json(`/v1/environments/${mine.body.id}`, { key: OTHER_KEY })).status).toBe(404);
    const theirs = await emulator.json("/v1/environments?page_size=1000", { key: OTHER_KEY });
    expect(theirs.body.environments.map((e: { id: string }) => e.id)).not.toContain(mine.body.id);
    expect((await emulator.json(`/v1/environments/${mine.body.id}`, { method: "DELETE", key: OTHER_KEY })).status).toBe(404);
  });
});

describe("create", () => {
  test("outputs every reference field with int64 as strings and seconds-precision UTC times", async () => {
    const { status, body } = await create({ sources: [inline("main.py", "print('Hello, World!')")], network: "disabled" });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(
      ["created", "file_count", "id", "last_accessed", "mode", "network", "size_bytes", "sources", "status", "updated"].sort(),
    );
    expect(body).toMatchObject({ file_count: "1", size_bytes: "22", status: "active", network: "disabled" });
    expect(body.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(body.sources).toEqual([{ type: "inline", target: "main.py", content: "print('Hello, World!')" }]);
  });

  test("base64 content is binary-safe", async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const { body } = await create({ sources: [{ type: "inline", encoding: "base64", content: bytes.toString("base64"), target: "bin/all.bytes" }] });
    const download = await emulator.call(`/v1/environments/${body.id}/files/bin/all.bytes?alt=media`);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
  });

  test.each([
    [{ sources: [inline("../x", "a")] }, 'sources[0].target: "../x" escapes the environment root'],
    [{ sources: [inline("/etc/passwd", "a")] }, 'sources[0].target: "/etc/passwd" is absolute: give it relative to the environment root, e.g. "etc/passwd"'],
    [{ sources: [inline("a.txt", "1"), inline("a.txt", "2")] }, 'sources[1].target: "a.txt" is also the target of sources[0]'],
    [{ sources: [inline("a", "1"), inline("a/b", "2")] }, 'sources[1].target: "a/b" needs "a" to be a directory, but sources[0] writes a file there'],
    [{ sources: [{ type: "inline", target: "a" }] }, "sources[0].content: is required for an inline source"],
    [{ sources: [{ type: "inline", target: "a", content: 5 }] }, "sources[0].content: Invalid input: expected string, received number"],
    [{ sources: [{ type: "ftp", source: "x" }] }, 'sources[0].type: must be one of inline, repository, gcs, skill_registry (got "ftp")'],
    [{ network: "off" }, 'network: must be "disabled" or {"allowlist": [{"domain": "…"}]}'],
    [{ network: { allowlist: [{ domain: "has space" }] } }, 'network.allowlist[0].domain: "has space" is not a domain: use a host name (api.example.com), a wildcard (*.example.com) or *'],
    [{ sourcez: [] }, "sourcez: is not a known field: remove it or check its spelling"],
    [[], "Invalid input: expected object, received array"],
  ])("%j is a 400 naming the field", async (body, message) => {
    const response = await create(body);
    expect(response).toEqual({ status: 400, body: { error: { code: 400, status: "INVALID_ARGUMENT", message } } });
  });

  test("malformed JSON is a 400, and a refused create leaves nothing behind", async () => {
    const before = (await emulator.json("/v1/environments?page_size=1000")).body.environments.length;
    const response = await emulator.json("/v1/environments", { method: "POST", body: "{not json" });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/^Invalid JSON payload received\./);
    expect((await emulator.json("/v1/environments?page_size=1000")).body.environments.length).toBe(before);
  });

  test("a source that cannot be used is a 400 naming it, never a silent success, and leaves nothing behind", async () => {
    const before = (await emulator.json("/v1/environments?page_size=1000")).body.environments.length;
    const response = await create({ sources: [inline("a", "1"), { type: "gcs", source: "gs://b/p", target: "data" }] });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message: expect.stringMatching(/^sources\[1\]\.source: "b" is not a bucket name/) });
    expect((await emulator.json("/v1/environments?page_size=1000")).body.environments.length).toBe(before);
  });

  test("network values are echoed as sent", async () => {
    const credential = await emulator.json("/v1/credentials", { method: "POST", body: JSON.stringify({ id: "cred-gh", type: "bearer_token", token: "t" }) });
    expect(credential.status).toBe(200);
    const network = {
      allowlist: [
        { domain: "api.github.com", credential: "cred-gh" },
        { domain: "*.googleapis.com", transform: { "X-Api-Key": "abc" } },
        { domain: "example.com", transform: [{ "X-A": "1" }, { "X-B": "2" }] },
      ],
    };
    expect((await create({ network })).body.network).toEqual(network);
    expect((await create({ network: { allowlist: "disabled" } })).body.network).toEqual({ allowlist: "disabled" });
  });
});

describe("list", () => {
  // Other tests create environments too, so these compare positions relative to their own.
  test("page tokens stay correct while environments are created and deleted between pages", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({})).body.id);
    const all = async () => (await emulator.json("/v1/environments?page_size=1000")).body.environments.map((e: { id: string }) => e.id);
    const startIndex = (await all()).indexOf(ids[0]);
    expect(startIndex).toBeGreaterThanOrEqual(0);

    // Walk from the page that ends just before ids[0] so that the first page we inspect starts there.
    let token: string | undefined;
    const seen: string[] = [];
    if (startIndex > 0) token = (await emulator.json(`/v1/environments?page_size=${startIndex}`)).body.next_page_token;
    const first = await emulator.json(`/v1/environments?page_size=2${token ? `&page_token=${encodeURIComponent(token)}` : ""}`);
    seen.push(...first.body.environments.map((e: { id: string }) => e.id));
    expect(seen).toEqual(ids.slice(0, 2));

    await emulator.json(`/v1/environments/${ids[2]}`, { method: "DELETE" }); // not yet seen
    await emulator.json(`/v1/environments/${ids[0]}`, { method: "DELETE" }); // already seen
    const late = (await create({})).body.id;

    token = first.body.next_page_token;
    while (token) {
      const page = await emulator.json(`/v1/environments?page_size=2&page_token=${encodeURIComponent(token)}`);
      seen.push(...page.body.environments.map((e: { id: string }) => e.id));
      token = page.body.next_page_token;
    }
    expect(seen).toEqual([ids[0], ids[1], ids[3], ids[4], late]);
  });

  test("page_size: default 50, above 1000 coerced, negative and non-integer refused", async () => {
    while ((await emulator.json("/v1/environments?page_size=1000")).body.environments.length < 55) await create({});
    expect((await emulator.json("/v1/environments")).body.environments).toHaveLength(50);
    expect((await emulator.json("/v1/environments?page_size=0")).body.environments).toHaveLength(50);
    expect((await emulator.json("/v1/environments?page_size=5000")).status).toBe(200);
    expect((await emulator.json("/v1/environments?page_size=-1")).body.error).toMatchObject({
      status: "INVALID_ARGUMENT",
      message: "page_size: must not be negative (got -1)",
    });
    expect((await emulator.json("/v1/environments?page_size=ten")).status).toBe(400);
    expect((await emulator.json("/v1/environments?page_token=garbage")).body.error.message).toMatch(/^page_token: /);
  });
});

describe("get and delete", () => {
  test("delete answers 200 application/json {} and the environment is gone", async () => {
    const { body } = await create({ sources: [inline("a.txt", "a")] });
    const response = await emulator.call(`/v1alpha/environments/environments%2F${body.id}`, { method: "DELETE" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.text()).toBe("{}");
    expect((await emulator.json(`/v1/environments/${body.id}`)).status).toBe(404);
    expect((await emulator.json(`/v1/environments/${body.id}`, { method: "DELETE" })).status).toBe(404);
  });

  test("unknown ids and odd segments are 404s or 400s, never 500s", async () => {
    expect((await emulator.json("/v1/environments/env_doesnotexist")).body.error.status).toBe("NOT_FOUND");
    expect((await emulator.json("/v1/environments/environments%2Fenv%20abc%3Fx%23y")).status).toBe(404);
    expect((await emulator.json("/v1/environments/")).status).toBe(400);
    expect((await emulator.json("/v2/environments")).status).toBe(404);
  });
});

describe("expiry", () => {
  test("an idle environment becomes expired; Get does not keep it alive; its files stay readable", async () => {
    // The emulator's clock, moved by the test: no sleeping, nothing depends on the machine's load.
    let clock = Date.now();
    const hour = 3600_000;
    const short = await startTestEmulator({ idleTtlMs: hour, now: () => clock });
    try {
      const { body } = await short.json("/v1/environments", { method: "POST", body: JSON.stringify({ sources: [inline("a.txt", "kept")] }) });
      clock += hour / 2;
      expect((await short.json(`/v1/environments/${body.id}`)).body.status).toBe("active");
      clock += hour / 2 + 1000; // Get above did not count as use
      expect((await short.json(`/v1/environments/${body.id}`)).body.status).toBe("expired");
      expect((await short.json("/v1/environments")).body.environments[0].status).toBe("expired");
      expect(await (await short.call(`/v1/environments/${body.id}/files/a.txt?alt=media`)).text()).toBe("kept");
      expect((await short.json(`/v1/environments/${body.id}`, { method: "DELETE" })).status).toBe(200);
    } finally {
      await short.close();
    }
  });
});
