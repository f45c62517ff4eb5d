/**
 * From "the sandbox wants host:port" to a request on the wire: the policy check, the operator's
 * routes, the address check, the injected headers and query parameters. Shared by the proxy (for
 * the sandbox's requests) and the HTTP hook deliverer, so both obey exactly the same rules.
 */
import http, { type ClientRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { checkServerIdentity, rootCertificates, type PeerCertificate } from "node:tls";
import type { Network } from "../../client/schemas";
import { resolveChecked, type CheckedAddress } from "./_resolve";
import { injectionFor, normaliseHost, policyRefusal, type CredentialResolver } from "./policy";

/** What every upstream request of one proxy shares. */
export interface UpstreamConfig {
  /** Lower-case host → the operator's upstream (`--egress-route`). */
  routes: ReadonlyMap<string, URL>;
  /** Trust anchors for upstream TLS when extra CAs were given; undefined: Node's defaults. */
  upstreamCa?: readonly string[];
  resolveCredential?: CredentialResolver;
}

/** Where the sandbox's traffic for one host goes, once allowed. */
export interface Upstream {
  protocol: "http:" | "https:";
  /** Name (or IP literal) to connect to and to verify the certificate against. */
  host: string;
  port: number;
  /** The checked address to connect to; undefined for an operator route (connect as configured). */
  address?: CheckedAddress;
  /** The host the sandbox asked for (policy and injection are decided on it). */
  requestedHost: string;
  /** The `Host` header the upstream receives: the requested host, with a non-default port. */
  hostHeader: string;
}

/** The request as the sandbox (or a hook) made it. */
export interface OutgoingRequest {
  method: string;
  /** Origin-form path with query, e.g. `/v1/events?x=1`. */
  path: string;
  headers: OutgoingHttpHeaders;
}

const HOP_BY_HOP = new Set([
  "connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate",
  "te", "trailer", "transfer-encoding", "upgrade",
]);
const DEFAULT_PORT = { "http:": 80, "https:": 443 } as const;

/** Parses `--egress-route` values up front (fail fast): host → `http(s)://host:port` without a path. */
export function parseRoutes(routes: Readonly<Record<string, string>> | undefined): Map<string, URL> {
  const parsed = new Map<string, URL>();
  for (const [host, target] of Object.entries(routes ?? {})) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new Error(`egress route ${host}: ${JSON.stringify(target)} is not a URL; use e.g. http://127.0.0.1:8080`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`egress route ${host}: ${target} must be http:// or https://`);
    if (url.pathname !== "/" || url.search !== "" || url.username !== "") {
      throw new Error(`egress route ${host}: ${target} must be scheme://host:port only (no path, query or credentials)`);
    }
    const key = normaliseHost(host);
    if (key === "" || /[/\s]/.test(key) || (key.includes(":") && isIP(key) !== 6)) {
      throw new Error(`egress route: ${JSON.stringify(host)} is not a host name`);
    }
    parsed.set(key, url);
  }
  return parsed;
}

/** Where a request for `host:port` (spoken as `protocol`) goes, or why it may not go anywhere. */
export async function resolveUpstream(
  config: UpstreamConfig,
  network: Network | undefined,
  requested: { host: string; port: number; protocol: "http:" | "https:" },
): Promise<{ upstream: Upstream } | { refused: string }> {
  const host = normaliseHost(requested.host);
  const refusal = policyRefusal(network, host);
  if (refusal) return { refused: refusal };
  const hostHeader = requested.port === DEFAULT_PORT[requested.protocol] ? hostForUrl(host) : `${hostForUrl(host)}:${requested.port}`;
  const route = config.routes.get(host);
  if (route) {
    const protocol = route.protocol as Upstream["protocol"];
    const port = route.port === "" ? DEFAULT_PORT[protocol] : Number(route.port);
    return { upstream: { protocol, host: normaliseHost(route.hostname), port, requestedHost: host, hostHeader } };
  }
  const checked = await resolveChecked(host);
  if ("refused" in checked) return { refused: `egress to ${host} is blocked: ${checked.refused}` };
  return { upstream: { protocol: requested.protocol, host, port: requested.port, address: checked, requestedHost: host, hostHeader } };
}

/**
 * Opens the upstream request (not yet ended): the sandbox's headers less hop-by-hop and proxy ones,
 * `Host` set to the requested host, then the injected headers and query parameters on top.
 */
export async function openUpstream(
  config: UpstreamConfig,
  policy: { network: Network | undefined; owner: string },
  upstream: Upstream,
  request: OutgoingRequest,
  signal?: AbortSignal,
): Promise<ClientRequest> {
  const injection = await injectionFor(policy.network, upstream.requestedHost, policy.owner, config.resolveCredential);
  const headers: OutgoingHttpHeaders = { ...request.headers, host: upstream.hostHeader };
  for (const [name, value] of Object.entries(injection.headers)) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = value;
  }
  let path = request.path;
  if (Object.keys(injection.query).length > 0) {
    const url = new URL(path, "http://placeholder");
    for (const [name, value] of Object.entries(injection.query)) url.searchParams.set(name, value);
    path = url.pathname + url.search;
  }
  const secure = upstream.protocol === "https:";
  return (secure ? https : http).request({
    host: upstream.host,
    port: upstream.port,
    method: request.method,
    path,
    headers,
    agent: false,
    signal,
    lookup: upstream.address ? fixedLookup(upstream.address) : undefined,
    ...(secure
      ? {
          // Verify against the host we connect to (a route's own host), never the Host header, which
          // Node's agent would otherwise use for SNI and verification.
          servername: isIP(upstream.host) === 0 ? upstream.host : "",
          checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(upstream.host, cert),
          rejectUnauthorized: true,
          ca: config.upstreamCa ? [...rootCertificates, ...config.upstreamCa] : undefined,
        }
      : {}),
  });
}

/** The headers of a message, less hop-by-hop and proxy headers (and those `Connection` names). */
export function endToEndHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = String(headers.connection ?? "").toLowerCase().split(",").map((s) => s.trim());
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/** A lookup that answers with the already-checked address (never resolves again). */
function fixedLookup(checked: CheckedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: CheckedAddress[]) => void)(null, [checked]);
    else callback(null, checked.address, checked.family);
  };
}

function hostForUrl(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}
