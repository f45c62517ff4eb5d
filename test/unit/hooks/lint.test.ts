import type { Network } from "../../../client/schemas";
import { jsonPointer, lintHooks, type Finding } from "../../../hooks/lint";
import { auditLogging, auditNetwork, privacyGate, schemaExample, securityGate } from "./examples";

const rule = (matcher: string, hooks: unknown[] = [{ type: "command", command: "true" }]) => ({ g: { pre_tool_execution: [{ matcher, hooks }] } });
const httpHook = (url: string, headers?: Record<string, string>) => rule("view_file", [{ type: "http", url, ...(headers ? { headers } : {}) }]);
const codes = (findings: Finding[]) => findings.map((f) => f.code);
const only = (findings: Finding[], code: string) => findings.filter((f) => f.code === code);

describe("the spec's worked examples lint clean", () => {
  test.each<[string, unknown, Network | undefined]>([
    ["security-gate", securityGate, undefined],
    ["privacy-gate", privacyGate, "disabled"],
    ["audit-logging", auditLogging, auditNetwork],
    ["schema example", schemaExample, undefined],
  ])("%s", (_name, config, network) => {
    expect(lintHooks(config, { network })).toEqual([]);
  });
});

describe("schema", () => {
  test("reports every structural error at its path", () => {
    const findings = lintHooks({
      g: {
        enabled: "yes",
        pre_tool_use: [],
        pre_tool_execution: [
          { matcher: "code_execution", hooks: [{ type: "command", command: "x", timeout: 0 }, { type: "http", timeout: -5 }] },
          { hooks: [], matchers: "x" },
        ],
      },
    });
    expect(findings.map((f) => [f.code, f.path])).toEqual([
      ["schema", "/g/enabled"],
      ["schema", "/g/pre_tool_use"],
      ["schema", "/g/pre_tool_execution/0/hooks/0/timeout"],
      ["schema", "/g/pre_tool_execution/0/hooks/1/url"],
      ["schema", "/g/pre_tool_execution/0/hooks/1/timeout"],
      ["schema", "/g/pre_tool_execution/1/matcher"],
      ["schema", "/g/pre_tool_execution/1/matchers"],
    ]);
    expect(findings.every((f) => f.severity === "error")).toBe(true);
    expect(findings[1]?.message).toMatch(/unknown event "pre_tool_use"/);
  });

  test("not an object", () => {
    expect(lintHooks([])).toEqual([{ severity: "error", code: "schema", path: "", message: expect.stringMatching(/object of named groups/) }]);
  });

  test("a valid config has none", () => {
    expect(lintHooks(rule("code_execution", [{ type: "command", command: "x", timeout: 1 }]))).toEqual([]);
  });
});

describe("JSON pointers escape ~ and /", () => {
  test("jsonPointer", () => {
    expect(jsonPointer(["a/b~c", "pre_tool_execution", 0, "matcher"])).toBe("/a~1b~0c/pre_tool_execution/0/matcher");
  });
  test("in findings", () => {
    const findings = lintHooks({ "gate/v1~x": { pre_tool_execution: [{ matcher: "*_file", hooks: [] }] } });
    expect(findings.map((f) => f.path)).toEqual(["/gate~1v1~0x/pre_tool_execution/0/matcher"]);
  });
});

describe("invalid-regex", () => {
  test.each(["(", "view_file)", "a{1001}", "(?=x)view_file"])("%j is an error", (matcher) => {
    const findings = lintHooks(rule(matcher));
    expect(codes(findings)).toEqual(["invalid-regex"]);
    expect(findings[0]).toMatchObject({ severity: "error", path: "/g/pre_tool_execution/0/matcher" });
  });
  test.each(["view_file", "(view|delete)_file", ".*"])("%j is fine", (matcher) => {
    expect(lintHooks(rule(matcher))).toEqual([]);
  });
});

