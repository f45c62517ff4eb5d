/**
 * Answers that used to be 500s (or a wrong 404): names too long for the file system, list pages too
 * large to serialise, a delete while a tool runs, and a link to /proc in a listing.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { inline, startTestEmulator, type TestEmulator } from "../../support/emulator";

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ maxPageBytes: 1024 * 1024 });
});
afterAll(() => emulator.close());

async function create(sources: unknown[]): Promise<string> {
  const { status, body } = await emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ sources }) });
  expect(status).toBe(200);
  return body.id;
}

function tool(id: string, code: string) {
  return emulator.json(`/v1beta/environments/${id}:executeTool`, {
    method: "POST",
    body: JSON.stringify({ tool_call: { name: "code_execution", args: { code, language: "python" } } }),
  });
}

describe("names too long for the file system are a 400 naming the field", () => {
  const long = "a".repeat(300);

  test.each([
    ["a name of 300 bytes", `${long}/x.txt`, /sources\[0\]\.target: has a name of 300 bytes .*at most 255 bytes/],
    ["a path over 4000 bytes", Array.from({ length: 500 }, () => "abcdefghij").join("/"), /sources\[0\]\.target: is 5499 bytes long; paths hold at most 4000 bytes/],
  ])("create with %s", async (_case, target, message) => {
    const { status, body } = await emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ sources: [inline(target, "x")] }) });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ status: "INVALID_ARGUMENT", message: expect.stringMatching(message) });
  });

  test("GET of a file with such a name", async () => {
    const id = await create([inline("a.txt", "a")]);
    for (const query of ["", "?alt=media"]) {
      const { status, body } = await emulator.json(`/v1beta/environments/${id}/files/${long}${query}`);
      expect({ status, message: body.error.message }).toEqual({ status: 400, message: expect.stringMatching(/^path: has a name of 300 bytes/) });
    }
  });

  test("an upload to such a name", async () => {
    const id = await create([inline("a.txt", "a")]);
    const response = await emulator.call(`/upload/v1beta/environments/${id}/files/${long}`, {
      method: "PUT",
      headers: { "x-goog-upload-command": "start", "x-goog-upload-protocol": "resumable", "x-goog-upload-header-content-length": "1" },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.message).toMatch(/^path: has a name of 300 bytes/);
  });
});

test("a list page ends before its echoed sources pass the page's byte bound, and the next page goes on", async () => {
  const other = await startTestEmulator({ maxPageBytes: 1024 * 1024 });
  try {
    const big = "x".repeat(600 * 1024);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { body } = await other.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ sources: [inline(`big-${i}.txt`, big)] }) });
      ids.push(body.id);
    }
    const seen: string[][] = [];
    let token: string | undefined;
    do {
      const { status, body } = await other.json(`/v1beta/environments?page_size=50${token ? `&page_token=${token}` : ""}`);
      expect(status).toBe(200);
      seen.push(body.environments.map((environment: { id: string }) => environment.id));
      token = body.next_page_token;
    } while (token);
    expect(seen).toEqual([[ids[0]], [ids[1]], [ids[2]]]);
  } finally {
    await other.close();
  }
});

test("DELETE while a tool runs: 200; the call answers with its own result; nothing is left behind", async () => {
  const id = await create([inline("workspace/a.txt", "a")]);
  const running = tool(id, "open('/workspace/started', 'w').close()\nimport time\ntime.sleep(1.5)\nprint('done')");
  const tree = path.join(emulator.dataDir, "trees", id);
  for (let i = 0; i < 200 && !existsSync(path.join(tree, "workspace/started")); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(existsSync(path.join(tree, "workspace/started"))).toBe(true);

  const deleted = await emulator.json(`/v1beta/environments/${id}`, { method: "DELETE" });
  expect(deleted).toEqual({ status: 200, body: {} });
  expect(await running).toMatchObject({ status: 200, body: { decision: "allow", output: "done\n", exit_code: 0 } });
  expect((await emulator.json(`/v1beta/environments/${id}`)).status).toBe(404);
  // The trash is emptied once the call is over.
  for (let i = 0; i < 100 && readdirSync(path.join(emulator.dataDir, "tmp")).some((name) => name.startsWith("trash-")); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(readdirSync(path.join(emulator.dataDir, "tmp")).filter((name) => name.startsWith("trash-"))).toEqual([]);
});

test("a symlink to /proc/1/root is left out of a listing, not followed (no 500)", async () => {
  const id = await create([inline("workspace/a.txt", "a")]);
  expect((await tool(id, "import os\nos.symlink('/proc/1/root', '/workspace/root')\nos.symlink('/proc/self/root/etc', '/workspace/etc')")).body.exit_code).toBe(0);
  for (const recursive of [false, true]) {
    const { status, body } = await emulator.json(`/v1beta/environments/${id}/files/workspace${recursive ? "?recursive=true" : ""}`);
    expect(status).toBe(200);
    expect(body.files.map((file: { path: string }) => file.path)).toEqual(["workspace/a.txt"]);
  }
  const { status } = await emulator.json(`/v1beta/environments/${id}/files/workspace/root/etc/passwd?alt=media`);
  expect(status).toBe(404);
});
