/**
 * The functions' cores (provider/functions/) against a real emulator over HTTP, on environments and
 * credentials made by the client, as another program would: the values a lookup returns, every page
 * of a listing, the errors that name an unknown id, a directory or a missing path, and a credential's
 * secret found nowhere in a result.
 */
import { EnvironmentsClient } from "../../../client/client";
import { callFunction, type FunctionCore } from "../../../provider/contracts/function-core";
import { InvalidInputError } from "../../../provider/contracts/errors";
import { functionOf } from "../../../provider/functions/catalog";
import { MAX_FILE_BYTES } from "../../../provider/functions/environment-file";
import * as direct from "../../../provider/functions/direct";
import { inline, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";

let emulator: TestEmulator;
let client: EnvironmentsClient;

beforeAll(async () => {
  // One environment a page: a listing of three follows three pages.
  emulator = await startTestEmulator({ maxPageBytes: 1 });
  client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator.url });
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

const call = (name: string, args: unknown) => callFunction(functionOf(`gemini-environments:index:${name}`) as FunctionCore, () => client, args);

describe("getEnvironment", () => {
  test("returns the environment as the API reports it: status, mode, times, counts, the network in its declared form, the sources", async () => {
    const sources = [inline("workspace/TASK.md", "Triage the issues.\n"), inline("main.py", "print(1)\n")];
    const made = await client.create({ sources, network: { allowlist: [{ domain: "api.github.com", transform: { "X-Api-Version": "2" } }] } });
    const found = await call("getEnvironment", { id: made.id });
    expect(found).toEqual({
      id: made.id,
      status: "active",
      mode: "on_demand",
      created: made.created,
      updated: expect.any(String),
      lastAccessed: expect.any(String),
      fileCount: 2,
      sizeBytes: Buffer.byteLength("Triage the issues.\nprint(1)\n"),
      network: { allowlist: [{ domain: "api.github.com", transform: [{ "X-Api-Version": "2" }] }] },
      sources,
    });
    expect(found.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await call("getEnvironment", { id: `environments/${made.id}` })).toMatchObject({ id: made.id });
  });

  test("a self_hosted environment: its mode, instruction and config, never its key", async () => {
    const made = await client.create({ mode: "self_hosted", system_instruction: "Be brief.", custom_config: { pool: "gpu" }, network: "disabled" });
    expect(made.environment_key).toBeTruthy();
    const found = await call("getEnvironment", { id: made.id });
    expect(found).toMatchObject({ mode: "self_hosted", systemInstruction: "Be brief.", customConfig: { pool: "gpu" }, network: { disabled: true } });
    expect(JSON.stringify(found)).not.toContain(made.environment_key!);
    expect(found).not.toHaveProperty("environmentKey");
  });

  test("an unknown id fails naming the id and what to check", async () => {
    const error = await call("getEnvironment", { id: "env_nosuch" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues).toEqual([expect.objectContaining({ path: ["id"], code: "not-found" })]);
    expect((error as Error).message).toBe(
      "getEnvironment: id: no environment env_nosuch for this API key: check the id (`genv env list` lists them; an expired or deleted environment is gone) " +
        "and that the provider's apiKey and baseUrl are those of the account that made it",
    );
  });

  test("arguments are checked: a missing or malformed id, an unknown argument, each named", async () => {
    await expect(call("getEnvironment", {})).rejects.toThrow(/^getEnvironment: id: /);
    await expect(call("getEnvironment", { id: "env/../x" })).rejects.toThrow("getEnvironment: id: must be an environment id such as env_abc123");
    await expect(call("getEnvironment", { id: "env_x", name: "agent" })).rejects.toThrow("getEnvironment: name: is not a known field: remove it or check its spelling");
  });
});

describe("getEnvironments", () => {
  test("follows every page (one environment a page here), oldest first; mode filters", async () => {
    for (let index = 0; index < 3; index++) await client.create({ sources: [inline("a.txt", String(index))] });
    const listed = await call("getEnvironments", {});
    const ids: string[] = [];
    for await (const environment of client.listAll()) ids.push(environment.id);
    expect(ids.length).toBeGreaterThan(2);
    const requests = emulator.requests.length;
    const again = (await call("getEnvironments", {})) as { environments: Array<{ id: string; mode: string }> };
    expect(again.environments.map((environment) => environment.id)).toEqual(ids);
    // One request per page: as many as there are environments, and no more.
    expect(emulator.requests.slice(requests).filter((entry) => entry.method === "GET" && entry.path.startsWith("/v1beta/environments"))).toHaveLength(ids.length);
    expect((listed as typeof again).environments).toHaveLength(ids.length);

    const selfHosted = (await call("getEnvironments", { mode: "self_hosted" })) as typeof again;
    expect(selfHosted.environments.length).toBeGreaterThan(0);
    expect(selfHosted.environments.every((environment) => environment.mode === "self_hosted")).toBe(true);
    expect(selfHosted.environments.length).toBeLessThan(ids.length);
  });

  test("a mode that is not one is refused before any request, naming it", async () => {
    await expect(call("getEnvironments", { mode: "SELF_HOSTED" })).rejects.toThrow(/^getEnvironments: mode: must be "on_demand" or "self_hosted" \(got "SELF_HOSTED"\); enum values are lowercase/);
  });
});

describe("getEnvironmentFile", () => {
  let id: string;
  const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]);

  beforeAll(async () => {
    id = (
      await client.create({
        sources: [inline("workspace/report.md", "# Report\nAll green ✓\n"), { type: "inline", target: "workspace/logo.png", content: binary.toString("base64"), encoding: "base64" }],
      })
    ).id;
  });

  test("a text file: its content, size and modification time", async () => {
    const file = await call("getEnvironmentFile", { environmentId: id, path: "workspace/report.md" });
    expect(file).toEqual({
      path: "workspace/report.md",
      content: "# Report\nAll green ✓\n",
      sizeBytes: Buffer.byteLength("# Report\nAll green ✓\n"),
      modified: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      mimeType: "text/markdown",
    });
    expect(await call("getEnvironmentFile", { environmentId: id, path: "/workspace/report.md" })).toMatchObject({ path: "workspace/report.md" });
  });

  test("a binary file: its bytes in base64, no content", async () => {
    const file = await call("getEnvironmentFile", { environmentId: id, path: "workspace/logo.png" });
    expect(file).toMatchObject({ contentBase64: binary.toString("base64"), sizeBytes: binary.length });
    expect(file).not.toHaveProperty("content");
  });

  test("a directory, a missing path and an unknown environment each fail naming what and where", async () => {
    await expect(call("getEnvironmentFile", { environmentId: id, path: "workspace" })).rejects.toThrow(
      `getEnvironmentFile: path: "workspace" in environment ${id} is a directory, not a file: give the path of a file in it`,
    );
    await expect(call("getEnvironmentFile", { environmentId: id, path: "workspace/nosuch.md" })).rejects.toThrow(
      `getEnvironmentFile: path: "workspace/nosuch.md" in environment ${id} does not exist: check the path, relative to the environment root (\`genv env files ${id}\` lists its files)`,
    );
    await expect(call("getEnvironmentFile", { environmentId: "env_nosuch", path: "a.txt" })).rejects.toThrow(/^getEnvironmentFile: environmentId: no environment env_nosuch for this API key/);
    await expect(call("getEnvironmentFile", { environmentId: id, path: "" })).rejects.toThrow(/^getEnvironmentFile: path: is empty/);
  });

  test("a file larger than a lookup reads fails naming its size", async () => {
    await client.files.upload({ environment: id, path: "workspace/big.bin", data: Buffer.alloc(MAX_FILE_BYTES + 1) });
    await expect(call("getEnvironmentFile", { environmentId: id, path: "workspace/big.bin" })).rejects.toThrow(
      `getEnvironmentFile: path: "workspace/big.bin" in environment ${id} is ${MAX_FILE_BYTES + 1} bytes; a lookup reads files up to 4 MiB: read it with \`genv env cat\` or the client`,
    );
  });
});

