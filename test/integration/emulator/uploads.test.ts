/**
 * File uploads through the official client's resumable protocol: chunked and empty files, overwrite,
 * tar / tar.gz extraction (and refusal of entries escaping the target), partial uploads never
 * visible, sessions bound to their key and swept when expired.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ApiError, type GoogleGenAI } from "@google/genai";
import * as tar from "tar";
import { inline, OTHER_KEY, startTestEmulator, type TestEmulator, officialClient } from "../../support/emulator";

let emulator: TestEmulator;
let ai: GoogleGenAI;
let work: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  ai = officialClient(emulator.url);
  work = await fs.mkdtemp(path.join(os.tmpdir(), "genv-upload-test-"));
});
afterAll(async () => {
  await emulator.close();
  await fs.rm(work, { recursive: true, force: true });
});

const newEnvironment = async (sources = [inline("main.py", "print(1)")]) => (await ai.environments.create({ sources })).id;
const download = async (environment: string, file: string) => Buffer.from(await ai.environments.files.download({ environment, path: file }));
const uploadError = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected the upload to fail");
    },
    (error: ApiError) => ({ status: error.status, body: JSON.parse(error.message).error }),
  );

async function archive(name: string, files: Record<string, string>, options: { gzip?: boolean; entries?: string[]; preservePaths?: boolean } = {}) {
  const dir = path.join(work, `src-${name}`);
  for (const [file, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    if (content.startsWith("symlink:")) await fs.symlink(content.slice("symlink:".length), path.join(dir, file));
    else await fs.writeFile(path.join(dir, file), content);
  }
  const file = path.join(work, name);
  await tar.c({ file, cwd: dir, gzip: options.gzip ?? false, portable: true, preservePaths: options.preservePaths }, options.entries ?? Object.keys(files));
  return new Uint8Array(await fs.readFile(file));
}

test("a 9 MiB + 5 B file goes in two chunks, and the environment's stats follow", async () => {
  const environment = await newEnvironment();
  const bytes = Buffer.alloc(9 * 1024 * 1024 + 5);
  for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i % 251;
  const before = emulator.requests.length;
  const result = await ai.environments.files.upload({ environment, path: "data/big.bin", file: new Uint8Array(bytes) });
  const calls = emulator.requests.slice(before).map((entry) => `${entry.method} ${entry.path.replace(/[0-9a-f]{32}/, "S")} ${entry.status}`);
  expect(calls).toEqual([
    `PUT /upload/v1/environments/${environment}/files/data/big.bin 200`,
    "POST /upload/v1/uploads/S 200",
    "POST /upload/v1/uploads/S 200",
  ]);
  expect(result.files).toEqual([
    expect.objectContaining({ name: "big.bin", path: "data/big.bin", type: "file", size_bytes: String(bytes.length), mime_type: "application/octet-stream" }),
  ]);
  expect((await download(environment, "data/big.bin")).equals(bytes)).toBe(true);
  const after = await ai.environments.get(environment);
  expect(after).toMatchObject({ file_count: "2", size_bytes: String(8 + bytes.length) });
  expect(emulator.uploads.activeSessions).toBe(0);
});

test("an empty file, a Blob, environments/ prefix and an encoded path", async () => {
  const environment = await newEnvironment();
  const empty = await ai.environments.files.upload({ environment: `environments/${environment}`, path: "/empty.txt", file: new Uint8Array() });
  expect(empty.files).toEqual([expect.objectContaining({ path: "empty.txt", size_bytes: "0", mime_type: "text/plain" })]);
  await ai.environments.files.upload({ environment, path: "dir with space/ü é/a+b=c.json", file: new Blob(['{"a":1}'], { type: "application/json" }) });
  expect((await download(environment, "dir with space/ü é/a+b=c.json")).toString()).toBe('{"a":1}');
  expect((await ai.environments.get(environment)).file_count).toBe("3");
});

test("overwrite defaults to false: an existing file is 409; overwrite: true replaces it", async () => {
  const environment = await newEnvironment();
  const error = await uploadError(ai.environments.files.upload({ environment, path: "main.py", file: new Uint8Array([1]) }));
  expect(error).toMatchObject({ status: 409, body: { status: "ALREADY_EXISTS", message: expect.stringContaining('path: "main.py" already exists') } });
  expect((await download(environment, "main.py")).toString()).toBe("print(1)");
  await ai.environments.files.upload({ environment, path: "main.py", file: new TextEncoder().encode("print(2)"), overwrite: true });
  expect((await download(environment, "main.py")).toString()).toBe("print(2)");

  const onDirectory = await uploadError(ai.environments.files.upload({ environment, path: "x", file: new Uint8Array([1]) }).then(() =>
    ai.environments.files.upload({ environment, path: "x/y", file: new Uint8Array([1]) }),
  ));
  expect(onDirectory).toMatchObject({ status: 400, body: { message: expect.stringContaining('needs "x" to be a directory') } });
});

test("extract: a tar.gz unpacks under the path; a plain tar too", async () => {
  const environment = await newEnvironment();
  const gz = await archive("a.tar.gz", { "README.md": "# hi", "src/app.py": "print('app')", "src/link.py": "symlink:app.py" }, { gzip: true });
  const result = await ai.environments.files.upload({ environment, path: "workspace/proj", file: gz, extract: true });
  expect(result.files.map((file: { path: string }) => file.path)).toEqual(["workspace/proj/README.md", "workspace/proj/src/app.py"]);
  expect((await download(environment, "workspace/proj/src/app.py")).toString()).toBe("print('app')");
  expect((await download(environment, "workspace/proj/src/link.py")).toString()).toBe("print('app')");

  const plain = await archive("b.tar", { "notes.txt": "n" });
  await ai.environments.files.upload({ environment, path: "", file: plain, extract: true });
  expect((await download(environment, "notes.txt")).toString()).toBe("n");

  // Unpacking over existing files needs overwrite.
  const again = await uploadError(ai.environments.files.upload({ environment, path: "workspace/proj", file: gz, extract: true }));
  expect(again).toMatchObject({ status: 409, body: { message: expect.stringContaining("workspace/proj/README.md") } });
  await ai.environments.files.upload({ environment, path: "workspace/proj", file: gz, extract: true, overwrite: true });
  expect((await ai.environments.get(environment)).file_count).toBe("4");
});

test("extract refuses entries escaping the target, links pointing out and non-archives, changing nothing", async () => {
  const environment = await newEnvironment();
  await fs.writeFile(path.join(work, "outside.txt"), "x");
  const dotdot = await archive("dotdot.tar", { "inner/ok.txt": "ok" }, { entries: ["inner/ok.txt", "../outside.txt"], preservePaths: true });
  const absoluteLink = await archive("abs.tar", { "ok.txt": "ok", "passwd": "symlink:/etc/passwd" });
  const upLink = await archive("up.tar", { "ok.txt": "ok", "sub/up": "symlink:../../secret" });
  const trick = await archive("trick.tar", { "d": "symlink:.", "l": "symlink:d/../x" });
  const cases: [Uint8Array, string][] = [
    [dotdot, "escapes the target directory"],
    [absoluteLink, 'symlink "passwd" points outside'],
    [upLink, 'symlink "sub/up" points outside'],
    [trick, 'symlink "l" points outside'],
    [new TextEncoder().encode("not a tar at all, just some text that is long enough to look like something"), "file: "],
  ];
  for (const [file, message] of cases) {
    const error = await uploadError(ai.environments.files.upload({ environment, path: "w", file, extract: true }));
    expect(error).toMatchObject({ status: 400, body: { status: "INVALID_ARGUMENT", message: expect.stringContaining(message) } });
  }
  const root = await ai.environments.files.list({ environment, path: "" });
  expect(root.files!.map((file) => file.path)).toEqual(["main.py"]);
  await expect(fs.access(path.join(emulator.dataDir, "outside.txt"))).rejects.toMatchObject({ code: "ENOENT" });
});

test("a partial upload (start + one non-final chunk) is never visible, and offsets are checked", async () => {
  const environment = await newEnvironment();
  const start = await emulator.call(`/upload/v1beta/environments/${environment}/files/partial.bin?overwrite=false`, {
    method: "PUT",
    headers: {
      "X-Goog-Upload-Command": "start",
      "X-Goog-Upload-Header-Content-Length": "10",
      "X-Goog-Upload-Header-Content-Type": "application/octet-stream",
      "X-Goog-Upload-Protocol": "resumable",
    },
  });
  expect(start.status).toBe(200);
  expect(start.headers.get("x-goog-upload-status")).toBe("active");
  const url = start.headers.get("x-goog-upload-url")!;
  expect(url).toMatch(new RegExp(`^${emulator.url}/upload/v1beta/uploads/[0-9a-f]{32}$`));
  const sessionPath = url.slice(emulator.url.length);

  const chunk = (offset: number, body: Uint8Array, command = "upload", key?: string | null) =>
    emulator.call(sessionPath, { method: "POST", body, key, headers: { "X-Goog-Upload-Command": command, "X-Goog-Upload-Offset": String(offset) } });
  expect((await chunk(0, new Uint8Array(4))).status).toBe(200);
  const files = await ai.environments.files.list({ environment, path: "" });
  expect(files.files!.map((file) => file.path)).toEqual(["main.py"]);
  expect((await ai.environments.get(environment)).file_count).toBe("1");

  const wrongOffset = await chunk(0, new Uint8Array(6), "upload, finalize");
  expect(wrongOffset.status).toBe(400);
  expect(((await wrongOffset.json()) as any).error.message).toContain("X-Goog-Upload-Offset: expected 4");
  expect((await chunk(4, new Uint8Array(7), "upload, finalize")).status).toBe(400); // past the declared length
  expect((await chunk(4, new Uint8Array(2), "upload, finalize")).status).toBe(400); // finalize short of it

  // Another key cannot use the session; no key at all is refused before that.
  expect((await chunk(6, new Uint8Array(4), "upload, finalize", OTHER_KEY)).status).toBe(404);
  expect((await chunk(6, new Uint8Array(4), "upload, finalize", null)).status).toBe(403);

  const done = await chunk(6, new Uint8Array([1, 2, 3, 4]), "upload, finalize");
  expect(done.status).toBe(200);
  expect(done.headers.get("content-type")).toMatch(/^application\/json/);
  expect(((await done.json()) as any).files).toEqual([expect.objectContaining({ path: "partial.bin", size_bytes: "10" })]);
  expect([...(await download(environment, "partial.bin"))]).toEqual([0, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
  expect((await chunk(10, new Uint8Array(), "finalize")).status).toBe(404); // the session ended
});

test("bad start requests: unknown environment 404, bad path 400, expired-less key checks", async () => {
  const error = await ai.environments.files.upload({ environment: "env_nope", path: "a", file: new Uint8Array([1]) }).catch((e) => e);
  expect(error.status).toBe(404);
  const environment = await newEnvironment();
  const other = officialClient(emulator.url, OTHER_KEY);
  expect((await other.environments.files.upload({ environment, path: "a", file: new Uint8Array([1]) }).catch((e) => e)).status).toBe(404);
  const empty = await ai.environments.files.upload({ environment, path: "", file: new Uint8Array([1]) }).catch((e) => e);
  expect(empty.status).toBe(400);
  expect(empty.error.error.message).toMatch(/^path: is empty/);
});

test("sessions expire and their staged bytes are swept", async () => {
  let now = Date.now();
  const clocked = await startTestEmulator({ now: () => now, uploadSessionTtlMs: 60_000 });
  try {
    const environment = (await clocked.json("/v1/environments", { method: "POST", body: "{}" })).body.id;
    const start = await clocked.call(`/upload/v1/environments/${environment}/files/late.bin`, {
      method: "PUT",
      headers: { "X-Goog-Upload-Command": "start", "X-Goog-Upload-Header-Content-Length": "3", "X-Goog-Upload-Protocol": "resumable" },
    });
    const sessionPath = start.headers.get("x-goog-upload-url")!.slice(clocked.url.length);
    await clocked.call(sessionPath, { method: "POST", body: new Uint8Array(1), headers: { "X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0" } });
    const staging = path.join(clocked.dataDir, "tmp", "uploads");
    expect(await fs.readdir(staging)).toHaveLength(1);

    now += 61_000;
    await clocked.uploads.sweep();
    expect(await fs.readdir(staging)).toEqual([]);
    const late = await clocked.call(sessionPath, { method: "POST", body: new Uint8Array(2), headers: { "X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "1" } });
    expect(late.status).toBe(404);

    // `updated` moves when a file lands.
    const before = (await clocked.json(`/v1/environments/${environment}`)).body;
    now += 5_000;
    const again = await clocked.call(`/upload/v1/environments/${environment}/files/late.bin`, {
      method: "PUT",
      headers: { "X-Goog-Upload-Command": "start", "X-Goog-Upload-Header-Content-Length": "0" },
    });
    const finalize = await clocked.call(again.headers.get("x-goog-upload-url")!.slice(clocked.url.length), {
      method: "POST",
      headers: { "X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0" },
    });
    expect(finalize.status).toBe(200);
    const after = (await clocked.json(`/v1/environments/${environment}`)).body;
    expect(after.updated > before.updated).toBe(true);
    expect(after.last_accessed > before.last_accessed).toBe(true);
    expect(after.file_count).toBe("1");
  } finally {
    await clocked.close();
  }
});

test("every reply on the upload URLs says where the session stands (X-Goog-Upload-Status), errors included", async () => {
  const environment = await newEnvironment();
  const start = (file: string, length: number, key?: string | null, query = "") =>
    emulator.call(`/upload/v1/environments/${environment}/files/${file}${query}`, {
      method: "PUT",
      key,
      headers: { "X-Goog-Upload-Command": "start", "X-Goog-Upload-Header-Content-Length": String(length), "X-Goog-Upload-Protocol": "resumable" },
    });
  const chunk = (url: string, offset: number, body: Uint8Array, command: string, key?: string | null) =>
    emulator.call(url.slice(emulator.url.length), { method: "POST", body, key, headers: { "X-Goog-Upload-Command": command, "X-Goog-Upload-Offset": String(offset) } });
  const status = async (response: Response) => {
    await response.arrayBuffer();
    return [response.status, response.headers.get("x-goog-upload-status")];
  };

  // Refused at start: no session, `final`.
  expect(await status(await start("a.txt", 1, "wrong-key"))).toEqual([400, "final"]);
  expect(await status(await start("", 1))).toEqual([400, "final"]);
  expect(await status(await emulator.call("/upload/v1/environments/env_nope/files/a", { method: "PUT", headers: { "X-Goog-Upload-Command": "start", "X-Goog-Upload-Header-Content-Length": "1" } }))).toEqual([404, "final"]);

  // Refused chunks that the client may send again leave the session `active`.
  const url = (await start("a.txt", 4)).headers.get("x-goog-upload-url")!;
  expect(await status(await chunk(url, 0, new Uint8Array(2), "upload"))).toEqual([200, "active"]);
  expect(await status(await chunk(url, 0, new Uint8Array(2), "upload"))).toEqual([400, "active"]); // wrong offset
  expect(await status(await chunk(url, 2, new Uint8Array(3), "upload"))).toEqual([400, "active"]); // past the length
  expect(await status(await chunk(url, 2, new Uint8Array(), "upload, finalize"))).toEqual([400, "active"]); // short
  expect(await status(await chunk(url, 2, new Uint8Array(), "frobnicate"))).toEqual([400, "active"]);
  // Another key, or none: not this caller's session, `final` (and the session is still there for its owner).
  expect(await status(await chunk(url, 2, new Uint8Array(2), "upload, finalize", OTHER_KEY))).toEqual([404, "final"]);
  expect(await status(await chunk(url, 2, new Uint8Array(2), "upload, finalize", null))).toEqual([403, "final"]);
  expect(await status(await chunk(url, 2, new Uint8Array(2), "upload, finalize"))).toEqual([200, "final"]);
  expect(await status(await chunk(url, 4, new Uint8Array(), "finalize"))).toEqual([404, "final"]); // over

  // A refused finalize ends the session: 409 and 400 say `final`, and the session is gone.
  const again = (await start("a.txt", 1)).headers.get("x-goog-upload-url")!;
  expect(await status(await chunk(again, 0, new Uint8Array(1), "upload, finalize"))).toEqual([409, "final"]);
  expect(await status(await chunk(again, 1, new Uint8Array(), "query"))).toEqual([404, "final"]);
  const bad = (await start("w", 11, undefined, "?extract=true")).headers.get("x-goog-upload-url")!;
  expect(await status(await chunk(bad, 0, new TextEncoder().encode("not a tar!!"), "upload, finalize"))).toEqual([400, "final"]);
  expect(emulator.uploads.activeSessions).toBe(0);
});
