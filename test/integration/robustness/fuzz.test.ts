/**
 * Property-based requests at every route (fast-check, seeded, bounded): bodies, paths, query
 * parameters and headers made to break things. Whatever arrives, the emulator answers — no 5xx,
 * every non-2xx in Google's `{"error": {code, message, status}}` — and writes nothing outside its
 * data directory.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { inline, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";

const SEED = 20261130;
const RUNS = 1000;

let emulator: TestEmulator;
let id: string;
let watched: string;
let before: string[];
const internal: unknown[] = [];

beforeAll(async () => {
  // A directory beside the data directory: what a path escape would write into.
  watched = mkdtempSync(path.join(os.tmpdir(), "genv-fuzz-outside-"));
  emulator = await startTestEmulator({ dataDir: path.join(watched, "data"), onInternalError: (error) => internal.push(error) });
  const created = await emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ sources: [inline("workspace/a.txt", "a")] }) });
  id = created.body.id;
  before = readdirSync(watched);
});
afterAll(async () => {
  await emulator.close();
  rmSync(watched, { recursive: true, force: true });
});

const segment = fc.oneof(
  fc.constantFrom("..", ".", "%2e%2e", "%2F", "%00", "a%2Fb", "environments", "files", "~", "%", "%zz", "a".repeat(300), "\u00e9", "%E9"),
  fc.string({ minLength: 0, maxLength: 12 }).map(encodeURIComponent),
);
const pathArb = fc.array(segment, { minLength: 0, maxLength: 6 }).map((segments) => segments.join("/"));
const json = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc.constantFrom("", "{", "null", "[]", '{"sources":[{"type":"inline","target":"../x","content":"x"}]}', '{"sources":[{"type":"inline","target":"/etc/x","content":"x"}]}'),
  fc.record({
    sources: fc.array(fc.record({ type: fc.constantFrom("inline", "repository", "gcs", "skill_registry", "other"), target: pathArb, content: fc.string(), encoding: fc.constantFrom("base64", "utf8", undefined) }, { requiredKeys: [] }), { maxLength: 3 }),
    network: fc.oneof(fc.constant("disabled"), fc.record({ allowlist: fc.array(fc.record({ domain: fc.string({ maxLength: 20 }) }), { maxLength: 2 }) }), fc.jsonValue({ maxDepth: 2 })),
    from_environment: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 30 })),
  }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
);
const query = fc.array(
  fc.tuple(fc.constantFrom("page_size", "page_token", "recursive", "alt", "key", "overwrite", "extract", "mode"), fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("-1", "99999999999999999999", "media", "true", "1e3", "NaN"))),
  { maxLength: 3 },
).map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join("&")}`));

const route = fc.oneof(
  fc.record({ method: fc.constantFrom("POST", "GET", "PUT", "PATCH"), path: fc.constant("/v1beta/environments"), body: json }),
  fc.record({ method: fc.constantFrom("GET", "DELETE", "POST"), path: pathArb.map((p) => `/v1beta/environments/${p}`), body: json }),
  fc.record({ method: fc.constantFrom("GET"), path: pathArb.map((p) => `/v1beta/environments/{id}/files/${p}`), body: fc.constant("") }),
  fc.record({ method: fc.constant("POST"), path: fc.constant("/v1beta/environments/{id}:executeTool"), body: fc.oneof(json, fc.record({ tool_call: fc.record({ name: fc.constantFrom("view_file", "list_dir", "nope", ""), args: fc.record({ path: pathArb.map((p) => `/${p}`) }, { requiredKeys: [] }) }) }).map((v) => JSON.stringify(v))) }),
  fc.record({ method: fc.constantFrom("PUT", "POST"), path: pathArb.map((p) => `/upload/v1beta/environments/{id}/files/${p}`), body: fc.string({ maxLength: 20 }) }),
  fc.record({ method: fc.constantFrom("POST", "GET", "PATCH", "DELETE"), path: pathArb.map((p) => `/v1beta/credentials/${p}`), body: json }),
);
const headers = fc.record({
  key: fc.oneof(fc.constant(TEST_KEY), fc.constant(undefined), fc.string({ maxLength: 8 })),
  uploadCommand: fc.oneof(fc.constant(undefined), fc.constantFrom("start", "upload", "upload, finalize", "query", "cancel", "bogus")),
  uploadLength: fc.oneof(fc.constant(undefined), fc.constantFrom("0", "-1", "abc", "99999999999999999999", "5")),
  uploadOffset: fc.oneof(fc.constant(undefined), fc.constantFrom("0", "-5", "x")),
});

test(`${RUNS} generated requests: no 5xx, every error in Google's format, nothing written outside the data dir`, async () => {
  await fc.assert(
    fc.asyncProperty(route, query, headers, async (request, search, header) => {
      const url = `${emulator.url}${request.path.replace("{id}", id)}${search}`;
      const init: RequestInit = { method: request.method, headers: {}, signal: AbortSignal.timeout(15_000) };
      const h = init.headers as Record<string, string>;
      if (header.key !== undefined) h["x-goog-api-key"] = header.key;
      if (header.uploadCommand) h["x-goog-upload-command"] = header.uploadCommand;
      if (header.uploadLength) h["x-goog-upload-header-content-length"] = header.uploadLength;
      if (header.uploadOffset) h["x-goog-upload-offset"] = header.uploadOffset;
      if (request.method !== "GET" && request.method !== "DELETE" && request.body !== "") {
        init.body = request.body;
        h["content-type"] = "application/json";
      }
      const response = await fetch(url, init);
      const text = await response.text();
      if (response.status >= 500) throw new Error(`${request.method} ${url} → ${response.status} ${text.slice(0, 300)}`);
      if (response.status >= 400) {
        const body = JSON.parse(text);
        expect(body).toEqual({ error: { code: response.status, message: expect.any(String), status: expect.stringMatching(/^[A-Z_]+$/) } });
      }
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  expect(internal).toEqual([]);
  expect(readdirSync(watched)).toEqual(before);
}, 180_000);
