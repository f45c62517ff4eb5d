import { ValidationError, type EnvironmentsClient } from "../../../client";
import { ENV, json, startServer, testClient, type TestServer } from "./_server";
import { formatIssuePath } from "../../../client/issues";

// The happy paths (create, self_hosted create, get, fileMetadata, delete) run against the emulator:
// test/integration/client/environments.test.ts. Here: what is refused before sending, and wire variants.
describe("environments and file metadata", () => {
  let server: TestServer;
  let client: EnvironmentsClient;
  afterEach(async () => {
    await client.close();
    await server.close();
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
});