describe("getCredential and getCredentials", () => {
  const TOKEN = "ghp_functions-secret-41c9";

  test("the id, type, status and times; the token nowhere", async () => {
    const made = await client.credentials.create({ id: "gh-token", type: "bearer_token", token: TOKEN, header_name: "Authorization" });
    const found = await call("getCredential", { credentialId: "gh-token" });
    expect(found).toEqual({ credentialId: "gh-token", type: "bearer_token", status: "active", createTime: made.create_time, updateTime: made.update_time });
    expect(JSON.stringify(found)).not.toContain(TOKEN);
  });

  test("an unknown id fails naming the id and what to check", async () => {
    await expect(call("getCredential", { credentialId: "nosuch" })).rejects.toThrow(
      "getCredential: credentialId: no credential nosuch for this API key: check the id (an allowlist entry's `credential`, or a Credential resource's credentialId) " +
        "and that the provider's apiKey and baseUrl are those of the account that made it",
    );
  });

  test("getCredentials follows every page (51 credentials, 50 a page), and holds no secret", async () => {
    for (let index = 0; index < 50; index++) {
      await client.credentials.create({ id: `env-var-${index}`, type: "environment_variable", value: `${TOKEN}-${index}`, injection_location: "header" });
    }
    const { credentials } = (await call("getCredentials", {})) as { credentials: Array<{ credentialId: string; type: string }> };
    expect(credentials).toHaveLength(51);
    expect(new Set(credentials.map((credential) => credential.credentialId)).size).toBe(51);
    expect(credentials.filter((credential) => credential.type === "environment_variable")).toHaveLength(50);
    expect(JSON.stringify(credentials)).not.toContain(TOKEN);
  });
});

describe("the TypeScript package's own functions (functions/direct.ts)", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  test("call the API with the environment's key and base URL, outside a Pulumi program, and fail as the cores do", async () => {
    Object.assign(process.env, { GOOGLE_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: emulator.url });
    const made = await client.create({ sources: [inline("notes.txt", "hello\n")] });
    expect(await direct.getEnvironment({ id: made.id })).toMatchObject({ id: made.id, fileCount: 1, status: "active" });
    expect(await direct.getEnvironmentFile({ environmentId: made.id, path: "notes.txt" })).toMatchObject({ content: "hello\n" });
    expect((await direct.getEnvironments()).environments.map((environment) => environment.id)).toContain(made.id);
    expect((await direct.getCredentials()).credentials.length).toBeGreaterThan(0);
    await expect(direct.getCredential({ credentialId: "nosuch" })).rejects.toThrow(/^getCredential: credentialId: no credential nosuch/);
  });
});
