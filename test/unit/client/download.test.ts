import { randomBytes } from "node:crypto";
import type { EnvironmentsClient } from "../../../client";
import { googleError, startServer, testClient, type TestServer } from "./_server";

describe("file download", () => {
  let server: TestServer;
  let client: EnvironmentsClient;
  const bytes = Buffer.concat([Buffer.from([0, 1, 2, 255, 104, 105, 0x0d, 0x0a]), randomBytes(1 << 20)]);
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it("streams binary bytes intact, with type and length", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "image/png", "content-length": bytes.length });
      // In several writes, so that the client sees several chunks.
      for (let offset = 0; offset < bytes.length; offset += 64 * 1024) res.write(bytes.subarray(offset, offset + 64 * 1024));
      res.end();
    });
    client = testClient(server.baseUrl);
    const download = await client.download("env_1", "img/logo.png");
    expect(download).toMatchObject({ contentType: "image/png", contentLength: bytes.length });
    const chunks: Buffer[] = [];
    for await (const chunk of download.body) chunks.push(chunk as Buffer);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(server.received[0]).toMatchObject({ method: "GET", url: "/v1beta/environments/env_1/files/img/logo.png?alt=media" });
    expect(server.received[0].headers.accept).toBe("*/*");
  });

  it("downloadBuffer collects a chunked body without Content-Length", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.write(bytes.subarray(0, 10));
      res.end(bytes.subarray(10));
    });
    client = testClient(server.baseUrl);
    const file = await client.downloadBuffer("env_1", "blob.bin");
    expect(file.contentType).toBe("application/octet-stream");
    expect(file.data.equals(bytes)).toBe(true);
  });

  it("retries a 503 before the body starts and throws a 404 as NOT_FOUND", async () => {
    server = await startServer((req, res, _r, index) => {
      if (req.url?.includes("missing")) return googleError(res, 404, "NOT_FOUND", "no such file");
      if (index === 0) return googleError(res, 503, "UNAVAILABLE", "busy");
      res.writeHead(200, { "content-type": "text/plain" }).end("hello");
    });
    client = testClient(server.baseUrl);
    expect((await client.downloadBuffer("env_1", "a.txt")).data.toString()).toBe("hello");
    await expect(client.download("env_1", "missing.txt")).rejects.toMatchObject({ status: "NOT_FOUND", message: "no such file" });
    expect(server.received).toHaveLength(3);
  });
});