describe("glob-matcher", () => {
  test.each<[string, string]>([
    ["*_file", ".*_file"],
    ["view_*", "view_.*"],
    ["view_file|*_dir", "view_file|.*_dir"],
    ["*", ""],
  ])("%j suggests %j", (matcher, suggestion) => {
    const findings = lintHooks(rule(matcher));
    if (suggestion === "") {
      expect(findings).toEqual([]);
      return;
    }
    expect(findings).toEqual([{ severity: "error", code: "glob-matcher", path: "/g/pre_tool_execution/0/matcher", message: expect.stringContaining(JSON.stringify(suggestion)) }]);
  });
  test.each([".*_file", "view_file", "write_(to_)?file", "[a-z]*_file", "\\w*_file"])("%j is a regex, not a glob", (matcher) => {
    expect(codes(lintHooks(rule(matcher)))).not.toContain("glob-matcher");
  });
});

describe("unknown-tool", () => {
  test("the Java example's read_file|write_file names the closest tools", () => {
    const findings = lintHooks(rule("read_file|write_file"));
    expect(findings).toEqual([{ severity: "warning", code: "unknown-tool", path: "/g/pre_tool_execution/0/matcher", message: expect.stringContaining("view_file, write_to_file") }]);
  });
  test.each<[string, string]>([
    ["read_file", "view_file"],
    ["list_dirs", "list_dir"],
    ["code_exec", "code_execution"],
    ["remove_file", "delete_file"],
  ])("%j → did you mean %s", (matcher, tool) => {
    expect(only(lintHooks(rule(matcher)), "unknown-tool")[0]?.message).toContain(`did you mean ${tool}?`);
  });
  test("a dead alternative next to a live one", () => {
    const findings = lintHooks(rule("view_file|cat"));
    expect(findings).toEqual([{ severity: "warning", code: "unknown-tool", path: "/g/pre_tool_execution/0/matcher", message: expect.stringContaining('alternative "cat"') }]);
  });
  test.each(["view_file", "view_file|write_to_file|replace_file_content", ".*_file", "", "*", "list_dir|code_execution"])("%j selects tools", (matcher) => {
    expect(lintHooks(rule(matcher))).toEqual([]);
  });
});

describe("http-host-not-allowlisted", () => {
  const url = "https://hooks.example.com/e";
  test.each<[string, Network]>([
    ["disabled", "disabled"],
    ["allowlist disabled", { allowlist: "disabled" }],
    ["empty allowlist", { allowlist: [] }],
    ["other domain", { allowlist: [{ domain: "telemetry.example.com" }] }],
    ["apex only via wildcard", { allowlist: [{ domain: "*.hooks.example.com" }] }],
  ])("blocked: %s", (_name, network) => {
    const findings = lintHooks(httpHook(url), { network });
    expect(findings).toEqual([{ severity: "error", code: "http-host-not-allowlisted", path: "/g/pre_tool_execution/0/hooks/0/url", message: expect.stringContaining("hooks.example.com") }]);
  });
  test.each<[string, Network | undefined]>([
    ["no network policy", undefined],
    ["*", { allowlist: [{ domain: "*" }] }],
    ["subdomain wildcard", { allowlist: [{ domain: "*.example.com" }] }],
    ["exact, case-insensitive, trailing dot", { allowlist: [{ domain: "HOOKS.example.com." }] }],
  ])("allowed: %s", (_name, network) => {
    expect(lintHooks(httpHook(url), { network })).toEqual([]);
  });
  test("the apex hint", () => {
    const findings = lintHooks(httpHook("https://example.com/e"), { network: { allowlist: [{ domain: "*.example.com" }] } });
    expect(findings[0]?.message).toMatch(/subdomains only/);
  });
});

