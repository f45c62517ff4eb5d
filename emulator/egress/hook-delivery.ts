/**
 * Delivering an HTTP hook (spec/HOOKS.md): POST the event JSON to the handler's `url` under the
 * environment's network policy, exactly as a request from its sandbox through the egress proxy would
 * go — the host must be allowed, addresses that are not globally reachable are refused unless an
 * operator route (`--egress-route`) covers the host, and the allowlist's headers and credentials are
 * injected on top of the handler's own `headers`. The whole exchange (resolution included) must finish within the
 * handler's timeout.
 *
 * Never throws: a 2xx answer is `{status, body}`; anything else is `{failure}` (refused by policy,
 * connection failure, timeout, non-2xx — the last also carries `status`), so the runtime fails open.
 * Failure texts name the host and the reason, never an injected value.
 */
import type { IncomingMessage } from "node:http";
import { openUpstream, resolveUpstream, type UpstreamConfig } from "./upstream";
import type { Network } from "../../client/schemas";

/** One HTTP handler call. */
export interface HttpHookRequest {
  /** The handler's `url`, e.g. `https://telemetry.example.com/api/v1/agent-events`. */
  url: string;
  /** The handler's `headers` (non-sensitive, e.g. `{"X-Event-Source": "agent-sandbox"}`). */
  headers?: Readonly<Record<string, string>>;
  /** The handler's `timeout` in seconds (spec default 30). */
  timeoutSeconds?: number;
  /** The event: a JSON text, or a value serialised with JSON.stringify. */
  payload: string | object;
}

/** The handler's answer (2xx), or why it was not delivered or failed. */
export type HttpHookDelivery = { status: number; body: string } | { failure: string; status?: number };

const TIMEOUT_SECONDS = 30; // spec/HOOKS.md default
const MAX_BODY_BYTES = 1024 * 1024; // 1 MiB of answer kept

export async function deliverThrough(
  config: UpstreamConfig,
  request: HttpHookRequest & { network: Network | undefined; owner: string },
): Promise<HttpHookDelivery> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { failure: `not delivered: ${JSON.stringify(request.url)} is not a URL` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { failure: `not delivered: ${url.protocol} URLs are not supported` };
  const seconds = request.timeoutSeconds ?? TIMEOUT_SECONDS;
  const body = typeof request.payload === "string" ? request.payload : JSON.stringify(request.payload);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, seconds * 1000);
  try {
    const exchange = post(config, request, url, body, controller.signal);
    const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener("abort", () => reject(new Error("aborted"))));
    return await Promise.race([exchange, aborted]);
  } catch (error) {
    if (timedOut) return { failure: `not delivered: ${url.host} did not answer within ${seconds} s` };
    const code = (error as NodeJS.ErrnoException).code;
    return { failure: `not delivered: could not reach ${url.host}: ${code ?? (error as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}

async function post(
  config: UpstreamConfig,
  request: { headers?: Readonly<Record<string, string>>; network: Network | undefined; owner: string },
  url: URL,
  body: string,
  signal: AbortSignal,
): Promise<HttpHookDelivery> {
  const protocol = url.protocol as "http:" | "https:";
  const decided = await resolveUpstream(config, request.network, {
    host: url.hostname,
    port: Number(url.port || (protocol === "https:" ? 443 : 80)),
    protocol,
  });
  if ("refused" in decided) return { failure: `not delivered: ${decided.refused}` };
  const headers = { ...request.headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
  const outgoing = await openUpstream(config, request, decided.upstream, { method: "POST", path: url.pathname + url.search, headers }, signal);
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.once("response", resolve);
    outgoing.once("error", reject);
    outgoing.end(body);
  });
  const text = await readBody(response);
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) return { failure: `answered HTTP ${status}`, status };
  return { status, body: text };
}

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (size >= MAX_BODY_BYTES) continue; // drain the rest
    chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString("utf8");
}
