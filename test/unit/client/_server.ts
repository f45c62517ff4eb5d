/**
 * A real HTTP server on 127.0.0.1, port 0, that records what it receives. Test helper, not a test.
 *
 * Only for what the emulator cannot produce: HTTP-date Retry-After, 408/502/504, a repeated page
 * token, bodies a proxy would send, resets at chosen moments, wire variants (an empty 200, a 204).
 * The client's happy paths run against the emulator (test/integration/client/).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { EnvironmentsClient, type EnvironmentsClientOptions } from "../../../client";

export interface Received {
  method: string;
  /** The request target exactly as sent, e.g. `/v1beta/environments/env_1/files/a%20b`. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, received: Received, index: number) => void;

export interface TestServer {
  baseUrl: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler, port = 0): Promise<TestServer> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const entry = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(entry);
      handler(req, res, entry, received.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actualPort = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that was bound and then released: connecting to it is refused. */
export async function refusedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function googleError(res: http.ServerResponse, code: number, status: string, message: string, headers: Record<string, string> = {}): void {
  json(res, code, { error: { code, message, status } }, headers);
}

/** A client with an API key and small, fast retry settings; `overrides` win. */
export function testClient(baseUrl: string, overrides: EnvironmentsClientOptions = {}): EnvironmentsClient {
  return new EnvironmentsClient({
    apiKey: "test-key",
    baseUrl,
    env: {},
    timeoutMs: 2_000,
    ...overrides,
    retry: { maxAttempts: 4, initialDelayMs: 5, maxDelayMs: 20, totalTimeMs: 5_000, ...overrides.retry },
  });
}

export const ENV = {
  id: "env_abc123",
  created: "2026-08-19T00:00:00Z",
  updated: "2026-08-19T00:00:00Z",
  last_accessed: "2026-08-19T00:00:00Z",
  status: "active",
};

/**
 * For a describe block: `serve` starts a server and `client` makes a test client, both closed after
 * each test.
 */
export function useServersAndClients(): {
  serve: (handler: Handler, port?: number) => Promise<TestServer>;
  client: (...args: Parameters<typeof testClient>) => EnvironmentsClient;
} {
  const servers: TestServer[] = [];
  const clients: EnvironmentsClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return {
    async serve(handler, port) {
      const server = await startServer(handler, port);
      servers.push(server);
      return server;
    },
    client(...args) {
      const c = testClient(...args);
      clients.push(c);
      return c;
    },
  };
}
