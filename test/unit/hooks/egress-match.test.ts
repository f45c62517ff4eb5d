import { allowlistEntriesFor, domainMatches, egressAllowed } from "../../../hooks/egress-match";

describe("domainMatches", () => {
  test.each<[string, string, boolean]>([
    ["*", "anything.example.org", true],
    ["*.example.com", "a.example.com", true],
    ["*.example.com", "a.b.example.com", true],
    ["*.example.com", "example.com", false],
    ["*.example.com", "badexample.com", false],
    ["telemetry.example.com", "TELEMETRY.Example.com", true],
    ["telemetry.example.com.", "telemetry.example.com", true],
    ["telemetry.example.com", "telemetry.example.com.", true],
    ["telemetry.example.com", "x.telemetry.example.com", false],
    ["example.com", "example.co", false],
  ])("%j covers %j: %j", (pattern, host, expected) => {
    expect(domainMatches(pattern, host)).toBe(expected);
  });
});

describe("egress policy", () => {
  const network = { allowlist: [{ domain: "telemetry.example.com", transform: { Authorization: "Bearer x" } }, { domain: "*" }] };

  test("matching entries in declared order", () => {
    expect(allowlistEntriesFor(network, "telemetry.example.com").map((e) => e.domain)).toEqual(["telemetry.example.com", "*"]);
    expect(allowlistEntriesFor(network, "other.org").map((e) => e.domain)).toEqual(["*"]);
  });

  test.each<[Parameters<typeof egressAllowed>[0], boolean]>([
    [undefined, true],
    ["disabled", false],
    [{ allowlist: "disabled" }, false],
    [{ allowlist: [] }, false],
    [{ allowlist: [{ domain: "*.example.com" }] }, true],
    [{ allowlist: [{ domain: "example.com" }] }, false],
  ])("network %j allows a.example.com: %j", (policy, expected) => {
    expect(egressAllowed(policy, "a.example.com")).toBe(expected);
  });
});
