/**
 * The egress proxy: the only way out of a sandbox (see README.md). One HTTP server, fed by one Unix
 * socket listener per environment, so every connection knows whose policy it is under. It serves
 * - plain HTTP forward-proxy requests (`GET http://host/path`);
 * - `CONNECT host:port`, answered by terminating TLS with a leaf certificate for `host` signed by the
 *   environment's own CA (only that sandbox trusts it), then forwarding each request inside the
 *   tunnel like a plain one — which is what lets it check and inject headers on HTTPS traffic.
 * Upstream certificates are verified normally. Refusals are `403` with a text body naming the host
 * and the policy, never a header value.
 *
 * Why not http-mitm-proxy: it keeps its CA in one directory per proxy instance (a per-environment CA
 * would need an instance, a TCP port and an async CA load per environment), it relays each MITM'd
 * connection through an internal HTTPS server on a loopback TCP port, and it cannot tell which
 * environment a connection came from. node:http + node:tls + node-forge do all of it in one place.
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Duplex } from "node:stream";
import { promisify } from "node:util";
import tls from "node:tls";
import type { Network } from "../../client/schemas";
import { processGone, selfIdentity } from "../process-identity";
import { loadOrCreateCa, newKeyPair, signLeaf, type CertificateAuthority, type KeyPair } from "./ca";
import { normaliseHost } from "./policy";
import { endToEndHeaders, openUpstream, parseRoutes, resolveUpstream, type Upstream, type UpstreamConfig } from "./upstream";
import { deliverThrough, type HttpHookDelivery, type HttpHookRequest } from "./hook-delivery";
import { networkDisabled, type CredentialResolver } from "./policy";

export interface EgressProxyOptions {
  /** The emulator's data directory: each environment's CA lives in `<dataDir>/egress/<env-id>/ca/`. */
  dataDir: string;
  /**
   * Operator overrides (`genv serve --egress-route HOST=URL`): traffic for HOST goes to URL, e.g.
   * `{"telemetry.example.com": "http://127.0.0.1:9000"}`. The allowlist still applies to HOST; the
   * address check does not (the only way a sandbox reaches loopback or another non-global address).
   */
  routes?: Readonly<Record<string, string>>;
  /** Reveals a credential referenced by an allowlist entry; without it, credentials inject nothing. */
  resolveCredential?: CredentialResolver;
  /** Test only: extra PEM CAs trusted for upstream TLS (besides Node's roots), e.g. a test server's CA. */
  upstreamCa?: string | readonly string[];
  /** Idle time after which an environment's listener closes (reopened on the next call). Default 10 min. */
  idleMs?: number;
}

/** Whose policy a sandbox call or hook runs under. */
export interface EgressContext {
  /** The environment's `network`: omitted allows everything, `"disabled"` nothing. */
  network: Network | undefined;
  /** The API key that owns the environment (credentials are per owner). */
  owner: string;
  /** Example: `env_abc123`. */
  envId: string;
}

/** What a sandbox needs to use the proxy. */
export interface EgressAttachment {
  /** Host path of the environment's proxy socket (bound into the sandbox). */
  socketPath: string;
  /** The environment's CA certificate (PEM), given to the sandbox as a file's content. */
  caCertPem: string;
}

const IDLE_MS = 10 * 60 * 1000; // 10 min

interface EnvState {
  context: EgressContext;
  key: string;
  ca: CertificateAuthority;
  caCertPem: string;
  leaves: Map<string, tls.SecureContext>;
  listener: net.Server;
  socketPath: string;
  idle?: NodeJS.Timeout;
}

interface Tunnel {
  state: EnvState;
  upstream: Upstream;
}

export class EgressProxy {
  private readonly config: UpstreamConfig;
  private readonly server: http.Server;
  /** Environments being opened or open, and those open (for retiring without awaiting). */
  private readonly states = new Map<string, Promise<EnvState>>();
  private readonly current = new Map<string, EnvState>();
  /** The environment of each raw connection, and the upstream of each MITM'd tunnel. */
  private readonly owners = new WeakMap<object, EnvState>();
  private readonly tunnels = new WeakMap<object, Tunnel>();
  private readonly sockets = new Set<Duplex>();
  private socketDir?: Promise<string>;
  private leafKey?: Promise<KeyPair>;
  private counter = 0;
  private closed = false;

