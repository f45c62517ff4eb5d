/**
 * The sandbox's end of the egress path (`emulator/egress/` is the proxy's): what `runInSandbox` adds to
 * a call whose environment may reach the network.
 *
 * - the environment's proxy socket, bound at `/etc/genv-egress/proxy.sock`;
 * - the environment's CA certificate, bound at `/etc/ssl/certs/genv-egress-ca.pem` (the sandbox has no
 *   other trust anchor: every TLS connection it makes ends at the proxy);
 * - a forwarder started before the command, inside the sandbox's own network namespace:
 *   `socat TCP-LISTEN:3128,bind=127.0.0.1,fork UNIX-CONNECT:/etc/genv-egress/proxy.sock`; the
 *   command starts once the port accepts connections;
 * - `HTTP_PROXY`/`HTTPS_PROXY` (both cases) = `http://127.0.0.1:3128`, `NO_PROXY` empty, and the CA
 *   in `SSL_CERT_FILE`, `CURL_CA_BUNDLE`, `REQUESTS_CA_BUNDLE`, `NODE_EXTRA_CA_CERTS`, `GIT_SSL_CAINFO`,
 *   `PIP_CERT`.
 * Nothing here holds a secret: injection happens in the proxy, outside the sandbox.
 */
import { existsSync } from "node:fs";
import type { HttpDeliverer } from "../../hooks/runtime";
import type { Network } from "../../client/schemas";
import { SandboxUnavailableError } from "./errors";

/**
 * Egress for one sandboxed call: whose policy applies, and the proxy that enforces it — injected by
 * the caller (the emulator passes its `EgressProxy`), so that the sandbox depends on no proxy code.
 */
export interface SandboxEgress {
  /** The environment's `network`: omitted allows everything, `"disabled"` nothing. */
  network: Network | undefined;
  /** The API key that owns the environment (credentials are per owner). */
  owner: string;
  /** Example: `env_abc123`. */
  envId: string;
  proxy: EgressPort;
}

/** What the sandbox uses of an egress proxy. */
export interface EgressPort {
  /** The environment's proxy socket and CA for a call; undefined when its policy lets nothing out. */
  attach(context: Omit<SandboxEgress, "proxy">): Promise<{ socketPath: string; caCertPem: string } | undefined>;
  /** Delivers HTTP hooks under the environment's policy, as the hooks runtime's `deliverHttp`. */
  httpHookDeliverer(context: Omit<SandboxEgress, "proxy">): HttpDeliverer;
}

/** What `runInSandbox` adds for egress. */
export interface SandboxEgressSetup {
  /** The proxy's socket on the host, bound at `SANDBOX_SOCKET_PATH`. */
  socketPath: string;
  /** The CA certificate's content, written at `SANDBOX_CA_PATH`. */
  caCertPem: string;
  /** Variables for the sandbox's environment. */
  env: Record<string, string>;
  /** The command wrapped so that the forwarder listens before it starts. */
  wrap(argv: readonly string[]): string[];
}

export const SANDBOX_PROXY_PORT = 3128;
export const SANDBOX_PROXY_URL = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
export const SANDBOX_SOCKET_PATH = "/etc/genv-egress/proxy.sock";
export const SANDBOX_CA_PATH = "/etc/ssl/certs/genv-egress-ca.pem";
const SOCAT = "/usr/bin/socat";

// Waits with bash builtins only: a connect to 127.0.0.1:3128 is refused at once until socat listens
// (≈ 5 ms; reading /proc/net/tcp instead costs ~10 ms per poll on a busy host). The probe's one
// connection reaches the proxy as a connection without a request, which it ignores.
const FORWARDER =
  `${SOCAT} -lf /dev/null TCP-LISTEN:${SANDBOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SANDBOX_SOCKET_PATH} </dev/null >/dev/null 2>&1 &\n` +
  `for ((i = 0; i < 100000; i++)); do { : 3<>/dev/tcp/127.0.0.1/${SANDBOX_PROXY_PORT}; } 2>/dev/null && break; done\n` +
  'unset i; exec "$@"';

/** The egress additions for a call, or undefined when the policy lets nothing out (no proxy at all). */
export async function prepareSandboxEgress(egress: SandboxEgress): Promise<SandboxEgressSetup | undefined> {
  const attachment = await egress.proxy.attach(egress);
  if (!attachment) return undefined;
  if (!existsSync(SOCAT)) throw new SandboxUnavailableError("socat is not installed (the sandbox's egress forwarder): apt-get install socat");
  const ca = SANDBOX_CA_PATH;
  return {
    socketPath: attachment.socketPath,
    caCertPem: attachment.caCertPem,
    env: {
      HTTP_PROXY: SANDBOX_PROXY_URL,
      HTTPS_PROXY: SANDBOX_PROXY_URL,
      http_proxy: SANDBOX_PROXY_URL,
      https_proxy: SANDBOX_PROXY_URL,
      NO_PROXY: "",
      no_proxy: "",
      SSL_CERT_FILE: ca,
      CURL_CA_BUNDLE: ca,
      REQUESTS_CA_BUNDLE: ca,
      NODE_EXTRA_CA_CERTS: ca,
      GIT_SSL_CAINFO: ca,
      PIP_CERT: ca,
    },
    wrap: (argv) => ["/bin/bash", "-c", FORWARDER, "genv-egress", ...argv],
  };
}
