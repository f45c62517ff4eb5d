/** Upstream servers on loopback for the egress tests (port 0, closed after the file), and proxies. */
import { mkdtempSync, rmSync } from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { EgressProxy, type EgressProxyOptions } from "../../../emulator/egress";
import { loadOrCreateCa, newKeyPair, signLeaf } from "../../../emulator/egress/ca";

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Upstream {
  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`: the value of an egress route. */
  url: string;
  requests: Recorded[];
  /** Status and body of the next answers; default 200 `ok <host> <path>`. */
  answer: (request: Recorded) => { status: number; body: string; delayMs?: number };
  /** PEM of the CA that signed an HTTPS upstream's certificate. */
  caPem?: string;
}

const closers: (() => Promise<void>)[] = [];
const dirs: string[] = [];

/** A temporary directory removed after the file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A plain or TLS upstream on 127.0.0.1 recording every request. */
export async function startUpstream(secure = false): Promise<Upstream> {
  const upstream: Upstream = {
    url: "",
    requests: [],
    answer: (request) => ({ status: 200, body: `ok ${request.headers.host} ${request.url}` }),
  };
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      upstream.requests.push(recorded);
      const { status, body, delayMs } = upstream.answer(recorded);
      setTimeout(() => res.writeHead(status, { "content-type": "text/plain" }).end(body), delayMs ?? 0).unref();
    });
  };
  let server: http.Server;
  if (secure) {
    // A test CA that nothing else trusts; the proxy gets it as `upstreamCa`.
    const ca = await loadOrCreateCa(tempDir("genv-egress-upca-"), "genv test upstream CA");
    const key = await newKeyPair();
    server = https.createServer({ key: key.privatePem, cert: signLeaf(ca, key, "127.0.0.1") }, handler);
    upstream.caPem = ca.certPem;
  } else {
    server = http.createServer(handler);
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  upstream.url = `${secure ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return upstream;
}

/** An egress proxy with its own data directory, closed after the file. */
export function startProxy(options: Omit<EgressProxyOptions, "dataDir">): EgressProxy {
  const proxy = new EgressProxy({ dataDir: tempDir("genv-egress-data-"), ...options });
  closers.push(() => proxy.close());
  return proxy;
}

/**
 * Until `restore()`, every outgoing TCP connection of this process fails at once instead of leaving
 * the machine, and `attempts` records where it would have gone (`host:port`, `unix:path`): for tests that prove
 * the proxy refuses an address before it connects — and that send nothing out should it not.
 */
export function refuseOutgoingConnections(): { attempts: string[]; restore: () => void } {
  const attempts: string[] = [];
  const spy = jest.spyOn(net.Socket.prototype, "connect").mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    // Node calls it with its normalised [options, callback]; a direct caller with (options) or (port, host).
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const options = typeof first === "object" && first !== null ? (first as Partial<net.TcpNetConnectOpts & net.IpcNetConnectOpts>) : { port: Number(first), host: String(args[1]) };
    attempts.push(options.port === undefined ? `unix:${options.path}` : `${options.host}:${options.port}`);
    process.nextTick(() => this.destroy(new Error("test: outgoing connections are refused")));
    return this;
  } as never);
  return { attempts, restore: () => spy.mockRestore() };
}

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
