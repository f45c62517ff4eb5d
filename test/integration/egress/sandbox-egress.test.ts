import { runCommandHook, runInSandbox, runTool } from "../../../emulator/sandbox";
import type { SandboxEgress } from "../../../emulator/sandbox";
import type { Network } from "../../../client/schemas";
import { makeTree } from "../../support/trees";
import { refuseOutgoingConnections, startProxy, startUpstream, type Upstream } from "./_servers";

/** curl in a sandbox; prints the body, then a line `<http_code> <http_connect> <exit>`. */
async function curl(egress: SandboxEgress | undefined, args: string, root = makeTree()) {
  const script = `curl -sS --max-time 10 -w '\\n%{http_code} %{http_connect}' ${args}; echo " $?"`;
  const result = await runInSandbox({ root, argv: ["/bin/bash", "-c", script], timeoutMs: 30_000, egress });
  const lines = result.stdout.trimEnd().split("\n");
  const [code, connect, exit] = lines.pop()!.split(" ");
  return { body: lines.join("\n").trimEnd(), code: Number(code), connect: Number(connect), exit: Number(exit), stderr: result.stderr };
}

let plain: Upstream;
let secure: Upstream;
const routes = (): Record<string, string> => ({
  "api.example.com": plain.url,
  "a.b.example.com": plain.url,
  "example.com": plain.url,
  "other.example.org": plain.url,
  "secure.example.com": secure.url,
  "dead.example.com": "http://127.0.0.1:1",
});
const context = (network: Network | undefined, proxy = startProxy({ routes: routes(), upstreamCa: secure.caPem })): SandboxEgress => ({
  proxy,
  network,
  owner: "key-a",
  envId: `env_${Math.random().toString(36).slice(2, 10)}`,
});

beforeAll(async () => {
  plain = await startUpstream();
  secure = await startUpstream(true);
});
beforeEach(() => {
  plain.requests.length = 0;
  secure.requests.length = 0;
});

describe("policy", () => {
  test("network omitted: every domain goes out, nothing is injected", async () => {
    const result = await curl(context(undefined), "-H 'Authorization: mine' http://other.example.org/any");
    expect(result).toMatchObject({ code: 200, body: "ok other.example.org /any", exit: 0 });
    expect(plain.requests[0].headers.authorization).toBe("mine");
  });

  test("an allowlist lets listed domains out and answers 403 naming the host and the policy for others", async () => {
    const egress = context({ allowlist: [{ domain: "api.example.com" }] });
    expect(await curl(egress, "http://api.example.com/v1")).toMatchObject({ code: 200, body: "ok api.example.com /v1" });
    const blocked = await curl(egress, "http://other.example.org/v1");
    expect(blocked.code).toBe(403);
    expect(blocked.body).toBe(
      "egress to other.example.org is blocked: other.example.org does not match the allowlist [api.example.com] of this environment's network",
    );
    expect(plain.requests.map((r) => r.headers.host)).toEqual(["api.example.com"]);
  });

  test("*.example.com covers subdomains at any depth but not the apex", async () => {
    const egress = context({ allowlist: [{ domain: "*.example.com" }] });
    expect((await curl(egress, "http://a.b.example.com/")).code).toBe(200);
    expect((await curl(egress, "http://example.com/")).code).toBe(403);
    expect((await curl(egress, "https://example.com/")).connect).toBe(403); // CONNECT refused too
    expect(plain.requests.map((r) => r.headers.host)).toEqual(["a.b.example.com"]);
  });

  test.each<[string, Network]>([
    ["disabled", "disabled"],
    ["{allowlist: disabled}", { allowlist: "disabled" }],
  ])("%s: no proxy, no route, nothing leaves", async (_name, network) => {
    const egress = context(network);
    expect(await egress.proxy.attach(egress)).toBeUndefined();
    const result = await runInSandbox({
      root: makeTree(),
      argv: ["/bin/bash", "-c", "env | grep -i proxy; curl -sS --max-time 5 http://api.example.com/ || echo FAILED"],
      timeoutMs: 20_000,
      egress,
    });
    expect(result.stdout).toBe("FAILED\n");
    expect(plain.requests).toEqual([]);
  });

  test("loopback is refused without a route, by IP and by name", async () => {
    const egress = context(undefined);
    const port = new URL(plain.url).port;
    for (const host of ["127.0.0.1", "localhost", "[::1]", "0.0.0.0"]) {
      const result = await curl(egress, `http://${host}:${port}/`);
      expect(result.code).toBe(403);
      expect(result.body).toMatch(/^egress to \S+ is blocked: .*\((loopback|loopback address|"this host on this network")\): the proxy connects to globally reachable addresses only$/);
    }
    expect((await curl(egress, `https://127.0.0.1:${new URL(secure.url).port}/`)).connect).toBe(403);
    expect(plain.requests).toEqual([]);
  });

  test("addresses that are not globally reachable are refused by range, over HTTP and CONNECT, before any connection", async () => {
    const egress = context(undefined); // every domain allowed: the address policy alone refuses
    const outgoing = refuseOutgoingConnections(); // should the proxy try, nothing leaves the machine
    try {
      for (const [host, reason] of [
        ["100.100.100.200", "100.100.100.200 is in 100.64.0.0/10 (shared address space)"],
        ["[64:ff9b::a00:1]", "64:ff9b::a00:1 carries 10.0.0.1 by 64:ff9b::/96 (IPv4-IPv6 translation), in 10.0.0.0/8 (private-use)"],
        ["198.18.0.1", "198.18.0.1 is in 198.18.0.0/15 (benchmarking)"],
      ]) {
        const refusal = `egress to ${host.replace(/^\[|\]$/g, "")} is blocked: ${reason}: the proxy connects to globally reachable addresses only`;
        expect(await curl(egress, `-g http://${host}/latest/meta-data/`)).toMatchObject({ code: 403, body: refusal });
        const tunnel = await curl(egress, `-g -v https://${host}/`);
        expect(tunnel.connect).toBe(403);
        expect(tunnel.stderr).toContain("x-genv-egress: refused");
      }
      expect(outgoing.attempts).toEqual([]);
      // The control: a request the proxy does forward (a route to the local upstream) is seen, and stopped.
      expect((await curl(egress, "http://api.example.com/")).code).toBe(502);
      expect(outgoing.attempts).toEqual([`127.0.0.1:${new URL(plain.url).port}`]);
    } finally {
      outgoing.restore();
    }
  });

  test("traffic that ignores the proxy variables has no route", async () => {
    const egress = context(undefined);
    const port = new URL(plain.url).port;
    const direct = await curl(egress, `--noproxy '*' http://127.0.0.1:${port}/`);
    expect(direct.exit).toBe(7); // couldn't connect: the sandbox's loopback is its own
    const code = [
      "import socket",
      "for target in [('1.1.1.1', 80), ('127.0.0.1', PORT)]:",
      "    try: socket.create_connection(target, timeout=3); print('CONNECTED')",
      "    except OSError as e: print(type(e).__name__)",
    ].join("\n").replace("PORT", port);
    const result = await runTool("code_execution", { code, language: "python" }, { root: makeTree(), egress });
    expect(result.output).toBe("OSError\nConnectionRefusedError\n");
    expect(plain.requests).toEqual([]);
  });
});

