import { isNotFound, ValidationError, type EnvironmentsClient } from "../../../sdk";
import { ENV, googleError, json, startServer, testClient, type TestServer } from "./_server";
import { formatIssuePath } from "../../../sdk/issues";

describe("environments and file metadata", () => {
  let server: TestServer;
  let client: EnvironmentsClient;
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it("create sends the validated request and returns the Environment", async () => {
    server = await startServer((_req, res) => json(res, 200, { ...ENV, sources: [{ type: "inline", content: "print(1)", target: "main.py" }] }));
    client = testClient(server.baseUrl);
    const request = {
      network: { allowlist: [{ domain: "*.googleapis.com", transform: { "X-Api-Key": "abc" } }] },
      sources: [{ type: "inline" as const, content: "print(1)", target: "main.py" }],
    };
    const env = await client.create(request);
    expect(env).toMatchObject({ id: "env_abc123", status: "active" });
    expect(JSON.parse(server.received[0].body)).toEqual(request);
  });

  it("refuses an invalid create request naming the field, without sending anything", async () => {
    server = await startServer((_req, res) => json(res, 200, ENV));
    client = testClient(server.baseUrl);
    const err = await client
      .create({ sources: [{ type: "inline", content: "x", target: "../escape.py" }], netwrok: "disabled" } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => formatIssuePath(i.path)).sort()).toEqual(["netwrok", "sources[0].target"]);
    expect((err as Error).message).toMatch(/^invalid CreateEnvironmentRequest: .*sources\[0\]\.target: "\.\.\/escape\.py" escapes the environment root/);
    await expect(client.list({ pageSize: 0 })).rejects.toMatchObject({ issues: [{ path: ["pageSize"], message: expect.any(String) }] });
    expect(server.received).toHaveLength(0);
  });

  it("a self_hosted create sends mode, system_instruction and custom_config, and returns the one-time environment_key", async () => {
    const key = "envkey_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";
    server = await startServer((_req, res) => json(res, 200, { ...ENV, mode: "self_hosted", custom_config: { pool: "gpu" }, environment_key: key }));
    client = testClient(server.baseUrl);
    const request = { mode: "self_hosted" as const, system_instruction: "Be terse.", custom_config: { pool: "gpu", n: [1, { a: null }] } };
    const env = await client.create(request);
    expect(JSON.parse(server.received[0].body)).toEqual(request);
    expect(env).toMatchObject({ mode: "self_hosted", custom_config: { pool: "gpu" }, environment_key: key });
  });

  it("refuses self_hosted-only fields without mode self_hosted, and an unknown mode, before sending", async () => {
    server = await startServer((_req, res) => json(res, 200, ENV));
    client = testClient(server.baseUrl);
    const err = await client.create({ system_instruction: "x", custom_config: {}, mode: "on_demand" }).catch((e: unknown) => e);
    expect((err as ValidationError).issues).toEqual([
      { path: ["system_instruction"], code: "self-hosted-only", message: 'is only supported for self_hosted environments; set mode: "self_hosted" (mode is "on_demand")' },
      { path: ["custom_config"], code: "self-hosted-only", message: 'is only supported for self_hosted environments; set mode: "self_hosted" (mode is "on_demand")' },
    ]);
    const mode = await client.create({ mode: "SELF_HOSTED" } as never).catch((e: unknown) => e);
    expect((mode as ValidationError).issues).toEqual([{ path: ["mode"], code: "invalid-value", message: 'must be "on_demand" or "self_hosted" (got "SELF_HOSTED"); enum values are lowercase on the wire' }]);
    expect(server.received).toHaveLength(0);
  });

  it("delete accepts {} , an empty 200 and a 204", async () => {
    server = await startServer((_req, res, _r, index) => [() => json(res, 200, {}), () => res.writeHead(200).end(), () => res.writeHead(204).end()][index]());
    client = testClient(server.baseUrl);
    for (let i = 0; i < 3; i++) await expect(client.delete("env_1")).resolves.toBeUndefined();
  });

  it("fileMetadata returns the file's entry, reports a directory, and throws NOT_FOUND when absent", async () => {
    const file = { name: "main.py", path: "src/main.py", type: "file", mime_type: "text/x-python", size_bytes: "22" };
    server = await startServer((req, res) => {
      if (req.url?.endsWith("/files/src/main.py")) return json(res, 200, { files: [file] });
      if (req.url?.endsWith("/files/src")) return json(res, 200, { files: [file] });
      googleError(res, 404, "NOT_FOUND", "no such path");
    });
    client = testClient(server.baseUrl);
    await expect(client.fileMetadata("env_1", "/src/main.py")).resolves.toEqual(file);
    await expect(client.files.metadata("env_1", "src/")).resolves.toEqual({ name: "src", path: "src", type: "directory" });
    const err = await client.fileMetadata("env_1", "nope").catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
  });
});
