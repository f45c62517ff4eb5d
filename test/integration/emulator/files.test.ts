/** GetEnvironmentFiles over real HTTP: listings, paging, paths as the official client encodes them. */
import { promises as fs } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { inline, startTestEmulator, type TestEmulator } from "../../support/emulator";

let emulator: TestEmulator;
let id: string;
const names = (body: { files: Array<{ path: string }> }) => body.files.map((file) => file.path);

beforeAll(async () => {
  emulator = await startTestEmulator();
  const created = await emulator.json("/v1/environments", {
    method: "POST",
    body: JSON.stringify({
      sources: [
        inline("main.py", "print(1)"),
        inline("workspace/src/a.ts", "a"),
        inline("workspace/src/b/c.json", "{}"),
        inline("workspace/a-z.txt", "dash sorts before slash"),
        inline("dir with space/ü é/a+b=c&d,e;f:g@h$i[j]k", "odd"),
        inline("pct/100%.txt", "percent"),
      ],
    }),
  });
  id = created.body.id;
});
afterAll(() => emulator.close());

test("a directory lists one level; recursive lists every file under it", async () => {
  expect(names((await emulator.json(`/v1/environments/${id}/files/`)).body)).toEqual(["dir with space", "main.py", "pct", "workspace"]);
  expect(names((await emulator.json(`/v1/environments/${id}/files/workspace`)).body)).toEqual(["workspace/a-z.txt", "workspace/src"]);
  expect(names((await emulator.json(`/v1/environments/${id}/files/workspace?recursive=true`)).body)).toEqual([
    "workspace/a-z.txt",
    "workspace/src/a.ts",
    "workspace/src/b/c.json",
  ]);
  const directory = (await emulator.json(`/v1/environments/${id}/files/workspace`)).body.files[1];
  expect(directory).toEqual({ name: "src", path: "workspace/src", type: "directory", created: expect.any(String), modified: expect.any(String) });
});

test("a file path returns one entry with its metadata", async () => {
  const { body } = await emulator.json(`/v1/environments/${id}/files/workspace/src/b/c.json`);
  expect(body).toEqual({
    files: [
      {
        name: "c.json",
        path: "workspace/src/b/c.json",
        type: "file",
        mime_type: "application/json",
        size_bytes: "2",
        created: expect.stringMatching(/Z$/),
        modified: expect.stringMatching(/Z$/),
      },
    ],
  });
});

test("paging walks every file once, in both modes", async () => {
  for (const recursive of [false, true]) {
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const query = `page_size=1&recursive=${recursive}${token ? `&page_token=${encodeURIComponent(token)}` : ""}`;
      const { body } = await emulator.json(`/v1/environments/${id}/files/?${query}`);
      seen.push(...names(body));
      token = body.next_page_token;
    } while (token);
    const all = names((await emulator.json(`/v1/environments/${id}/files/?recursive=${recursive}&page_size=100`)).body);
    expect(seen).toEqual(all);
  }
  const { body } = await emulator.json(`/v1/environments/${id}/files/workspace?page_size=1`);
  expect((await emulator.json(`/v1/environments/${id}/files/?page_token=${body.next_page_token}`)).body.error.message).toMatch(/another listing/);
});

test.each([
  ["list encoding (percent-except-reserved)", "dir%20with%20space/%C3%BC%20%C3%A9/a+b=c&d,e;f:g@h$i[j]k", "odd"],
  ["environments%2F prefix on the environment segment", "main.py", "print(1)", (env: string) => `environments%2F${env}`],
  ["a leading slash kept by list", "/workspace/src/a.ts", "a"],
  ["list's double-encoded percent", "pct/100%25.txt", "percent"],
  ["download's raw percent", "pct/100%.txt", "percent"],
])("paths: %s", async (_, filePath, content, envSegment = (env: string) => env) => {
  const response = await emulator.call(`/v1/environments/${envSegment(id)}/files/${filePath}?alt=media`);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe(content);
});

test("download sends the bytes with a sensible Content-Type and length", async () => {
  const response = await emulator.call(`/v1/environments/${id}/files/main.py?alt=media`);
  expect(response.headers.get("content-type")).toBe("text/x-python");
  expect(response.headers.get("content-length")).toBe("8");
  const directory = await emulator.json(`/v1/environments/${id}/files/workspace?alt=media`);
  expect(directory.status).toBe(400);
});

test("nothing outside the environment's tree can be read or listed", async () => {
  // A symlink planted inside the tree (as an agent could) pointing outside it.
  await fs.symlink("/etc", path.join(emulator.dataDir, "trees", id, "escape"));
  await fs.symlink("/etc/hostname", path.join(emulator.dataDir, "trees", id, "escape-file"));
  expect((await emulator.json(`/v1/environments/${id}/files/escape`)).status).toBe(404);
  expect((await emulator.call(`/v1/environments/${id}/files/escape-file?alt=media`)).status).toBe(404);
  expect((await emulator.call(`/v1/environments/${id}/files/escape/hostname?alt=media`)).status).toBe(404);
  expect(names((await emulator.json(`/v1/environments/${id}/files/`)).body)).not.toContain("escape");
  // Sent raw: fetch would resolve the dot segments before they reach the server.
  expect(await rawStatus(`/v1/environments/${id}/files/../../../etc/hostname?alt=media`)).toBe(400);
  expect(await rawStatus(`/v1/environments/${id}/files/%2E%2E/%2E%2E/etc/hostname?alt=media`)).toBe(400);
  expect(await rawStatus(`/v1/environments/${id}/files/a%2F..%2F..%2Fx`)).toBe(400);
  expect((await emulator.json(`/v1/environments/${id}/files/nope/deeper`)).body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
});

function rawStatus(target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(emulator.url);
    const req = request({ host: url.hostname, port: url.port, path: target, headers: { "x-goog-api-key": "test-key-1" } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on("error", reject);
    req.end();
  });
}
