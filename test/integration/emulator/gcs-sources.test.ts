/**
 * gcs sources against a real Cloud Storage JSON API (fake-gcs-server, built from Go modules by
 * scripts/fake-gcs-server on first use): prefixes, binary content, refused object names, limits,
 * and clean failures (missing bucket, unreachable or silent endpoint, bad URLs).
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { startTestEmulator, type TestEmulator } from "../../support/emulator";
import { startFakeGcs, type FakeGcs } from "../../support/fake-gcs";
import { freePort } from "../../support/ports";

let gcs: FakeGcs;
let emulator: TestEmulator;
const binary = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(70_000)]);

beforeAll(async () => {
  gcs = await startFakeGcs();
  await gcs.createBucket("data-bucket");
  const objects: Record<string, string | Buffer> = {
    "datasets/v1/README.md": "# v1",
    "datasets/v1/train/a.csv": "x,y\n1,2\n",
    "datasets/v1/train/deep/b.json": '{"b": true}',
    "datasets/v1/empty/": "", // a "folder" placeholder
    "datasets/v1/blob.bin": binary,
    "datasets/v10/other.txt": "not under datasets/v1/",
    "single/config.yaml": "k: v",
    "escape/ok.txt": "fine",
    "escape/../../../outside.txt": "evil",
    "backslash/a\\b.txt": "x",
    "doubled/a//b.txt": "x",
    "dotted/./a.txt": "x",
    "conflict/a": "file",
    "conflict/a/b": "needs a to be a directory",
  };
  for (const [name, content] of Object.entries(objects)) await gcs.putObject("data-bucket", name, content);
  await gcs.createBucket("small-bucket");
  await gcs.putObject("small-bucket", "one.txt", "1");
  await gcs.putObject("small-bucket", "dir/two.txt", "22");
  emulator = await startTestEmulator({ gcsEndpoint: gcs.url });
}, 300_000); // the first run builds fake-gcs-server (about a minute)

afterAll(async () => {
  await emulator?.close();
  await gcs?.close();
});

const create = (sources: unknown[], on: TestEmulator = emulator) =>
  on.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ sources }) });
const paths = async (id: string) =>
  ((await emulator.json(`/v1beta/environments/${id}/files/?recursive=true`)).body.files as { path: string; type?: string }[])
    .filter((file) => file.type !== "directory")
    .map((file) => file.path)
    .sort();
const bytes = async (id: string, file: string) => Buffer.from(await (await emulator.call(`/v1beta/environments/${id}/files/${file}?alt=media`)).arrayBuffer());

test("a prefix lands under its last segment with nested paths intact; placeholders and siblings stay out", async () => {
  const { status, body } = await create([{ type: "gcs", source: "gs://data-bucket/datasets/v1" }]);
  expect(status).toBe(200);
  expect(await paths(body.id)).toEqual(["v1/README.md", "v1/blob.bin", "v1/train/a.csv", "v1/train/deep/b.json"]);
  expect((await bytes(body.id, "v1/train/deep/b.json")).toString()).toBe('{"b": true}');
  const size = ["# v1", "x,y\n1,2\n", '{"b": true}'].reduce((sum, text) => sum + Buffer.byteLength(text), binary.length);
  expect({ file_count: body.file_count, size_bytes: body.size_bytes }).toEqual({ file_count: "4", size_bytes: String(size) });
  const got = await emulator.json(`/v1beta/environments/${body.id}`);
  expect({ file_count: got.body.file_count, size_bytes: got.body.size_bytes }).toEqual({ file_count: "4", size_bytes: String(size) });
});

test("binary content arrives byte for byte", async () => {
  const { body } = await create([{ type: "gcs", source: "gs://data-bucket/datasets/v1/", target: "data/in" }]);
  expect((await bytes(body.id, "data/in/blob.bin")).equals(binary)).toBe(true);
});

test("a whole bucket lands under its name; gcs:// works too, next to other sources", async () => {
  const { status, body } = await create([
    { type: "gcs", source: "gcs://small-bucket" },
    { type: "inline", target: "small-bucket/extra.txt", content: "e" },
  ]);
  expect(status).toBe(200);
  expect(await paths(body.id)).toEqual(["small-bucket/dir/two.txt", "small-bucket/extra.txt", "small-bucket/one.txt"]);
  expect(body.file_count).toBe("3");
});

test("a prefix naming one object copies that file", async () => {
  const { body } = await create([
    { type: "gcs", source: "gs://data-bucket/single/config.yaml" },
    { type: "gcs", source: "gs://data-bucket/single/config.yaml", target: "conf/app.yaml" },
  ]);
  expect(await paths(body.id)).toEqual(["conf/app.yaml", "config.yaml"]);
  expect((await bytes(body.id, "conf/app.yaml")).toString()).toBe("k: v");
});

test("a missing bucket is a 400 naming the source", async () => {
  const { status, body } = await create([{ type: "inline", target: "a.txt", content: "a" }, { type: "gcs", source: "gs://no-such-bucket/x" }]);
  expect(status).toBe(400);
  expect(body).toMatchInlineSnapshot(`
    {
      "error": {
        "code": 400,
        "message": "sources[1].source: cannot read "gs://no-such-bucket/x": no such bucket",
        "status": "FAILED_PRECONDITION",
      },
    }
  `);
});

test("a prefix with no objects is a 400", async () => {
  const { status, body } = await create([{ type: "gcs", source: "gs://data-bucket/nothing/here" }]);
  expect(status).toBe(400);
  expect(body.error.message).toBe('sources[0].source: "gs://data-bucket/nothing/here" matches no objects');
});

test.each([
  ["escape", 'object "escape/../../../outside.txt" has a ".." path segment; such objects are refused'],
  ["backslash", 'object "backslash/a\\\\b.txt" contains a backslash; such objects are refused'],
  ["doubled", 'object "doubled/a//b.txt" has an empty path segment; such objects are refused'],
  ["dotted", 'object "dotted/./a.txt" has a "." path segment; such objects are refused'],
  ["conflict", 'object "conflict/a" is a file, but "conflict/a/b" needs it to be a directory'],
])("objects under %s/ are refused as a whole and nothing is created", async (prefix, message) => {
  const before = (await emulator.json("/v1beta/environments")).body.environments?.length ?? 0;
  const { status, body } = await create([{ type: "gcs", source: `gs://data-bucket/${prefix}` }]);
  expect(status).toBe(400);
  expect(body.error).toEqual({ code: 400, status: "INVALID_ARGUMENT", message: `sources[0].source: ${message.replace(/\\\\/g, "\\")}` });
  expect((await emulator.json("/v1beta/environments")).body.environments?.length ?? 0).toBe(before);
});

describe("limits, checked on the listing before anything is downloaded", () => {
  let limited: TestEmulator;
  beforeAll(async () => {
    limited = await startTestEmulator({ gcsEndpoint: gcs.url, maxFiles: 3, maxBytes: 70_000 });
  });
  afterAll(() => limited.close());

  test("too many files", async () => {
    const { status, body } = await create([{ type: "inline", target: "a", content: "a" }, { type: "gcs", source: "gs://small-bucket", target: "b" }, { type: "gcs", source: "gs://small-bucket" }], limited);
    expect(status).toBe(400);
    expect(body.error.message).toBe("sources: more than 3 files; split the environment or raise --max-files");
  });

  test("too many bytes", async () => {
    const { status, body } = await create([{ type: "gcs", source: "gs://data-bucket/datasets/v1" }], limited);
    expect(status).toBe(400);
    expect(body.error.message).toBe("sources: more than 70000 bytes in total; raise --max-bytes or use fewer files");
  });
});

test("bad gcs URLs are 400 INVALID_ARGUMENT", async () => {
  for (const [source, message] of [
    ["s3://bucket/x", 'sources[0].source: "s3://bucket/x" is not a Cloud Storage URL; use gs://bucket/prefix'],
    ["gs://", `sources[0].source: "" is not a bucket name (3-222 characters: a-z, 0-9, '-', '_', '.')`],
    ["gs://Data_Bucket/x", `sources[0].source: "Data_Bucket" is not a bucket name (3-222 characters: a-z, 0-9, '-', '_', '.')`],
    ["gs://data-bucket/a/../b", 'sources[0].source: prefix "a/../b" is not normalised: remove ".." segments'],
  ]) {
    const { status, body } = await create([{ type: "gcs", source }]);
    expect({ source, status, error: body.error }).toEqual({ source, status: 400, error: { code: 400, status: "INVALID_ARGUMENT", message } });
  }
});

test("an unreachable endpoint fails quickly with a 400 naming the source", async () => {
  const port = await freePort(); // closed again: connections are refused
  const unreachable = await startTestEmulator({ gcsEndpoint: `127.0.0.1:${port}` });
  try {
    const started = Date.now();
    const { status, body } = await create([{ type: "gcs", source: "gs://data-bucket/datasets/v1" }], unreachable);
    expect(status).toBe(400);
    expect(body.error.message).toBe(`sources[0].source: cannot read "gs://data-bucket/datasets/v1": cannot reach Cloud Storage at http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(Date.now() - started).toBeLessThan(15_000); // time is the point: a refused connection is not retried for long
  } finally {
    await unreachable.close();
  }
});

test("an endpoint that never answers is cut off at the timeout", async () => {
  const silent: Server = createServer(() => {}); // accepts, never responds
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const port = (silent.address() as { port: number }).port;
  const slow = await startTestEmulator({ gcsEndpoint: `http://127.0.0.1:${port}`, gcsTimeoutMs: 1_500 });
  try {
    const started = Date.now();
    const { status, body } = await create([{ type: "gcs", source: "gs://data-bucket/x" }], slow);
    expect(status).toBe(400);
    expect(body.error.message).toBe(`sources[0].source: cannot read "gs://data-bucket/x": Cloud Storage at http://127.0.0.1:${port} took longer than 1.5 s`);
    expect(Date.now() - started).toBeLessThan(5_000); // time is the point: cut at 1.5 s, not left hanging
  } finally {
    await slow.close();
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  }
});

test("STORAGE_EMULATOR_HOST is honoured as Google's clients read it (host:port, no scheme)", async () => {
  const saved = process.env.STORAGE_EMULATOR_HOST;
  process.env.STORAGE_EMULATOR_HOST = `127.0.0.1:${gcs.port}`;
  let fromEnv: TestEmulator;
  try {
    fromEnv = await startTestEmulator(); // read at start
  } finally {
    if (saved === undefined) delete process.env.STORAGE_EMULATOR_HOST;
    else process.env.STORAGE_EMULATOR_HOST = saved;
  }
  try {
    const { status, body } = await create([{ type: "gcs", source: "gs://small-bucket/dir" }], fromEnv);
    expect(status).toBe(200);
    expect(body.file_count).toBe("1");
  } finally {
    await fromEnv.close();
  }
});
