/**
 * An environment's byte and file limits held against tool calls, over real HTTP with the real
 * sandbox: an emulator with 8 MiB and 50 files per environment. A call that leaves the tree over a
 * limit has its growth undone and answers 200 with the tool's result, its `error` saying so.
 */
import { readdirSync, readFileSync, lstatSync } from "node:fs";
import * as path from "node:path";
import { inline, startTestEmulator, type TestEmulator } from "../../support/emulator";

const MiB = 1024 ** 2;
const LIMITS = { maxBytes: 8 * MiB, maxFiles: 50 };
let emulator: TestEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator(LIMITS);
});
afterAll(() => emulator.close());

async function createEnvironment(sources: unknown[]): Promise<string> {
  const created = await emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ sources }) });
  expect(created.status).toBe(200);
  return created.body.id;
}

async function code(id: string, script: string) {
  const { status, body } = await emulator.json(`/v1beta/environments/${id}:executeTool`, {
    method: "POST",
    body: JSON.stringify({ tool_call: { name: "code_execution", args: { code: script } } }),
  });
  expect(status).toBe(200);
  return body;
}

async function stats(id: string): Promise<{ files: number; bytes: number }> {
  const { body } = await emulator.json(`/v1beta/environments/${id}`);
  return { files: Number(body.file_count), bytes: Number(body.size_bytes) };
}

/** The tree on disk: every regular file and its size, as the emulator counts them. */
function onDisk(id: string): Record<string, number> {
  const root = path.join(emulator.dataDir, "trees", id);
  const files: Record<string, number> = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isFile()) files[path.relative(root, full)] = lstatSync(full).size;
  }
  return files;
}

const sum = (files: Record<string, number>) => Object.values(files).reduce((a, b) => a + b, 0);
const readTree = (id: string, relative: string) => readFileSync(path.join(emulator.dataDir, "trees", id, relative), "utf8");

test("three 5 MiB files: the limit error, the files removed, the files from before intact, a later call within budget works", async () => {
  const id = await createEnvironment([inline("workspace/keep.txt", "keep me\n"), inline("workspace/log.txt", "line 1\n")]);
  const body = await code(id, "for i in 1 2 3; do head -c 5242880 /dev/zero > /workspace/big$i; done; echo wrote");
  expect(body).toEqual({
    decision: "allow",
    output: "wrote\n",
    exit_code: 0,
    error: "environment limit exceeded: the call would leave 15.0 MiB in 5 files (limit 8 MiB and 50 files); the 3 files it created were removed",
    hooks: [],
  });
  expect(await stats(id)).toEqual({ files: 2, bytes: 15 });
  expect(onDisk(id)).toEqual({ "workspace/keep.txt": 8, "workspace/log.txt": 7 });
  expect(readTree(id, "workspace/keep.txt")).toBe("keep me\n");
  expect(readTree(id, "workspace/log.txt")).toBe("line 1\n");

  const later = await code(id, "head -c 1048576 /dev/zero > /workspace/one; echo ok");
  expect(later).toEqual({ decision: "allow", output: "ok\n", exit_code: 0, hooks: [] });
  expect(await stats(id)).toEqual({ files: 3, bytes: 15 + MiB });
});

test("a file from before appended past the limit is cut back to its size before the call, content intact", async () => {
  const id = await createEnvironment([inline("workspace/log.txt", "a".repeat(1000))]);
  expect((await code(id, "head -c 6291456 /dev/zero > /workspace/data.bin; echo ok")).output).toBe("ok\n"); // 6 MiB: fits
  const body = await code(id, "head -c 1572864 /dev/zero >> /workspace/log.txt && head -c 1572864 /dev/zero > /workspace/new.bin; echo rc=$?");
  expect(body.output).toBe("rc=0\n");
  expect(body.error).toMatch(
    /^environment limit exceeded: the call would leave 9\.00 MiB in 3 files \(limit 8 MiB and 50 files\); the 1 file it created was removed and the 1 file it grew was cut back to its size before the call$/,
  );
  expect(onDisk(id)).toEqual({ "workspace/log.txt": 1000, "workspace/data.bin": 6 * MiB });
  expect(readTree(id, "workspace/log.txt")).toBe("a".repeat(1000));
  expect(await stats(id)).toEqual({ files: 2, bytes: 1000 + 6 * MiB });
});