describe("header injection", () => {
  const network: Network = {
    allowlist: [
      { domain: "*.example.com", transform: [{ Authorization: "Bearer first" }, { authorization: "Bearer s3cr3t-transform", "X-Extra": "1" }] },
      { domain: "secure.example.com", credential: "gh" },
      { domain: "api.example.com" },
    ],
  };
  const proxyWithCredentials = () =>
    startProxy({
      routes: routes(),
      upstreamCa: secure.caPem,
      resolveCredential: (owner, id) =>
        owner === "key-a" && id === "gh" ? { type: "bearer_token", token: "ghp_s3cr3t-credential", header_name: "X-GitHub-Token", prefix: "token" } : undefined,
    });

  test("a transform replaces the sandbox's own header; later maps win", async () => {
    const result = await curl(context(network), "-H 'authorization: Bearer mine' -H 'X-Own: kept' http://api.example.com/x");
    expect(result.code).toBe(200);
    const seen = plain.requests[0].headers;
    expect([seen.authorization, seen["x-extra"], seen["x-own"]]).toEqual(["Bearer s3cr3t-transform", "1", "kept"]);
  });

  test("HTTPS through the environment's CA: curl and python trust it, headers are injected, the upstream is verified", async () => {
    const egress = context(network, proxyWithCredentials());
    const result = await curl(egress, "-H 'X-GitHub-Token: fake' https://secure.example.com/repos");
    expect(result).toMatchObject({ code: 200, connect: 200, body: "ok secure.example.com /repos" });
    const seen = secure.requests[0].headers;
    expect([seen.authorization, seen["x-github-token"]]).toEqual(["Bearer s3cr3t-transform", "token ghp_s3cr3t-credential"]);

    const python = await runTool(
      "code_execution",
      { code: "import urllib.request\nprint(urllib.request.urlopen('https://secure.example.com/py').read().decode())", language: "python" },
      { root: makeTree(), egress },
    );
    expect(python).toMatchObject({ output: "ok secure.example.com /py\n", failed: false });
  });

  test("an upstream the proxy cannot verify is a 502, not a silent downgrade", async () => {
    const egress = context(undefined, startProxy({ routes: routes() })); // no upstreamCa
    const result = await curl(egress, "https://secure.example.com/");
    expect(result.code).toBe(502);
    expect(result.body).toMatch(/could not reach secure.example.com/);
    expect(secure.requests).toEqual([]);
  });

  test("secrets never reach the sandbox: not in its environment, files or the proxy's error answers", async () => {
    const egress = context(network, proxyWithCredentials());
    const root = makeTree({ "workspace/a.txt": "a" });
    const script = [
      "env",
      "grep -rs s3cr3t /etc /tmp /workspace /proc/self/environ && echo FOUND-IN-FILES",
      "curl -sS -H 'Authorization: x' http://other.example.org/ -w ' %{http_code}\\n'", // 403 by policy
      "curl -sS http://dead.example.com/ -w ' %{http_code}\\n'", // 502: the route leads nowhere
      "curl -sS -v https://example.com/ 2>&1 | grep -i '^< '", // CONNECT refused: its answer headers
    ].join("; ");
    const result = await runInSandbox({ root, argv: ["/bin/bash", "-c", script], timeoutMs: 30_000, egress });
    expect(result.stdout).toContain("403");
    expect(result.stdout).toContain("502");
    expect(result.stdout).not.toContain("FOUND-IN-FILES");
    expect(result.stdout + result.stderr).not.toMatch(/s3cr3t/);
    expect(result.stdout).toContain("HTTPS_PROXY=http://127.0.0.1:3128");
  });

  test("command hooks and file tools get the same egress", async () => {
    const egress = context(network);
    const hook = await runCommandHook({ root: makeTree(), command: "curl -sS http://api.example.com/hook", stdinJson: {}, egress });
    expect(hook.stdout).toBe("ok api.example.com /hook");
    const listed = await runTool("list_dir", { path: "/etc/ssl/certs" }, { root: makeTree(), egress });
    expect(listed.output).toBe("genv-egress-ca.pem");
  });
});
