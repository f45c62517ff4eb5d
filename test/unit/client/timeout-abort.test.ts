import { AbortedError, TimeoutError, type EnvironmentsClient } from "../../../client";
import { ENV, googleError, json, startServer, testClient, type TestServer } from "./_server";

describe("timeouts and abort signals", () => {
  let server: TestServer;
  let client: EnvironmentsClient;
  const timers: NodeJS.Timeout[] = [];
  afterEach(async () => {
    timers.splice(0).forEach(clearTimeout);
    await client.close();
    await server.close();
  });

  it("times out a slow answer, retries the GET, then throws TimeoutError", async () => {
    server = await startServer((_req, res) => timers.push(setTimeout(() => json(res, 200, ENV), 10_000)));
    client = testClient(server.baseUrl, { timeoutMs: 100, retry: { maxAttempts: 2 } });
    const started = performance.now();
    const err = await client.get("e").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ name: "TimeoutError", code: "GENV_TIMEOUT", timeoutMs: 100 });
    expect(server.received).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(5_000); // far below the 10 s answer
  });

  it("lets a per-call timeout override the client's", async () => {
    server = await startServer((_req, res) => timers.push(setTimeout(() => json(res, 200, ENV), 300)));
    client = testClient(server.baseUrl, { timeoutMs: 50, retry: { maxAttempts: 1 } });
    await expect(client.get("e")).rejects.toBeInstanceOf(TimeoutError);
    await expect(client.get("e", { timeoutMs: 2_000 })).resolves.toMatchObject({ id: "env_abc123" });
  });

  it("aborts at once during a backoff sleep", async () => {
    const controller = new AbortController();
    server = await startServer((_req, res) => {
      googleError(res, 503, "UNAVAILABLE", "busy", { "retry-after": "30" });
      timers.push(setTimeout(() => controller.abort(new Error("user pressed ^C")), 50));
    });
    client = testClient(server.baseUrl, { retry: { totalTimeMs: 60_000 } });
    const started = performance.now();
    const err = await client.get("e", { signal: controller.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortedError);
    expect((err as Error).cause).toEqual(new Error("user pressed ^C"));
    expect(performance.now() - started).toBeLessThan(5_000); // far below the 30 s backoff
    expect(server.received).toHaveLength(1);
  });

  it("aborts a request in flight", async () => {
    const controller = new AbortController();
    server = await startServer((_req, res) => {
      timers.push(setTimeout(() => json(res, 200, ENV), 2_000));
      timers.push(setTimeout(() => controller.abort(), 50));
    });
    client = testClient(server.baseUrl);
    await expect(client.create({}, { signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(server.received).toHaveLength(1);
  });

  it("sends nothing when the signal is already aborted", async () => {
    server = await startServer((_req, res) => json(res, 200, ENV));
    client = testClient(server.baseUrl);
    await expect(client.get("e", { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortedError);
    expect(server.received).toHaveLength(0);
  });
});
