import type { EnvironmentsClient } from "../../../client";
import { EnvironmentsApiError } from "../../../client";
import { googleError, json, startServer, testClient, type Handler, type TestServer } from "./_server";

const CREDENTIAL = { id: "gh-token", type: "bearer_token", status: "active", create_time: "2026-08-19T00:00:00Z", update_time: "2026-08-19T00:00:00Z" };

describe("retries of the Credentials API", () => {
  let server: TestServer;
  let client: EnvironmentsClient;
  afterEach(async () => {
    await client.close();
    await server.close();
  });
  async function serve(handler: Handler): Promise<void> {
    server = await startServer(handler);
    client = testClient(server.baseUrl);
  }
  const failFirst = (code: number) => (handler: Handler) => serve((req, res, received, index) =>
    index === 0 ? googleError(res, code, code === 503 ? "UNAVAILABLE" : "INTERNAL", "boom") : handler(req, res, received, index),
  );

  it("create is not retried on 500 (the server may have created it), but is on 503", async () => {
    await failFirst(500)((_req, res) => json(res, 200, CREDENTIAL));
    await expect(client.credentials.create({ id: "gh-token", type: "bearer_token", token: "t" })).rejects.toBeInstanceOf(EnvironmentsApiError);
    expect(server.received).toHaveLength(1);
    await client.close();
    await server.close();

    await failFirst(503)((_req, res) => json(res, 200, CREDENTIAL));
    await expect(client.credentials.create({ id: "gh-token", type: "bearer_token", token: "t" })).resolves.toEqual(CREDENTIAL);
    expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /v1beta/credentials", "POST /v1beta/credentials"]);
  });

  it("update with a mask is idempotent: retried on 500 with the same request", async () => {
    await failFirst(500)((_req, res) => json(res, 200, CREDENTIAL));
    await client.credentials.update("gh-token", { type: "bearer_token", token: "new" }, { updateMask: ["token"] });
    expect(server.received).toHaveLength(2);
    for (const received of server.received) {
      expect(`${received.method} ${received.url}`).toBe("PATCH /v1beta/credentials/gh-token?update_mask=token");
      expect(JSON.parse(received.body)).toEqual({ type: "bearer_token", token: "new" });
    }
  });

  it("get and delete are retried on 500; ids are percent-encoded", async () => {
    await failFirst(500)((req, res) => json(res, 200, req.method === "DELETE" ? {} : CREDENTIAL));
    await client.credentials.get("a b");
    await client.credentials.delete("a b");
    expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /v1beta/credentials/a%20b",
      "GET /v1beta/credentials/a%20b",
      "DELETE /v1beta/credentials/a%20b",
    ]);
  });
});
