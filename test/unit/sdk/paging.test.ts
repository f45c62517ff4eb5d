import { UnexpectedResponseError, type EnvironmentsClient } from "../../../sdk";
import { ENV, json, startServer, testClient, type TestServer } from "./_server";

describe("list paging", () => {
  let server: TestServer;
  let client: EnvironmentsClient;
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it("listAll follows next_page_token across pages", async () => {
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

  it("listAll with a mode filter sends it on every page", async () => {
    server = await startServer((_req, res, _r, index) => json(res, 200, index === 0 ? { environments: [ENV], next_page_token: "t" } : { environments: [] }));
    client = testClient(server.baseUrl);
    for await (const _env of client.listAll({ mode: "self_hosted", pageSize: 1 })) void _env;
    expect(server.received.map((r) => r.url)).toEqual(["/v1beta/environments?mode=self_hosted&page_size=1", "/v1beta/environments?mode=self_hosted&page_size=1&page_token=t"]);
  });

  it("list returns one page as the wire shape", async () => {
    server = await startServer((_req, res) => json(res, 200, { environments: [ENV], next_page_token: "n" }));
    client = testClient(server.baseUrl);
    await expect(client.list()).resolves.toEqual({ environments: [ENV], next_page_token: "n" });
    expect(server.received[0].url).toBe("/v1beta/environments");
  });

  it("files.listAll pages through a recursive listing", async () => {
    server = await startServer((_req, res, _r, index) =>
      json(res, 200, index === 0 ? { files: [{ name: "a", path: "w/a", type: "file" }], next_page_token: "2" } : { files: [{ name: "b", path: "w/s/b", type: "file" }] }),
    );
    client = testClient(server.baseUrl);
    const paths: (string | undefined)[] = [];
    for await (const file of client.files.listAll({ environment: "env_1", path: "w", recursive: true, pageSize: 1 })) paths.push(file.path);
    expect(paths).toEqual(["w/a", "w/s/b"]);
    expect(server.received.map((r) => r.url)).toEqual([
      "/v1beta/environments/env_1/files/w?page_size=1&recursive=true",
      "/v1beta/environments/env_1/files/w?page_size=1&page_token=2&recursive=true",
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
