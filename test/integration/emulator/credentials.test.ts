/**
 * Credentials API: the official client's create/list/get/update/delete, write-only secrets that are
 * encrypted at rest, per-key isolation, and allowlist references checked at environment create.
 */
import { promises as fs, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { GoogleGenAI } from "@google/genai";
import { OTHER_KEY, startTestEmulator, TEST_KEY, type TestEmulator, officialClient } from "../../support/emulator";
import { ownerOf } from "../../../emulator/api";

let dataDir: string;
let emulator: TestEmulator;
let ai: GoogleGenAI;
const owner = ownerOf(TEST_KEY);

beforeAll(async () => {
  delete process.env.GENV_CREDENTIALS_KEY; // this file tests the key file
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "genv-cred-"));
  emulator = await startTestEmulator({ dataDir });
  ai = officialClient(emulator.url);
});
afterAll(async () => {
  await emulator.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** The NextGen stack's error, without retries (409 is retried by default). */
async function apiError(promise: Promise<unknown>): Promise<{ status: number; message: string; code: string }> {
  const error = (await promise.then(
    () => undefined,
    (e) => e,
  )) as { status: number; error?: { error: { message: string; status: string } } };
  expect(error).toBeDefined();
  return { status: error.status, message: error.error!.error.message, code: error.error!.error.status };
}
const once = { maxRetries: 0 };

test("the three types: create returns id, type, status and times, never a secret", async () => {
  const env = await ai.credentials.create({
    id: "my-env-cred",
    type: "environment_variable",
    value: "s3cr3t-env",
    injection_location: ["header", "query", "body"],
    trusted_domains: ["api.example.com"],
  });
  expect(Object.keys(env).filter((key) => key !== "sdkHttpResponse").sort()).toEqual(["create_time", "id", "status", "type", "update_time"]);
  expect(env).toMatchObject({ id: "my-env-cred", type: "environment_variable", status: "active" });
  expect(env.create_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const bearer = await ai.credentials.create({ id: "gh-token", type: "bearer_token", token: "ghp_s3cr3t", header_name: "Authorization", prefix: "Bearer" });
  expect(bearer).toMatchObject({ id: "gh-token", type: "bearer_token" });
  const oauth = await ai.credentials.create({
    id: "oauth-cred",
    type: "oauth2",
    client_id: "cid",
    client_secret: "csecr3t",
    refresh_token: "rtok-s3cr3t",
    token_url: "https://oauth2.example.com/token",
    scopes: ["a", "b"],
    api_version: "v1beta",
  });
  expect(oauth).toMatchObject({ id: "oauth-cred", type: "oauth2" });

  const got = await ai.credentials.get("gh-token");
  expect(JSON.stringify(got)).not.toContain("s3cr3t");
  expect(await ai.credentials.get("credentials/gh-token")).toMatchObject({ id: "gh-token" });

  expect(emulator.credentials.reveal(owner, "gh-token")).toEqual({
    id: "gh-token",
    type: "bearer_token",
    token: "ghp_s3cr3t",
    header_name: "Authorization",
    prefix: "Bearer",
  });
  expect(emulator.credentials.reveal(owner, "my-env-cred")).toMatchObject({ value: "s3cr3t-env", injection_location: ["header", "query", "body"] });
  expect(emulator.credentials.reveal(ownerOf(OTHER_KEY), "gh-token")).toBeUndefined();
});

test("secrets are encrypted at rest with a 0600 key file", async () => {
  await ai.credentials.create({ id: "at-rest", type: "bearer_token", token: "plaintext-canary-123" });
  const keyFile = path.join(dataDir, "credentials.key");
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  for (const name of await fs.readdir(dataDir)) {
    const file = path.join(dataDir, name);
    if (!(await fs.stat(file)).isFile()) continue;
    const bytes = await fs.readFile(file);
    expect(bytes.includes("plaintext-canary-123")).toBe(false);
    expect(bytes.includes("s3cr3t")).toBe(false);
  }
  expect(emulator.requests.map((entry) => entry.path).join(" ")).not.toContain("canary");
});

test("list pages like environments", async () => {
  for (const id of ["p1", "p2", "p3"]) await ai.credentials.create({ id, type: "bearer_token", token: "t" });
  const seen: string[] = [];
  let pageToken: string | undefined;
  do {
    const page = await ai.credentials.list({ page_size: 2, ...(pageToken ? { page_token: pageToken } : {}) });
    expect(page.credentials!.length).toBeLessThanOrEqual(2);
    seen.push(...page.credentials!.map((credential) => credential.id));
    pageToken = page.next_page_token;
  } while (pageToken);
  expect(seen).toEqual(expect.arrayContaining(["p1", "p2", "p3", "gh-token"]));
  expect(new Set(seen).size).toBe(seen.length);
});

test("update with and without update_mask", async () => {
  await ai.credentials.create({ id: "upd", type: "bearer_token", token: "old", header_name: "X-Token", prefix: "Token" });
  const before = await ai.credentials.get("upd");
  // The mask lists prefix but the body omits it: back to the default.
  const updated = await ai.credentials.update("upd", { type: "bearer_token", token: "new", update_mask: "token,prefix" });
  expect(updated.update_time! > before.update_time!).toBe(true);
  expect(updated.create_time).toBe(before.create_time);
  expect(emulator.credentials.reveal(owner, "upd")).toMatchObject({ token: "new", header_name: "X-Token", prefix: "Bearer" });

  // No mask: the fields present.
  await ai.credentials.update("upd", { type: "bearer_token", prefix: "" });
  expect(emulator.credentials.reveal(owner, "upd")).toMatchObject({ token: "new", header_name: "X-Token", prefix: "" });

  // Fields outside the mask are ignored.
  await ai.credentials.update("upd", { type: "bearer_token", token: "ignored", header_name: "X-Other", update_mask: "header_name" });
  expect(emulator.credentials.reveal(owner, "upd")).toMatchObject({ token: "new", header_name: "X-Other" });

  await ai.credentials.create({ id: "envu", type: "environment_variable", value: "v", injection_location: "header" });
  await ai.credentials.update("envu", { type: "environment_variable", injection_location: "query", trusted_domains: [] });
  expect(emulator.credentials.reveal(owner, "envu")).toMatchObject({ value: "v", injection_location: ["query"], trusted_domains: [] });

  expect(await apiError(ai.credentials.update("upd", { type: "bearer_token", update_mask: "token" }, once))).toMatchObject({
    status: 400,
    message: expect.stringContaining("token: is required"),
  });
  expect(await apiError(ai.credentials.update("upd", { type: "bearer_token", update_mask: "scopes" }, once))).toMatchObject({
    status: 400,
    message: expect.stringContaining('update_mask: "scopes"'),
  });
  expect(await apiError(ai.credentials.update("upd", { type: "oauth2", client_id: "x" } as never, once))).toMatchObject({
    status: 400,
    message: expect.stringContaining("type: credential upd is a bearer_token credential"),
  });
  expect(await apiError(ai.credentials.update("nope", { type: "bearer_token", token: "x" }, once))).toMatchObject({ status: 404 });
});

test("errors: duplicate 409, unknown 404, bad input 400 naming the field and never the secret", async () => {
  await ai.credentials.create({ id: "dup", type: "bearer_token", token: "t" });
  expect(await apiError(ai.credentials.create({ id: "dup", type: "bearer_token", token: "t" }, once))).toMatchObject({
    status: 409,
    code: "ALREADY_EXISTS",
  });
  expect(await apiError(ai.credentials.get("missing"))).toMatchObject({ status: 404, code: "NOT_FOUND" });
  expect(await apiError(ai.credentials.delete("missing"))).toMatchObject({ status: 404 });

  const cases: [Record<string, unknown>, string][] = [
    [{ id: "x", type: "http_bearer", token: "t" }, "type: must be one of environment_variable, bearer_token, oauth2"],
    [{ id: "x", type: "bearer_token" }, "token:"],
    [{ type: "bearer_token", token: "t" }, "id:"],
    [{ id: "a/b", type: "bearer_token", token: "t" }, "id: must be"],
    [{ id: "x", type: "bearer_token", token: "bad\r\nsecret-zz" }, "token: may not contain CR, LF or NUL"],
    [{ id: "x", type: "environment_variable", value: "v", injection_location: [] }, "injection_location: must name at least one"],
    [{ id: "x", type: "environment_variable", value: "v", injection_location: "cookie" }, "injection_location"],
    [{ id: "x", type: "oauth2", client_id: "c", client_secret: "s", refresh_token: "r", token_url: "nope" }, "token_url: must be an absolute http(s) URL"],
    [{ id: "x", type: "bearer_token", token: "t", extra: 1 }, "extra: is not a known field"],
  ];
  for (const [body, expected] of cases) {
    const error = await apiError(ai.credentials.create(body as never, once));
    expect(error).toMatchObject({ status: 400, code: "INVALID_ARGUMENT" });
    expect(error.message).toContain(expected);
    expect(error.message).not.toContain("secret-zz");
  }
});

test("delete answers {} and each key sees only its own credentials", async () => {
  await ai.credentials.create({ id: "mine", type: "bearer_token", token: "t" });
  const other = officialClient(emulator.url, OTHER_KEY);
  expect(await apiError(other.credentials.get("mine"))).toMatchObject({ status: 404 });
  expect((await other.credentials.list()).credentials ?? []).toEqual([]);
  // The same id under another key is another credential.
  await other.credentials.create({ id: "mine", type: "bearer_token", token: "theirs" });
  expect(emulator.credentials.reveal(owner, "mine")).toMatchObject({ token: "t" });

  const deleted = await ai.credentials.delete("mine");
  expect(Object.keys(deleted).filter((key) => key !== "sdkHttpResponse")).toEqual([]);
  const raw = await emulator.call("/v1/credentials/mine", { method: "DELETE", key: OTHER_KEY });
  expect(raw.headers.get("content-type")).toMatch(/^application\/json/);
  expect(await raw.text()).toBe("{}");
  expect(await apiError(ai.credentials.get("mine"))).toMatchObject({ status: 404 });
});

test("allowlist entries must reference an existing credential of the same key", async () => {
  await ai.credentials.create({ id: "cred-gh", type: "bearer_token", token: "t" });
  const environment = await ai.environments.create({ network: { allowlist: [{ domain: "api.github.com", credential: "cred-gh" }] } });
  expect(environment.network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "cred-gh" }] });

  const error = await apiError(
    ai.environments.create({ network: { allowlist: [{ domain: "*" }, { domain: "api.github.com", credential: "nope" }] } }, once),
  );
  expect(error).toMatchObject({ status: 400, code: "INVALID_ARGUMENT" });
  expect(error.message).toMatch(/^network\.allowlist\[1\]\.credential: no credential "nope"/);

  const other = officialClient(emulator.url, OTHER_KEY);
  expect(await apiError(other.environments.create({ network: { allowlist: [{ domain: "x.com", credential: "cred-gh" }] } }, once))).toMatchObject({
    status: 400,
  });
});

test("GENV_CREDENTIALS_KEY must decode to 32 bytes", async () => {
  const { credentialsKeySource } = await import("../../../emulator/services/credential-cipher");
  expect(() => credentialsKeySource("/nonexistent", { GENV_CREDENTIALS_KEY: "c2hvcnQ=" })).toThrow(/32 bytes/);
  const key = Buffer.alloc(32, 7);
  expect(credentialsKeySource("/nonexistent", { GENV_CREDENTIALS_KEY: key.toString("base64") })()).toEqual(key);
});