  constructor(private readonly options: EgressProxyOptions) {
    const extra = options.upstreamCa === undefined ? undefined : typeof options.upstreamCa === "string" ? [options.upstreamCa] : [...options.upstreamCa];
    this.config = { routes: parseRoutes(options.routes), upstreamCa: extra, resolveCredential: options.resolveCredential };
    this.server = http.createServer((req, res) => void this.onRequest(req, res));
    this.server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.onConnect(req, socket, head));
    this.server.on("clientError", (_error, socket) => socket.destroy());
  }

  /**
   * Opens (or reuses) the environment's listener and CA for a sandbox call; undefined when the
   * policy lets nothing out (then the sandbox gets no proxy at all).
   */
  async attach(context: EgressContext): Promise<EgressAttachment | undefined> {
    if (networkDisabled(context.network)) return undefined;
    if (this.closed) throw new Error("the egress proxy is closed");
    const key = JSON.stringify([context.owner, context.network ?? null]);
    let pending = this.states.get(context.envId);
    const current = pending ? await pending.catch(() => undefined) : undefined;
    if (!current || current.key !== key) {
      if (current) this.retire(current);
      pending = this.open(context, key);
      this.states.set(context.envId, pending);
      const opening = pending;
      opening.catch(() => {
        if (this.states.get(context.envId) === opening) this.states.delete(context.envId);
      });
    }
    const state = await pending!;
    this.touch(state);
    return { socketPath: state.socketPath, caCertPem: state.caCertPem };
  }

  /** POSTs a hook event under the environment's policy (see `hook-delivery.ts`). */
  deliverHttpHook(request: HttpHookRequest & EgressContext): Promise<HttpHookDelivery> {
    return deliverThrough(this.config, request);
  }

  /**
   * A deliverer bound to one environment, shaped as the hooks runtime's `HttpDeliverer`:
   * `({url, headers, timeoutSeconds, body}) => {status, body} | {failure}`.
   */
  httpHookDeliverer(context: EgressContext): (request: { url: string; headers: Readonly<Record<string, string>>; timeoutSeconds: number; body: string }) => Promise<HttpHookDelivery> {
    return (request) => deliverThrough(this.config, { ...context, ...request, payload: request.body });
  }

  /** Closes an environment's listener and removes its CA (after DeleteEnvironment). */
  async forget(envId: string): Promise<void> {
    const state = await this.states.get(envId)?.catch(() => undefined);
    if (state) this.retire(state);
    await fs.rm(this.caDir(envId), { recursive: true, force: true });
  }

  /** Closes every listener and connection and removes the sockets. */
  async close(): Promise<void> {
    this.closed = true;
    const states = await Promise.all([...this.states.values()].map((p) => p.catch(() => undefined)));
    for (const state of states) if (state) this.retire(state);
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
    if (this.socketDir) await fs.rm(await this.socketDir, { recursive: true, force: true });
  }

  // ── per environment ─────────────────────────────────────────────────────────────────────────

  private async open(context: EgressContext, key: string): Promise<EnvState> {
    const ca = await loadOrCreateCa(this.caDir(context.envId), `genv egress CA for ${context.envId}`);
    this.socketDir ??= socketDirectory();
    const socketPath = path.join(await this.socketDir, `${++this.counter}.sock`);
    const caCertPem = await fs.readFile(ca.certPath, "utf8");
    const state: EnvState = { context, key, ca, caCertPem, leaves: new Map(), socketPath, listener: net.createServer() };
    state.listener.on("connection", (socket) => {
      this.track(socket);
      this.owners.set(socket, state);
      this.touch(state);
      this.server.emit("connection", socket);
    });
    await new Promise<void>((resolve, reject) => {
      state.listener.once("error", reject);
      state.listener.listen(socketPath, () => resolve());
    });
    // The sandbox connects as its own host user (sandbox/_identity.ts).
    await fs.chmod(socketPath, 0o666);
    this.current.set(context.envId, state);
    return state;
  }

  private retire(state: EnvState): void {
    if (this.current.get(state.context.envId) === state) {
      this.current.delete(state.context.envId);
      this.states.delete(state.context.envId);
    }
    clearTimeout(state.idle);
    state.listener.close(); // open connections finish; the socket file is unlinked
  }

  private touch(state: EnvState): void {
    clearTimeout(state.idle);
    state.idle = setTimeout(() => this.retire(state), this.options.idleMs ?? IDLE_MS);
    state.idle.unref();
  }

  private caDir(envId: string): string {
    return path.join(this.options.dataDir, "egress", envId.replace(/[^A-Za-z0-9_.-]/g, "_"), "ca");
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
  }

  // ── the proxy ──────────────────────────────────────────────────────────────────────────────

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const tunnel = this.tunnels.get(req.socket);
    const state = tunnel?.state ?? this.owners.get(req.socket);
    if (!state) return refuse(res, 500, "egress proxy: connection of no known environment");
    let upstream: Upstream;
    let requestPath: string;
    if (tunnel) {
      upstream = tunnel.upstream; // the CONNECT authority decides, whatever Host the client sends
      requestPath = req.url?.startsWith("/") ? req.url : "/";
    } else {
      let url: URL;
      try {
        url = new URL(req.url ?? "");
      } catch {
        return refuse(res, 400, "egress proxy: send requests in absolute form (use it as HTTP_PROXY), e.g. GET http://example.com/ HTTP/1.1");
      }
      if (url.protocol !== "http:") return refuse(res, 400, `egress proxy: ${url.protocol} URLs go through CONNECT, not as a plain request`);
      const decided = await resolveUpstream(this.config, state.context.network, { host: url.hostname, port: Number(url.port || 80), protocol: "http:" });
      if ("refused" in decided) return refuse(res, 403, decided.refused);
      upstream = decided.upstream;
      requestPath = url.pathname + url.search;
    }
    let upstreamReq: http.ClientRequest;
    try {
      upstreamReq = await openUpstream(this.config, state.context, upstream, { method: req.method ?? "GET", path: requestPath, headers: endToEndHeaders(req.headers) });
    } catch (error) {
      return refuse(res, 502, `egress proxy: could not reach ${upstream.requestedHost}: ${(error as Error).message}`);
    }
    upstreamReq.on("response", (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, endToEndHeaders(upstreamRes.headers));
      upstreamRes.pipe(res);
      upstreamRes.on("error", () => res.destroy());
    });
    upstreamReq.on("error", (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      refuse(res, 502, `egress proxy: could not reach ${upstream.requestedHost}: ${error.code ?? error.message}`);
    });
    req.pipe(upstreamReq);
  }

  private async onConnect(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    const state = this.owners.get(socket);
    const authority = parseAuthority(req.url ?? "");
    if (!state || this.tunnels.has(socket)) return rawRefuse(socket, 400, "egress proxy: CONNECT inside a tunnel is not supported");
    if (!authority) return rawRefuse(socket, 400, `egress proxy: CONNECT needs host:port, got ${JSON.stringify(req.url)}`);
    const decided = await resolveUpstream(this.config, state.context.network, { ...authority, protocol: "https:" });
    if ("refused" in decided) return rawRefuse(socket, 403, decided.refused);
    let secureContext: tls.SecureContext;
    try {
      secureContext = await this.leafContext(state, authority.host);
    } catch (error) {
      return rawRefuse(socket, 500, `egress proxy: could not make a certificate for ${authority.host}: ${(error as Error).message}`);
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) socket.unshift(head);
    const secure = new tls.TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ["http/1.1"] });
    this.track(secure);
    secure.on("error", () => secure.destroy());
    this.tunnels.set(secure, { state, upstream: decided.upstream });
    this.server.emit("connection", secure);
  }

  private async leafContext(state: EnvState, host: string): Promise<tls.SecureContext> {
    const name = normaliseHost(host);
    const cached = state.leaves.get(name);
    if (cached) return cached;
    this.leafKey ??= newKeyPair();
    const key = await this.leafKey;
    const context = tls.createSecureContext({ key: key.privatePem, cert: signLeaf(state.ca, key, name) });
    state.leaves.set(name, context);
    return context;
  }
}

