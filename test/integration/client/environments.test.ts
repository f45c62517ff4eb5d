/**
 * `EnvironmentsClient`'s happy paths against the emulator over real HTTP: create (plain and
 * self_hosted), get, fileMetadata, delete, paging through environments and files, and executeTool with
 * a real hook. What the client sends is read from the emulator's request log; what it gives back is
 * compared with what the emulator holds. (Faults the emulator cannot produce stay in test/unit/client.)
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { EnvironmentsClient, isNotFound } from "../../../client";
import { ownerOf } from "../../../emulator/api";
import { inline, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";

const SECURITY_GATE = readFileSync(path.resolve(__dirname, "../../../examples/security-gate/hooks-scripts/gate.py"), "utf8");

let emulator: TestEmulator;
let client: EnvironmentsClient;

beforeAll(async () => {
  emulator = await startTestEmulator();
  client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator.url, env: {} });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});
afterEach(async () => {
  for (const environment of emulator.service.list(ownerOf(TEST_KEY), 1000, undefined).environments) await client.delete(environment.id);
});

/** The emulator requests made while `body` runs, as `METHOD path?query`. */
async function requestsDuring(body: () => Promise<unknown>): Promise<string[]> {
  const before = emulator.requests.length;
  await body();
  return emulator.requests.slice(before).map((entry) => `${entry.method} ${entry.path}`);
}

describe("environments and file metadata", () => {
  test("create sends the request and returns the Environment the emulator holds", async () => {
    const request = {
      network: { allowlist: [{ domain: "*.googleapis.com", transform: { "X-Api-Key": "abc" } }] },
      sources: [inline("main.py", "print(1)")],
    };
    let created: Awaited<ReturnType<EnvironmentsClient["create"]>> | undefined;
    expect(await requestsDuring(async () => (created = await client.create(request)))).toEqual(["POST /v1beta/environments"]);
    expect(created).toMatchObject({ id: expect.stringMatching(/^env_/), status: "active", network: request.network, file_count: "1" });
    expect(await client.get(created!.id)).toEqual(created);
  });

  test("a self_hosted create sends mode, system_instruction and custom_config, and returns the one-time environment_key", async () => {
    const request = { mode: "self_hosted" as const, system_instruction: "Be terse.", custom_config: { pool: "gpu", n: [1, { a: null }] } };
    const created = await client.create(request);
    expect(created).toMatchObject({ ...request, environment_key: expect.stringMatching(/^envkey_/) });
    const again = await client.get(created.id);
    expect(again).toMatchObject(request);
    expect(again.environment_key).toBeUndefined();
  });

  test("fileMetadata returns the file's entry, reports a directory, and throws NOT_FOUND when absent", async () => {
    const { id } = await client.create({ sources: [inline("src/main.py", "print('hello, world')\n")] });
    await expect(client.fileMetadata(id, "/src/main.py")).resolves.toMatchObject({ name: "main.py", path: "src/main.py", type: "file", size_bytes: "22" });
    await expect(client.files.metadata(id, "src/")).resolves.toEqual({ name: "src", path: "src", type: "directory" });
    const error = await client.fileMetadata(id, "nope").catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
  });

  test("delete removes the environment: a get after it is NOT_FOUND", async () => {
    const { id } = await client.create({});
    await expect(client.delete(id)).resolves.toBeUndefined();
    await expect(client.get(id)).rejects.toMatchObject({ httpStatus: 404, status: "NOT_FOUND" });
  });
});

describe("list paging", () => {
  test("listAll follows next_page_token across pages and yields every environment once", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await client.create({})).id);
    const listed: string[] = [];
    const requests = await requestsDuring(async () => {
      for await (const environment of client.listAll({ pageSize: 2 })) listed.push(environment.id);
    });
    expect(listed.sort()).toEqual([...ids].sort());
    expect(requests).toHaveLength(3);
    expect(requests[0]).toBe("GET /v1beta/environments?page_size=2");
    for (const request of requests.slice(1)) expect(request).toMatch(/^GET \/v1beta\/environments\?page_size=2&page_token=[^&]+$/);
  });

  test("listAll with a mode filter sends it on every page and yields only that mode", async () => {
    const selfHosted = [(await client.create({ mode: "self_hosted" })).id, (await client.create({ mode: "self_hosted" })).id];
    await client.create({});
    const listed: string[] = [];
    const requests = await requestsDuring(async () => {
      for await (const environment of client.listAll({ mode: "self_hosted", pageSize: 1 })) listed.push(environment.id);
    });
    expect(listed.sort()).toEqual(selfHosted.sort());
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const request of requests) expect(request).toMatch(/^GET \/v1beta\/environments\?mode=self_hosted&page_size=1(&page_token=[^&]+)?$/);
  });

  test("list returns one page as the wire shape", async () => {
    const ids = [(await client.create({})).id, (await client.create({})).id];
    const page = await client.list({ pageSize: 1 });
    expect(page).toEqual({ environments: [await client.get(page.environments![0].id)], next_page_token: expect.any(String) });
    expect(ids).toContain(page.environments![0].id);
  });

  test("files.listAll pages through a recursive listing", async () => {
    const { id } = await client.create({ sources: [inline("w/a", "a"), inline("w/s/b", "b")] });
    const paths: (string | undefined)[] = [];
    const requests = await requestsDuring(async () => {
      for await (const file of client.files.listAll({ environment: id, path: "w", recursive: true, pageSize: 1 })) paths.push(file.path);
    });
    expect(paths).toEqual(["w/a", "w/s/b"]);
    expect(requests).toEqual([`GET /v1beta/environments/${id}/files/w?page_size=1&recursive=true`, expect.stringMatching(new RegExp(`^GET /v1beta/environments/${id}/files/w\\?page_size=1&page_token=[^&]+&recursive=true$`))]);
  });
});

describe("executeTool", () => {
  test("POSTs {tool_call} to environments/{id}:executeTool and parses the hook's deny", async () => {
    const hooks = { "security-gate": { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] } };
    const { id } = await client.create({ sources: [inline(".agents/hooks.json", JSON.stringify(hooks)), inline(".agents/hooks-scripts/gate.py", SECURITY_GATE)] });
    let result: Awaited<ReturnType<EnvironmentsClient["executeTool"]>> | undefined;
    const requests = await requestsDuring(async () => (result = await client.executeTool(`environments/${id}`, { name: "code_execution", args: { code: "rm -rf /tmp/x" } })));
    expect(requests).toEqual([`POST /v1beta/environments/${id}:executeTool`]);
    expect(result).toEqual({
      decision: "deny",
      reason: "Destructive command blocked by security gate.",
      error: "Destructive command blocked by security gate.",
      hooks: [{ group: "security-gate", event: "pre_tool_execution", handler: "command: python3 /.agents/hooks-scripts/gate.py", decision: "deny", duration_ms: expect.any(Number) }],
    });
  });
});
