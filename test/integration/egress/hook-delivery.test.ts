import type { Network } from "../../../client/schemas";
import { refuseOutgoingConnections, startProxy, startUpstream, type Upstream } from "./_servers";

// The audit-logging example of spec/HOOKS.md, with the telemetry host routed to a local upstream.
const network: Network = {
  allowlist: [
    { domain: "telemetry.example.com", transform: { Authorization: "Bearer t0ken-transform" } },
    { domain: "creds.example.com", credential: "telemetry" },
    { domain: "*" },
  ],
};
const payload = { tool_call: { name: "write_to_file", args: { path: "/workspace/a.txt", content: "a" } }, environment_id: "env_1" };

let upstream: Upstream;
let tlsUpstream: Upstream;
const proxy = () =>
  startProxy({
    routes: { "telemetry.example.com": upstream.url, "creds.example.com": tlsUpstream.url, "off.example.org": upstream.url },
    upstreamCa: tlsUpstream.caPem,
    resolveCredential: (owner, id) => (owner === "key-a" && id === "telemetry" ? { type: "bearer_token", token: "t0ken-credential" } : undefined),
  });

beforeAll(async () => {
  upstream = await startUpstream();
  tlsUpstream = await startUpstream(true);
});
beforeEach(() => {
  upstream.requests.length = 0;
  tlsUpstream.requests.length = 0;
  upstream.answer = tlsUpstream.answer = () => ({ status: 200, body: '{"decision": "allow"}' });
});

test("an allowlisted host receives the event with the handler's headers and the injected Authorization", async () => {
  const delivery = await proxy().deliverHttpHook({
    url: "https://telemetry.example.com/api/v1/agent-events",
    headers: { "X-Event-Source": "agent-sandbox", Authorization: "from-hooks-json" },
    timeoutSeconds: 10,
    payload,
    network,
    owner: "key-a",
    envId: "env_1",
  });
  expect(delivery).toEqual({ status: 200, body: '{"decision": "allow"}' });
  const [seen] = upstream.requests;
  expect(seen).toMatchObject({ method: "POST", url: "/api/v1/agent-events", body: JSON.stringify(payload) });
  expect(seen.headers).toMatchObject({
    host: "telemetry.example.com",
    authorization: "Bearer t0ken-transform",
    "x-event-source": "agent-sandbox",
    "content-type": "application/json",
  });
});

test("a credential is injected over HTTPS to a verified upstream; the bound deliverer has the runtime's shape", async () => {
  const deliver = proxy().httpHookDeliverer({ network, owner: "key-a", envId: "env_1" });
  const delivery = await deliver({ url: "https://creds.example.com/events?x=1", headers: {}, timeoutSeconds: 10, body: "{}" });
  expect(delivery).toEqual({ status: 200, body: '{"decision": "allow"}' });
  expect(tlsUpstream.requests[0]).toMatchObject({ url: "/events?x=1", body: "{}" });
  expect(tlsUpstream.requests[0].headers.authorization).toBe("Bearer t0ken-credential");
});

test("a host off the allowlist is not delivered", async () => {
  const delivery = await proxy().deliverHttpHook({
    url: "https://off.example.org/hook",
    payload,
    network: { allowlist: [{ domain: "telemetry.example.com" }] },
    owner: "key-a",
    envId: "env_1",
  });
  expect(delivery).toEqual({
    failure: "not delivered: egress to off.example.org is blocked: off.example.org does not match the allowlist [telemetry.example.com] of this environment's network",
  });
  expect(upstream.requests).toEqual([]);
});

test("loopback is not delivered without a route, even when every domain is allowed", async () => {
  const delivery = await proxy().deliverHttpHook({ url: `${upstream.url}/hook`, payload, network, owner: "key-a", envId: "env_1" });
  expect(delivery).toEqual({
    failure: "not delivered: egress to 127.0.0.1 is blocked: 127.0.0.1 is in 127.0.0.0/8 (loopback): the proxy connects to globally reachable addresses only",
  });
  expect(upstream.requests).toEqual([]);
});

test("a metadata address is not delivered, and not even connected to", async () => {
  const outgoing = refuseOutgoingConnections();
  try {
    const delivery = await proxy().deliverHttpHook({ url: "http://100.100.100.200/latest/meta-data/", payload, network, owner: "key-a", envId: "env_1" });
    expect(delivery).toEqual({
      failure:
        "not delivered: egress to 100.100.100.200 is blocked: 100.100.100.200 is in 100.64.0.0/10 (shared address space): the proxy connects to globally reachable addresses only",
    });
    expect(outgoing.attempts).toEqual([]);
    // The control: a delivery that does connect (a route to the local upstream) is seen, and stopped.
    const routed = await proxy().deliverHttpHook({ url: "http://telemetry.example.com/x", payload, network, owner: "key-a", envId: "env_1" });
    expect(routed).toMatchObject({ failure: expect.stringContaining("could not reach telemetry.example.com") });
    expect(outgoing.attempts).toEqual([`127.0.0.1:${new URL(upstream.url).port}`]);
    expect(upstream.requests).toEqual([]);
  } finally {
    outgoing.restore();
  }
});

test("a disabled network delivers nothing", async () => {
  const delivery = await proxy().deliverHttpHook({ url: "https://telemetry.example.com/x", payload, network: "disabled", owner: "key-a", envId: "env_1" });
  expect(delivery).toEqual({ failure: 'not delivered: egress to telemetry.example.com is blocked: this environment\'s network is "disabled"' });
});

test("a 500 and a timeout are failures (the runtime fails open), and never quote injected values", async () => {
  const egress = proxy();
  upstream.answer = () => ({ status: 500, body: "boom" });
  const failed = await egress.deliverHttpHook({ url: "https://telemetry.example.com/x", payload, network, owner: "key-a", envId: "env_1" });
  expect(failed).toEqual({ failure: "answered HTTP 500", status: 500 });

  upstream.answer = () => ({ status: 200, body: "late", delayMs: 10_000 });
  const started = Date.now();
  const late = await egress.deliverHttpHook({ url: "https://telemetry.example.com/x", timeoutSeconds: 1, payload, network, owner: "key-a", envId: "env_1" });
  expect(late).toEqual({ failure: "not delivered: telemetry.example.com did not answer within 1 s" });
  expect(Date.now() - started).toBeLessThan(5_000); // far below the 10 s answer
  expect(JSON.stringify([failed, late])).not.toMatch(/t0ken/);
});

test("a connection failure is reported", async () => {
  const egress = startProxy({ routes: { "telemetry.example.com": "http://127.0.0.1:1" } });
  const delivery = await egress.deliverHttpHook({ url: "https://telemetry.example.com/x", payload, network, owner: "key-a", envId: "env_1" });
  expect(delivery).toEqual({ failure: "not delivered: could not reach telemetry.example.com: ECONNREFUSED" });
});