describe("loopback-url, blocked-address-url and insecure-url", () => {
  const at = "/g/pre_tool_execution/0/hooks/0/url";
  test.each<[string, string]>([
    ["https://localhost/e", "localhost is a loopback name"],
    ["https://LOCALHOST./e", "localhost. is a loopback name"],
    ["https://api.localhost/e", "api.localhost is a loopback name"],
    ["https://127.0.0.1:8443/e", "127.0.0.1 is in 127.0.0.0/8 (loopback), an address of this host itself"],
    ["https://127.1.2.3/e", "127.1.2.3 is in 127.0.0.0/8 (loopback)"],
    ["https://2130706433/e", "127.0.0.1 is in 127.0.0.0/8 (loopback)"],
    ["https://0x7f.1/e", "127.0.0.1 is in 127.0.0.0/8 (loopback)"],
    ["https://[::1]/e", "[::1] is in ::1/128 (loopback address)"],
    ["https://[0:0:0:0:0:0:0:1]/e", "[::1] is in ::1/128 (loopback address)"],
    ["https://0.0.0.0/e", '0.0.0.0 is in 0.0.0.0/32 ("this host on this network"), an address of this host itself'],
    ["https://[::]/e", "[::] is in ::/128 (unspecified address)"],
    ["https://[::ffff:127.0.0.1]/e", "[::ffff:7f00:1] carries 127.0.0.1 by ::ffff:0:0/96 (IPv4-mapped address), in 127.0.0.0/8 (loopback)"],
    ["https://[64:ff9b::7f00:1]/e", "[64:ff9b::7f00:1] carries 127.0.0.1 by 64:ff9b::/96 (IPv4-IPv6 translation), in 127.0.0.0/8 (loopback)"],
    ["https://[2002:7f00:1::]/e", "[2002:7f00:1::] carries 127.0.0.1 by 2002::/16 (6to4), in 127.0.0.0/8 (loopback)"],
  ])("%s is a loopback-url error", (url, names) => {
    expect(lintHooks(httpHook(url), { network: "disabled" })).toEqual([{ severity: "error", code: "loopback-url", path: at, message: expect.stringContaining(names) }]);
  });

  test.each<[string, string]>([
    ["http://10.0.0.5/e", "10.0.0.5 is in 10.0.0.0/8 (private-use)"],
    ["http://100.100.100.200/latest/meta-data", "100.100.100.200 is in 100.64.0.0/10 (shared address space)"],
    ["https://169.254.169.254/e", "169.254.169.254 is in 169.254.0.0/16 (link local)"],
    ["https://198.18.0.1/e", "198.18.0.1 is in 198.18.0.0/15 (benchmarking)"],
    ["https://224.0.0.1/e", "224.0.0.1 is in 224.0.0.0/4 (multicast)"],
    ["https://[64:ff9b::a00:1]/e", "[64:ff9b::a00:1] carries 10.0.0.1 by 64:ff9b::/96 (IPv4-IPv6 translation), in 10.0.0.0/8 (private-use)"],
    ["https://[::ffff:a00:5]/e", "[::ffff:a00:5] carries 10.0.0.5 by ::ffff:0:0/96 (IPv4-mapped address), in 10.0.0.0/8 (private-use)"],
    ["https://[fd00::1]/e", "[fd00::1] is in fc00::/7 (unique-local)"],
    ["https://[fe80::1]/e", "[fe80::1] is in fe80::/10 (link-local unicast)"],
    ["https://[2001:db8::1]/e", "[2001:db8::1] is in 2001:db8::/32 (documentation)"],
  ])("%s is a blocked-address-url error naming the range and the fix, whatever the allowlist", (url, names) => {
    const findings = lintHooks(httpHook(url), { network: { allowlist: [{ domain: "*" }] } });
    expect(findings).toEqual([{ severity: "error", code: "blocked-address-url", path: at, message: expect.stringContaining(names) }]);
    expect(findings[0].message).toMatch(/egress proxy refuses it whatever the allowlist .*: target a public endpoint on the network allowlist$/);
  });

  test("the whole message", () => {
    expect(lintHooks(httpHook("https://100.100.100.200/e"))[0]?.message).toBe(
      "100.100.100.200 is in 100.64.0.0/10 (shared address space): the egress proxy refuses it whatever the allowlist " +
        "(only an operator's --egress-route reaches such an address): target a public endpoint on the network allowlist",
    );
  });

  test("plain http is a warning", () => {
    expect(lintHooks(httpHook("http://hooks.example.com/e"))).toEqual([
      { severity: "warning", code: "insecure-url", path: "/g/pre_tool_execution/0/hooks/0/url", message: expect.stringContaining("https://") },
    ]);
  });
  test.each([
    "https://hooks.example.com/e",
    "https://128.0.0.1/e",
    "https://localhost.example.com/e",
    "https://100.63.255.255/e",
    "https://100.128.0.0/e",
    "https://8.8.8.8/e",
    "https://[2606:4700::1111]/e",
    "https://[64:ff9b::808:808]/e",
    "https://[::ffff:8.8.8.8]/e",
  ])("%s is fine", (url) => {
    expect(lintHooks(httpHook(url))).toEqual([]);
  });
});