test("60 small files: the count limit error, and back to the files from before", async () => {
  const id = await createEnvironment([inline("workspace/a.txt", "abc"), inline("workspace/b.txt", "de")]);
  const body = await code(id, "mkdir -p /workspace/many && for i in $(seq 60); do echo $i > /workspace/many/f$i; done");
  expect(body).toMatchObject({
    exit_code: 0,
    error: "environment limit exceeded: the call would leave 176 bytes in 62 files (limit 8 MiB and 50 files); the 60 files it created were removed",
  });
  expect(await stats(id)).toEqual({ files: 2, bytes: 5 });
  expect(onDisk(id)).toEqual({ "workspace/a.txt": 3, "workspace/b.txt": 2 });
  expect(readdirSync(path.join(emulator.dataDir, "trees", id, "workspace/many"))).toEqual([]); // directories may stay
});

test("one file larger than the remaining budget fails inside the call with EFBIG (RLIMIT_FSIZE)", async () => {
  const id = await createEnvironment([inline("workspace/a.txt", "abc")]);
  const python = [
    "import errno",
    "try:",
    "    open('/workspace/x', 'wb').write(b'\\0' * (9 << 20))",
    "except OSError as e:",
    "    print(errno.errorcode[e.errno])",
  ].join("\n");
  const { status, body } = await emulator.json(`/v1beta/environments/${id}:executeTool`, {
    method: "POST",
    body: JSON.stringify({ tool_call: { name: "code_execution", args: { code: python, language: "python" } } }),
  });
  expect(status).toBe(200);
  expect(body.output).toBe("EFBIG\n");
  const dd = await code(id, "dd if=/dev/zero of=/workspace/y bs=1M count=9 2>/dev/null; echo rc=$?");
  expect(dd.output).toBe("rc=153\n"); // SIGXFSZ
  const { bytes } = await stats(id);
  expect(bytes).toBeLessThanOrEqual(LIMITS.maxBytes);
  expect(sum(onDisk(id))).toBe(bytes);
});

test("hooks' writes count too: a post hook that writes past the limit is undone, the tool's result carries the error", async () => {
  const hooks = {
    filler: {
      post_tool_execution: [
        { matcher: "code_execution", hooks: [{ type: "command", command: "mkdir -p /workspace; for i in 1 2; do head -c 5242880 /dev/zero > /workspace/hook$i; done" }] },
      ],
    },
  };
  const id = await createEnvironment([inline(".agents/hooks.json", JSON.stringify(hooks))]);
  const body = await code(id, "echo hi");
  expect(body).toMatchObject({
    decision: "allow",
    output: "hi\n",
    error: expect.stringMatching(/^environment limit exceeded: the call would leave 10\.0 MiB in 3 files .*; the 2 files it created were removed$/),
  });
  expect(body.hooks).toEqual([expect.objectContaining({ group: "filler", decision: "ignored" })]);
  expect(body.hooks[0].failure).toBeUndefined();
  expect(Object.keys(onDisk(id))).toEqual([".agents/hooks.json"]);
});

test("a file uploaded between calls is not taken for the next call's growth", async () => {
  const id = await createEnvironment([inline("workspace/a.txt", "abc")]);
  expect((await code(id, "echo warm")).output).toBe("warm\n"); // the tree's walk is now remembered
  const start = await emulator.call(`/upload/v1beta/environments/${id}/files/workspace/up.txt?overwrite=false`, {
    method: "PUT",
    headers: { "X-Goog-Upload-Command": "start", "X-Goog-Upload-Header-Content-Length": "5", "X-Goog-Upload-Protocol": "resumable" },
  });
  const session = start.headers.get("x-goog-upload-url")!.slice(emulator.url.length);
  const done = await emulator.call(session, { method: "POST", body: "hello", headers: { "X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0" } });
  expect(done.status).toBe(200);

  const body = await code(id, "for i in 1 2; do head -c 5242880 /dev/zero > /workspace/big$i; done");
  expect(body.error).toMatch(/^environment limit exceeded: .*; the 2 files it created were removed$/);
  expect(onDisk(id)).toEqual({ "workspace/a.txt": 3, "workspace/up.txt": 5 });
  expect(await stats(id)).toEqual({ files: 2, bytes: 8 });
});
