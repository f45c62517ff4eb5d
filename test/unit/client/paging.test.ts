import { UnexpectedResponseError, type EnvironmentsClient } from "../../../client";
import { ENV, json, startServer, testClient, type TestServer } from "./_server";

describe("list paging", () => {
  let server: TestServer;
  let client: EnvironmentsClient;
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  // Paging against the emulator: test/integration/client/environments.test.ts. Its tokens are URL-safe;
  // this one has reserved characters, and an empty page with a token follows.
  it("listAll sends a token with reserved characters percent-encoded, and goes on past an empty page", async () => {
    const pages: Record<string, unknown> = {
      "": { environments: [{ ...ENV, id: "env_1" }, { ...ENV, id: "env_2" }], next_page_token: "tok 1/+=" },
      "tok 1/+=": { environments: [], next_page_token: "p3" },
      p3: { environments: [{ ...ENV, id: "env_3" }] },
    };
    server = await startServer((req, res) => {
      const token = new URL(req.url ?? "", "http://x").searchParams.get("page_token") ?? "";
      json(res, 200, pages[token]);
    });
    client = testClient(server.baseUrl);
    const ids: string[] = [];
    for await (const env of client.listAll({ pageSize: 2 })) ids.push(env.id);
    expect(ids).toEqual(["env_1", "env_2", "env_3"]);
    expect(server.received.map((r) => r.url)).toEqual([
      "/v1beta/environments?page_size=2",
      "/v1beta/environments?page_size=2&page_token=tok%201%2F%2B%3D",
      "/v1beta/environments?page_size=2&page_token=p3",
    ]);
  });

  it("stops with an error when the server repeats a page token", async () => {
    server = await startServer((_req, res) => json(res, 200, { environments: [ENV], next_page_token: "same" }));
    client = testClient(server.baseUrl);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const env of client.listAll()) seen.push(env.id);
      })(),
    ).rejects.toBeInstanceOf(UnexpectedResponseError);
    expect(seen).toHaveLength(2);
  });
});