describe("secret-in-header", () => {
  const secrets: Array<[string, string]> = [
    ["Authorization", "Bearer telemetry_secret_token_123"],
    ["authorization", "whatever"],
    ["Proxy-Authorization", "Basic dXNlcjpwYXNz"],
    ["Cookie", "session=abcdef"],
    ["X-Api-Key", "k-123"],
    ["api_key", "k-123"],
    ["X-Auth-Token", "tok-9f8e7d"],
    ["X-Client-Secret", "shh-4c3b2a"],
    ["Password", "hunter2hunter2"],
    ["X-Custom", "Bearer eyJhbGciOiJIUzI1NiJ9"],
    ["X-Custom", "sk-proj-0123456789abcdefABCDEF"],
    ["X-Custom", "ghp_0123456789abcdefABCDEF0123456789abcd"],
    ["X-Custom", "AIzaSyA-0123456789abcdefABCDEFghijklmn"],
    ["X-Custom", "q8Zr2LmX7vNc4TpW9yKb3HsD6fGj1"],
  ];
  test.each(secrets)("%s: %s is an error and the value is never echoed", (name, value) => {
    const findings = lintHooks(httpHook("https://t.example.com/e", { [name]: value }));
    expect(findings).toEqual([
      { severity: "error", code: "secret-in-header", path: `/g/pre_tool_execution/0/hooks/0/headers/${name}`, message: expect.stringMatching(/transform[\s\S]*credential/) },
    ]);
    expect(JSON.stringify(findings)).not.toContain(value);
  });
  test.each<[string, string]>([
    ["X-Event-Source", "agent-sandbox"],
    ["Content-Type", "application/json"],
    ["X-Environment", "production"],
    ["X-Idempotency-Key", "static"],
    ["User-Agent", "genv-hooks/1.0"],
  ])("%s: %s is fine", (name, value) => {
    expect(lintHooks(httpHook("https://t.example.com/e", { [name]: value }))).toEqual([]);
  });
  test("a header name with / is escaped in the pointer", () => {
    const findings = lintHooks(httpHook("https://t.example.com/e", { "a/token": "x" }));
    expect(findings[0]?.path).toBe("/g/pre_tool_execution/0/hooks/0/headers/a~1token");
  });
});

describe("inline-hooks-writable", () => {
  test("warns when the hooks come from inline sources", () => {
    expect(lintHooks(securityGate, { inlineSourced: true })).toEqual([
      { severity: "warning", code: "inline-hooks-writable", path: "", message: expect.stringContaining("read-only repository") },
    ]);
  });
  test("silent otherwise", () => {
    expect(lintHooks(securityGate, { inlineSourced: false })).toEqual([]);
  });
});

test("policy checks still run next to structural errors", () => {
  const findings = lintHooks({
    g: { pre_tool_execution: [{ matcher: "*_file", hooks: [{ type: "http", url: "https://t.example.com", headers: { Authorization: "Bearer zzz" }, timeout: 0 }] }] },
  });
  expect(codes(findings)).toEqual(["glob-matcher", "secret-in-header", "schema"]);
});