/** `host:port` or `[v6]:port` of a CONNECT request. */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: normaliseHost(match[1]), port };
}

function refuse(res: ServerResponse, status: number, message: string): void {
  const body = `${message}\n`;
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(body), "x-genv-egress": "refused" });
  res.end(body);
}

function rawRefuse(socket: Duplex, status: number, message: string): void {
  const body = `${message}\n`;
  const reason = http.STATUS_CODES[status] ?? "Error";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-genv-egress: refused\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Where the sockets of sandboxes started as root live (see `socketDirectory`). */
const NEUTRAL_SOCKET_BASE = "/run/genv-sandbox/sockets";

/**
 * A directory for this proxy's sockets; short paths, as Unix socket paths are limited to 108 bytes.
 *
 * A bind mount shows its source's path in the sandbox's `/proc/self/mountinfo`, as a path inside the
 * file system that holds it. As root, the sockets therefore live in a tmpfs of their own (mounted once
 * at `/run/genv-sandbox/sockets`), where that path is `/<random>/<n>.sock` and says nothing of the
 * host; the directories are traversable (0711), not listable, so that the sandbox's own host user
 * (sandbox/_identity.ts) reaches its socket by a name nobody else can guess. Otherwise a private
 * temporary directory, as the sandbox then runs as the emulator's own user.
 */
async function socketDirectory(): Promise<string> {
  if (process.getuid?.() === 0) {
    try {
      await fs.mkdir(NEUTRAL_SOCKET_BASE, { recursive: true, mode: 0o711 });
      const [base, parent] = await Promise.all([fs.stat(NEUTRAL_SOCKET_BASE), fs.stat(path.dirname(NEUTRAL_SOCKET_BASE))]);
      if (base.dev === parent.dev) {
        await promisify(execFile)("mount", ["-t", "tmpfs", "-o", "mode=0711,size=4m,nosuid,nodev,noexec", "genv-egress-sockets", NEUTRAL_SOCKET_BASE]);
      }
      await sweepDeadOwners(NEUTRAL_SOCKET_BASE, "e");
      const dir = await fs.mkdtemp(path.join(NEUTRAL_SOCKET_BASE, `e${selfIdentity}-`));
      await fs.chmod(dir, 0o711);
      return dir;
    } catch {
      // no /run, or no mount: the temporary directory below (its path then shows in the sandbox)
    }
  }
  await sweepDeadOwners(os.tmpdir(), "genv-egress-");
  return fs.mkdtemp(path.join(os.tmpdir(), `genv-egress-${selfIdentity}-`));
}

/**
 * Removes the socket directories (`<prefix><pid>-<start>-…`) of emulators that are gone: one that was
 * killed could not remove its own. Its owner is told by pid and start time (process-identity), so a
 * dead emulator's directory is swept though its pid now names another process. Run at start-up.
 */
export async function sweepSocketDirectories(): Promise<void> {
  await sweepDeadOwners(NEUTRAL_SOCKET_BASE, "e");
  await sweepDeadOwners(os.tmpdir(), "genv-egress-");
}

async function sweepDeadOwners(dir: string, prefix: string): Promise<void> {
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    // Names from before the start time was in them (`<prefix><pid>-<random>`) are judged by pid alone.
    const owner = new RegExp(`^${prefix}(\\d+)-(?:(\\d+)-)?`).exec(name);
    if (!owner || name.startsWith(`${prefix}${selfIdentity}-`) || !processGone(Number(owner[1]), owner[2])) continue;
    await fs.rm(path.join(dir, name), { recursive: true, force: true }).catch(() => undefined);
  }
}
