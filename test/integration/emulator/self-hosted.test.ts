/**
 * `mode`, `system_instruction`, `custom_config` and the self-hosted `environment_key` over real HTTP:
 * echoed as sent, the key returned by the create call only and stored as a hash, List filtered by mode.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { OTHER_KEY, startTestEmulator, type TestEmulator } from "../../support/emulator";

let emulator: TestEmulator;
let dataDir: string;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "genv-self-hosted-"));
  emulator = await startTestEmulator({ dataDir });
});
afterAll(async () => {
  await emulator.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const create = (body: unknown, key?: string) => emulator.json("/v1/environments", { method: "POST", body: JSON.stringify(body), key });
const ids = (body: { environments: Array<{ id: string }> }) => body.environments.map((environment) => environment.id);

test("a self_hosted environment echoes its fields; its key comes once, at create, and is stored only as a hash", async () => {
  const customConfig = { pool: "gpu", limits: { cpu: 4 }, tags: ["a", "b"], on: true, none: null };
  const created = await create({ mode: "self_hosted", system_instruction: "Be terse.", custom_config: customConfig, network: { allowlist: "disabled" } });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ mode: "self_hosted", system_instruction: "Be terse.", custom_config: customConfig, network: { allowlist: "disabled" } });
  const key: string = created.body.environment_key;
  expect(key).toMatch(/^envkey_[A-Za-z0-9_-]{43}$/);

  const fetched = await emulator.json(`/v1beta/environments/${created.body.id}`);
  expect(fetched.body).not.toHaveProperty("environment_key");
  const { environment_key: _key, ...echoed } = created.body;
  expect(fetched.body).toEqual(echoed);
  const listed = await emulator.json("/v1/environments?page_size=1000");
  const entry = listed.body.environments.find((environment: { id: string }) => environment.id === created.body.id);
  expect(entry).toEqual(echoed);

  const another = await create({ mode: "self_hosted" });
  expect(another.body.environment_key).not.toBe(key);

  // The database holds the sha256 and never the key, in the main file or its write-ahead log.
  const db = new Database(path.join(dataDir, "environments.sqlite"), { readonly: true });
  try {
    const row = db.prepare("SELECT environment_key_sha256 AS hash FROM environment_specs WHERE id = ?").get(created.body.id) as { hash: string };
    expect(row.hash).toBe(createHash("sha256").update(key).digest("hex"));
  } finally {
    db.close();
  }
  for (const file of await fs.readdir(dataDir)) {
    if (!file.startsWith("environments.sqlite")) continue;
    expect((await fs.readFile(path.join(dataDir, file))).includes(key)).toBe(false);
  }
});

test("mode defaults to on_demand, echoed on every environment; no key", async () => {
  const created = await create({});
  expect(created.body).toMatchObject({ mode: "on_demand" });
  expect(created.body).not.toHaveProperty("environment_key");
  expect(created.body).not.toHaveProperty("system_instruction");
  expect(created.body).not.toHaveProperty("custom_config");
  expect((await create({ mode: "on_demand" })).body.mode).toBe("on_demand");
});

test("a fork takes the mode it is given, not its origin's, and a key of its own", async () => {
  const origin = await create({ mode: "self_hosted", sources: [{ type: "inline", target: "a.txt", content: "a" }] });
  const onDemand = await create({ from_environment: `environments/${origin.body.id}` });
  expect(onDemand.body).toMatchObject({ mode: "on_demand", file_count: "1" });
  expect(onDemand.body).not.toHaveProperty("environment_key");
  const selfHosted = await create({ from_environment: origin.body.id, mode: "self_hosted" });
  expect(selfHosted.body.environment_key).toMatch(/^envkey_/);
  expect(selfHosted.body.environment_key).not.toBe(origin.body.environment_key);
});

test.each([
  [{ system_instruction: "x" }, 'system_instruction: is only supported for self_hosted environments; set mode: "self_hosted" (mode is "on_demand")'],
  [{ mode: "on_demand", custom_config: {} }, 'custom_config: is only supported for self_hosted environments; set mode: "self_hosted" (mode is "on_demand")'],
  [{ mode: "SELF_HOSTED" }, 'mode: must be "on_demand" or "self_hosted" (got "SELF_HOSTED"); enum values are lowercase on the wire'],
  [{ mode: "future_mode" }, 'mode: must be "on_demand" or "self_hosted" (got "future_mode")'],
  [{ mode: "self_hosted", custom_config: [1] }, 'custom_config: must be a JSON object, e.g. {"pool": "gpu"}'],
  [{ mode: "self_hosted", custom_config: "x" }, 'custom_config: must be a JSON object, e.g. {"pool": "gpu"}'],
  [{ mode: "self_hosted", system_instruction: 7 }, "system_instruction: must be a string"],
])("%j is a 400 naming the field", async (body, message) => {
  expect(await create(body)).toEqual({ status: 400, body: { error: { code: 400, status: "INVALID_ARGUMENT", message } } });
});

test("List filters by mode, pages within the filter, and refuses an unknown mode", async () => {
  const own = { self_hosted: [] as string[], on_demand: [] as string[] };
  for (const mode of ["self_hosted", "on_demand", "self_hosted", "on_demand", "self_hosted"] as const) own[mode].push((await create({ mode })).body.id);

  const walk = async (query: string) => {
    const seen: string[] = [];
    let token = "";
    do {
      const page = await emulator.json(`/v1/environments?page_size=2${query}${token ? `&page_token=${encodeURIComponent(token)}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.environments.length).toBeLessThanOrEqual(2);
      seen.push(...ids(page.body));
      token = page.body.next_page_token ?? "";
    } while (token);
    return seen;
  };
  const selfHosted = await walk("&mode=self_hosted");
  expect(selfHosted.filter((id) => own.self_hosted.includes(id) || own.on_demand.includes(id))).toEqual(own.self_hosted);
  const onDemand = await walk("&mode=on_demand");
  expect(onDemand.filter((id) => own.self_hosted.includes(id) || own.on_demand.includes(id))).toEqual(own.on_demand);
  const all = await walk("");
  expect(new Set(all)).toEqual(new Set([...selfHosted, ...onDemand]));
  expect((await walk("&mode=")).length).toBe(all.length); // an empty filter is no filter

  // Another key's environments are never listed, whatever the filter.
  expect(ids((await emulator.json("/v1/environments?mode=self_hosted", { key: OTHER_KEY })).body)).toEqual([]);

  for (const mode of ["SELF_HOSTED", "future_mode"]) {
    const refused = await emulator.json(`/v1/environments?mode=${mode}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(new RegExp(`^mode: must be "on_demand" or "self_hosted" \\(got "${mode}"\\)`));
  }
});
