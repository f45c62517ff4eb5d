/**
 * `client.credentials` against the emulator: the wire it sends (paths, update_mask, bodies) and what
 * it gives back — never a secret.
 */
import { EnvironmentsClient, isAlreadyExists, isInvalidArgument, isNotFound, ValidationError } from "../../../client";
import { ownerOf } from "../../../emulator/api";
import { startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";
import { formatIssuePath } from "../../../client/issues";

let emulator: TestEmulator;
let client: EnvironmentsClient;
const owner = ownerOf(TEST_KEY);

beforeAll(async () => {
  emulator = await startTestEmulator();
  client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator.url, env: {} });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

/** The emulator requests made while `body` runs, as `METHOD path?query`. */
async function requestsDuring(body: () => Promise<unknown>): Promise<string[]> {
  const before = emulator.requests.length;
  await body();
  return emulator.requests.slice(before).map((entry) => `${entry.method} ${entry.path}`);
}

test("create, get (bare id or credentials/ prefix), update with a mask, delete", async () => {
  const created = await client.credentials.create({ id: "gh-token", type: "bearer_token", token: "ghp_s3cr3t", header_name: "X-Token" });
  expect(created).toEqual({ id: "gh-token", type: "bearer_token", status: "active", create_time: expect.any(String), update_time: created.create_time });
  expect(await client.credentials.get("credentials/gh-token")).toEqual(created);

  const requests = await requestsDuring(async () => {
    const updated = await client.credentials.update("gh-token", { type: "bearer_token", token: "ghp_rotated" }, { updateMask: ["token", "prefix"] });
    expect(updated.update_time! > created.update_time!).toBe(true);
  });
  expect(requests).toEqual(["PATCH /v1beta/credentials/gh-token?update_mask=token%2Cprefix"]);
  // token replaced, prefix listed but absent → back to its default, header_name not listed → kept.
  expect(emulator.credentials.reveal(owner, "gh-token")).toMatchObject({ token: "ghp_rotated", header_name: "X-Token", prefix: "Bearer" });

  expect(await requestsDuring(() => client.credentials.delete("gh-token"))).toEqual(["DELETE /v1beta/credentials/gh-token"]);
  const gone = await client.credentials.get("gh-token").catch((error: unknown) => error);
  expect(isNotFound(gone)).toBe(true);
  expect(isNotFound(await client.credentials.delete("gh-token").catch((error: unknown) => error))).toBe(true);
});

test("an update without a mask changes the fields present; a type change is refused by the server", async () => {
  await client.credentials.create({ id: "env-cred", type: "environment_variable", value: "v1", injection_location: "header" });
  const requests = await requestsDuring(() =>
    client.credentials.update("env-cred", { type: "environment_variable", injection_location: ["query"], trusted_domains: ["api.example.com"] }),
  );
  expect(requests).toEqual(["PATCH /v1beta/credentials/env-cred"]);
  expect(emulator.credentials.reveal(owner, "env-cred")).toMatchObject({ value: "v1", injection_location: ["query"], trusted_domains: ["api.example.com"] });

  const error = await client.credentials.update("env-cred", { type: "bearer_token", token: "t" }).catch((e: unknown) => e);
  expect(isInvalidArgument(error)).toBe(true);
  expect((error as Error).message).toMatch(/a type cannot change/);
});

test("a taken id is ALREADY_EXISTS; create is sent once", async () => {
  await client.credentials.create({ id: "dup", type: "bearer_token", token: "t" });
  let error: unknown;
  const requests = await requestsDuring(async () => {
    error = await client.credentials.create({ id: "dup", type: "bearer_token", token: "t" }).catch((e: unknown) => e);
  });
  expect(isAlreadyExists(error)).toBe(true);
  expect(requests).toEqual(["POST /v1beta/credentials"]);
});

test("list and listAll page through every credential", async () => {
  for (const id of ["l1", "l2", "l3"]) await client.credentials.create({ id, type: "bearer_token", token: "t" });
  const page = await client.credentials.list({ pageSize: 2 });
  expect(page.credentials).toHaveLength(2);
  expect(page.next_page_token).toEqual(expect.any(String));
  const ids: string[] = [];
  for await (const credential of client.credentials.listAll({ pageSize: 2 })) ids.push(credential.id);
  expect(ids).toEqual(expect.arrayContaining(["l1", "l2", "l3"]));
  expect(new Set(ids).size).toBe(ids.length);
});

test("invalid requests are refused before sending, naming the field and never quoting a secret", async () => {
  const requests = await requestsDuring(async () => {
    const create = await client.credentials.create({ id: "bad id", type: "bearer_token", token: "line\nbreak-s3cr3t" }).catch((e: unknown) => e);
    expect(create).toBeInstanceOf(ValidationError);
    expect((create as ValidationError).issues.map((issue) => formatIssuePath(issue.path))).toEqual(["id", "token"]);
    expect((create as Error).message).not.toContain("s3cr3t");

    const mask = await client.credentials.update("x", { type: "bearer_token" }, { updateMask: ["token,prefix"] }).catch((e: unknown) => e);
    expect(mask).toMatchObject({ issues: [{ path: ["updateMask", 0] }] });
    await expect(client.credentials.get("a/b")).rejects.toBeInstanceOf(ValidationError);
    await expect(client.credentials.list({ pageSize: 0 })).rejects.toBeInstanceOf(ValidationError);
  });
  expect(requests).toEqual([]);
});
