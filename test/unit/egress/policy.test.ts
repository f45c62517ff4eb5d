import { injectionFor, policyRefusal, type EgressCredential } from "../../../emulator/egress/policy";
import { parseRoutes } from "../../../emulator/egress/upstream";

const credentials: Record<string, EgressCredential> = {
  bare: { type: "bearer_token", token: "tok", prefix: "" },
  bearer: { type: "bearer_token", token: "tok2" },
  "X-Api-Key": { type: "environment_variable", value: "v", injection_location: ["header", "query", "body"] },
  scoped: { type: "environment_variable", value: "w", injection_location: "query", trusted_domains: ["*.trusted.com"] },
  oauth: { type: "oauth2" },
};
const resolve = (_owner: string, id: string) => credentials[id];

test("entries apply in declared order: transforms (maps in order), then the entry's credential", async () => {
  const injection = await injectionFor(
    {
      allowlist: [
        { domain: "*", transform: [{ Authorization: "a" }, { "X-A": "1" }], credential: "bearer" },
        { domain: "api.trusted.com", transform: { authorization: "b" }, credential: "X-Api-Key" },
        { domain: "*.trusted.com", credential: "scoped" },
        { domain: "other.com", transform: { "X-Other": "no" } },
      ],
    },
    "API.trusted.com",
    "owner",
    resolve,
  );
  expect(injection).toEqual({ headers: { "X-A": "1", authorization: "b", "X-Api-Key": "v" }, query: { "X-Api-Key": "v", scoped: "w" } });
});

test("a bare bearer token, trusted_domains, oauth2 and unknown credentials", async () => {
  const network = { allowlist: [{ domain: "*", credential: "bare" }, { domain: "*", credential: "scoped" }, { domain: "*", credential: "oauth" }, { domain: "*", credential: "gone" }] };
  expect(await injectionFor(network, "elsewhere.com", "o", resolve)).toEqual({ headers: { Authorization: "tok" }, query: {} });
  expect(await injectionFor(undefined, "x.com", "o", resolve)).toEqual({ headers: {}, query: {} });
});

test("refusals name the host and the allowlist's domains, never a header value", () => {
  const network = { allowlist: [{ domain: "a.com", transform: { Authorization: "secret" } }] };
  expect(policyRefusal(network, "b.com")).toBe("egress to b.com is blocked: b.com does not match the allowlist [a.com] of this environment's network");
  expect(policyRefusal({ allowlist: [] }, "b.com")).toBe("egress to b.com is blocked: b.com does not match an empty allowlist of this environment's network");
  expect(policyRefusal(network, "a.com")).toBeUndefined();
  expect(policyRefusal(undefined, "b.com")).toBeUndefined();
});

test("routes are checked up front", () => {
  expect([...parseRoutes({ "Telemetry.Example.com.": "http://127.0.0.1:9000" }).keys()]).toEqual(["telemetry.example.com"]);
  expect(() => parseRoutes({ "a.com": "ftp://127.0.0.1:9000" })).toThrow(/must be http:\/\/ or https:\/\//);
  expect(() => parseRoutes({ "a.com": "http://127.0.0.1:9000/path" })).toThrow(/no path/);
  expect(() => parseRoutes({ "a.com": "nope" })).toThrow(/is not a URL/);
});
