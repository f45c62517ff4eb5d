/**
 * The official client, unchanged, against the emulator: its whole create/get/list/files/download/
 * delete cycle, pointed at it only through httpOptions.baseUrl.
 */
import type { GoogleGenAI } from "@google/genai";
import { startTestEmulator, type TestEmulator, officialClient } from "../../support/emulator";

let emulator: TestEmulator;
let ai: GoogleGenAI;

beforeAll(async () => {
  emulator = await startTestEmulator();
  ai = officialClient(emulator.url);
});
afterAll(async () => {
  await emulator.close();
});

test("create, get, list with paging, files, download, delete, then 404", async () => {
  const created = await ai.environments.create({
    sources: [
      { type: "inline", content: "print('Hello, World!')", target: "main.py" },
      { type: "inline", content: Buffer.from([0, 1, 2, 255]).toString("base64"), encoding: "base64", target: "workspace/src/blob.bin" },
      { type: "inline", content: "{}", target: "workspace/src/deep/config.json" },
    ],
    network: { allowlist: [{ domain: "*.googleapis.com", transform: { "X-Api-Key": "abc" } }] },
  });
  expect(created.id).toMatch(/^env_[0-9a-f]+$/);
  expect(created).toMatchObject({ status: "active", file_count: "3", size_bytes: String(22 + 4 + 2) });
  expect(created.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const fetched = await ai.environments.get(created.id);
  expect(fetched).toMatchObject({ id: created.id, network: created.network, sources: created.sources });

  const others = [];
  for (let i = 0; i < 4; i++) others.push((await ai.environments.create({})).id);
  const seen: string[] = [];
  let pageToken: string | undefined;
  do {
    const page = await ai.environments.list({ page_size: 2, ...(pageToken ? { page_token: pageToken } : {}) });
    expect(page.environments!.length).toBeLessThanOrEqual(2);
    seen.push(...page.environments!.map((environment) => environment.id));
    pageToken = page.next_page_token;
  } while (pageToken);
  expect(seen).toEqual([created.id, ...others]);

  const root = await ai.environments.files.list({ environment: created.id, path: "" });
  expect(root.files!.map((file) => [file.name, file.type])).toEqual([
    ["main.py", "file"],
    ["workspace", "directory"],
  ]);
  const recursive = await ai.environments.files.list({ environment: `environments/${created.id}`, path: "workspace", recursive: true });
  expect(recursive.files!.map((file) => file.path)).toEqual(["workspace/src/blob.bin", "workspace/src/deep/config.json"]);
  const one = await ai.environments.files.list({ environment: created.id, path: "/main.py" });
  expect(one.files).toEqual([expect.objectContaining({ name: "main.py", path: "main.py", mime_type: "text/x-python", size_bytes: "22" })]);

  const bytes = await ai.environments.files.download({ environment: created.id, path: "/workspace/src/blob.bin" });
  expect(Buffer.from(bytes as Uint8Array)).toEqual(Buffer.from([0, 1, 2, 255]));

  await ai.environments.delete(created.id);
  await expect(ai.environments.get(created.id)).rejects.toMatchObject({ status: 404, name: "NotFoundError" });
  for (const id of others) await ai.environments.delete(id);
});

test("bad input is a 400 the client surfaces with the field named, without retries", async () => {
  const before = emulator.requests.length;
  const error = await ai.environments
    .create({ sources: [{ type: "inline", content: "x", target: "../escape.txt" }] })
    .catch((caught: unknown) => caught as { status: number; error: { error: { message: string; status: string } } });
  expect(error).toMatchObject({ status: 400 });
  expect((error as any).error.error).toEqual({
    code: 400,
    status: "INVALID_ARGUMENT",
    message: 'sources[0].target: "../escape.txt" escapes the environment root',
  });
  expect(emulator.requests.length - before).toBe(1);
});
