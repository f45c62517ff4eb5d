import { ConnectionError, EnvironmentsApiError, type RetryEvent } from "../../../client";
import { ENV, googleError, json, refusedPort, useServersAndClients, type TestServer } from "./_server";

describe("retries of GET and DELETE", () => {
  const { serve, client } = useServersAndClients();

  it("waits as long as Retry-After (seconds) asks", async () => {
    const server = await serve((_req, res, _r, index) =>
      index === 0 ? googleError(res, 503, "UNAVAILABLE", "busy", { "retry-after": "1" }) : json(res, 200, ENV),
    );
    const started = performance.now();
    await expect(client(server.baseUrl).get("env_abc123")).resolves.toMatchObject({ id: "env_abc123" });
    const elapsed = performance.now() - started;
    expect(server.received).toHaveLength(2);
    // Time is the point: the second attempt waited the 1 s asked for (a timer never fires early), and
    // not much more; 5 s leaves a loaded machine room.
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5_000);
  });

  it("prefers retry-after-ms and accepts an HTTP-date Retry-After", async () => {
    const server = await serve((_req, res, _r, index) => {
      if (index === 0) return googleError(res, 429, "RESOURCE_EXHAUSTED", "slow down", { "retry-after-ms": "50", "retry-after": "30" });
      if (index === 1) return googleError(res, 503, "UNAVAILABLE", "busy", { "retry-after": new Date(Date.now() - 1000).toUTCString() });
      json(res, 200, ENV);
    });
    const events: RetryEvent[] = [];
    await client(server.baseUrl, { retry: { onRetry: (e) => events.push(e) } }).get("e");
    expect(events.map((e) => e.delayMs)).toEqual([50, 0]);
    expect(server.received).toHaveLength(3);
  });

  it.each([408, 500, 502, 503, 504])("retries a GET on %i", async (code) => {
    const server = await serve((_req, res, _r, index) => (index < 2 ? res.writeHead(code).end() : json(res, 200, ENV)));
    await client(server.baseUrl).get("e");
    expect(server.received).toHaveLength(3);
  });

  it("retries a DELETE and does not retry a 404", async () => {
    const server = await serve((req, res, _r, index) => {
      if (req.method === "DELETE") return index === 0 ? res.writeHead(502).end() : json(res, 200, {});
      googleError(res, 404, "NOT_FOUND", "gone");
    });
    const c = client(server.baseUrl);
    await c.delete("environments/env_1");
    await expect(c.get("env_1")).rejects.toMatchObject({ status: "NOT_FOUND" });
    expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual([
      "DELETE /v1beta/environments/env_1",
      "DELETE /v1beta/environments/env_1",
      "GET /v1beta/environments/env_1",
    ]);
  });

  it("throws the last answer, with its Google message, when attempts run out", async () => {
    const server = await serve((_req, res, _r, index) => googleError(res, 503, "UNAVAILABLE", `busy ${index}`));
    const err = await client(server.baseUrl, { retry: { maxAttempts: 3 } }).get("e").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EnvironmentsApiError);
    expect(err).toMatchObject({ httpStatus: 503, message: "busy 2" });
    expect(server.received).toHaveLength(3);
  });

  it("does not retry when the server asks for a wait beyond the total time bound", async () => {
    const server = await serve((_req, res) => googleError(res, 503, "UNAVAILABLE", "come back later", { "retry-after": "10" }));
    const started = performance.now();
    await expect(client(server.baseUrl, { retry: { totalTimeMs: 1_000 } }).get("e")).rejects.toMatchObject({ httpStatus: 503 });
    // Time is the point: the client gives up at once rather than sleep the 10 s asked for and then
    // give up. 5 s is half of that, far beyond an answer on a loaded machine.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.received).toHaveLength(1);
  });

  it("stops retrying once the total time bound is spent", async () => {
    const server = await serve((_req, res) => googleError(res, 500, "INTERNAL", "boom"));
    const c = client(server.baseUrl, { retry: { maxAttempts: 100, initialDelayMs: 50, maxDelayMs: 50, jitter: 0, totalTimeMs: 300 } });
    await expect(c.get("e")).rejects.toMatchObject({ httpStatus: 500 });
    // The server's log proves it stopped: 300 ms of 50 ms waits allow at most 7 of the 100 attempts.
    expect(server.received.length).toBeGreaterThanOrEqual(2);
    expect(server.received.length).toBeLessThanOrEqual(7);
  });

  it("retries a refused connection until the server is up", async () => {
    const port = await refusedPort();
    let up: Promise<TestServer> | undefined;
    const c = client(`http://127.0.0.1:${port}`, {
      retry: {
        initialDelayMs: 100,
        maxDelayMs: 100,
        jitter: 0,
        onRetry: (event) => {
          expect(event.error).toBeInstanceOf(ConnectionError);
          up ??= serve((_req, res) => json(res, 200, ENV), port);
        },
      },
    });
    await expect(c.get("env_abc123")).resolves.toMatchObject({ id: "env_abc123" });
    expect((await up)?.received).toHaveLength(1);
  });

  it("reports a refused connection as ConnectionError when attempts run out", async () => {
    const port = await refusedPort();
    const events: RetryEvent[] = [];
    const err = await client(`http://127.0.0.1:${port}`, { retry: { maxAttempts: 3, onRetry: (e) => events.push(e) } })
      .get("e")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ name: "ConnectionError", code: "GENV_CONNECTION", networkCode: "ECONNREFUSED", refused: true });
    expect((err as Error).cause).toMatchObject({ code: "ECONNREFUSED" });
    expect(events).toHaveLength(2);
  });
});
