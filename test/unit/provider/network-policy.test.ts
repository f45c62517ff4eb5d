import * as pulumi from "@pulumi/pulumi";
import { group, http } from "../../../hooks/builders";
import { HookBundle } from "../../../provider/components/hook-bundle";
import { NetworkPolicy } from "../../../provider/components/network-policy";

/** Resolves an Input deeply, with the secret flag of every Output met. */
async function resolve(value: unknown): Promise<{ value: unknown; secret: boolean }> {
  const output = pulumi.output(value as pulumi.Input<unknown>) as pulumi.Output<unknown>;
  const [plain, secret] = await Promise.all([new Promise((done) => output.apply(done)), pulumi.isSecret(output)]);
  return { value: plain, secret };
}

const telemetry = new HookBundle({
  hooks: { audit: group().after("view_file|write_to_file", http("https://telemetry.example.com/api/v1/agent-events", { timeout: 10 })) },
});

beforeAll(() => {
  pulumi.runtime.setMocks({ newResource: (args) => ({ id: `${args.name}_id`, state: args.inputs }), call: (args) => args.inputs }, "project", "stack", false);
});

describe("NetworkPolicy", () => {
  test("disabled and unrestricted", () => {
    expect(NetworkPolicy.disabled().toNetworkArgs()).toBe("disabled");
    expect(NetworkPolicy.unrestricted().toNetworkArgs()).toBeUndefined();
    expect(() => NetworkPolicy.disabled().allow("a.example.com")).toThrow("NetworkPolicy.allow: a disabled policy has no allowlist; start from NetworkPolicy.allowlist()");
  });

  test("adds the hosts of the bundle's HTTP hooks, unless an entry already covers them", () => {
    expect(NetworkPolicy.allowlist().allowHookHosts(telemetry).allow("api.github.com").toNetworkArgs()).toEqual({
      allowlist: [{ domain: "api.github.com" }, { domain: "telemetry.example.com" }],
    });
    expect(NetworkPolicy.allowlist().allowHookHosts(telemetry).allow("*.example.com").toNetworkArgs()).toEqual({ allowlist: [{ domain: "*.example.com" }] });
    expect(() => NetworkPolicy.unrestricted().allowHookHosts(telemetry)).toThrow(/unrestricted policy has no allowlist/);
  });

  test("transform values become secrets, in a single map or a list", async () => {
    const network = NetworkPolicy.allowlist()
      .allow("telemetry.example.com", { transform: { Authorization: "Bearer t0ken" } })
      .allow("api.example.com", { transform: [{ "X-A": "1" }, { "X-B": pulumi.output("2") }] })
      .allow("*")
      .toNetworkArgs();
    if (typeof network !== "object") throw new Error("expected an allowlist");
    const entries = network.allowlist as Array<{ domain: string; transform?: unknown }>;
    const first = entries[0]?.transform as Record<string, pulumi.Input<string>>;
    expect(await resolve(first.Authorization)).toEqual({ value: "Bearer t0ken", secret: true });
    const second = entries[1]?.transform as Array<Record<string, pulumi.Input<string>>>;
    expect(await resolve(second[1]?.["X-B"])).toEqual({ value: "2", secret: true });
    expect(await resolve(network)).toEqual({
      secret: true,
      value: {
        allowlist: [
          { domain: "telemetry.example.com", transform: { Authorization: "Bearer t0ken" } },
          { domain: "api.example.com", transform: [{ "X-A": "1" }, { "X-B": "2" }] },
          { domain: "*" },
        ],
      },
    });
  });

  test("a malformed domain or header name fails fast", () => {
    expect(() => NetworkPolicy.allowlist().allow("https://x.example.com")).toThrow(/NetworkPolicy.allow: domain: "https:\/\/x.example.com" is not a domain/);
    expect(() => NetworkPolicy.allowlist().allow("x.example.com", { transform: { "Bad Header": "v" } })).toThrow(/NetworkPolicy.allow: transform\["Bad Header"\]: /);
  });
});
