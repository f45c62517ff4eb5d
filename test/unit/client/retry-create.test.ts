import { ConnectionError, EnvironmentsApiError, TimeoutError } from "../../../client";
import { ENV, googleError, json, refusedPort, useServersAndClients, type TestServer } from "./_server";

describe("retries of CreateEnvironment (not idempotent)", () => {
  const timers: NodeJS.Timeout[] = [];
  afterEach(() => timers.splice(0).forEach(clearTimeout));
  const { serve, client } = useServersAndClients();
  const request = { sources: [{ type: "inline" as const, content: "print(1)", target: "main.py" }] };

  it("is not retried on 500: the server may have created it", async () => {
    const server = await serve((_req, res) => googleError(res, 500, "INTERNAL", "boom"));
    await expect(client(server.baseUrl).create(request)).rejects.toBeInstanceOf(EnvironmentsApiError);
    expect(server.received).toHaveLength(1);
  });

  it("is not retried when the connection is reset after the request was sent", async () => {
    const server = await serve((req) => req.socket.destroy());
    const err = await client(server.baseUrl).create(request).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ refused: false });
    expect(server.received).toHaveLength(1);
  });

  it("is not retried on a timeout", async () => {
    const server = await serve((_req, res) => timers.push(setTimeout(() => json(res, 200, ENV), 1_500)));
    await expect(client(server.baseUrl, { timeoutMs: 100 }).create(request)).rejects.toBeInstanceOf(TimeoutError);
    expect(server.received).toHaveLength(1);
  });

  it.each([429, 503])("is retried on %i: refused before processing", async (code) => {
    const server = await serve((_req, res, _r, index) => (index === 0 ? googleError(res, code, "UNAVAILABLE", "busy") : json(res, 200, ENV)));
    await expect(client(server.baseUrl).create(request)).resolves.toMatchObject({ id: "env_abc123" });
    expect(server.received).toHaveLength(2);
    expect(JSON.parse(server.received[1].body)).toEqual(request);
  });

  it("is retried on a refused connection: nothing reached the server", async () => {
    const port = await refusedPort();
    let up: Promise<TestServer> | undefined;
    const c = client(`http://127.0.0.1:${port}`, {
      retry: { initialDelayMs: 100, maxDelayMs: 100, jitter: 0, onRetry: () => void (up ??= serve((_req, res) => json(res, 200, ENV), port)) },
    });
    await expect(c.create(request)).resolves.toMatchObject({ id: "env_abc123" });
    expect((await up)?.received.map((r) => r.method)).toEqual(["POST"]);
  });
});
