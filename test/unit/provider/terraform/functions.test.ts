// provider::geminienvironments::egress_allowed(network, url) as Terraform calls it (GetFunctions,
// CallFunction, msgpack in and out): the egress proxy's policy (emulator/egress/policy.ts over
// hooks/egress-match.ts) over the environment's `network` attribute, and errors that name the argument.
// Through Terraform and OpenTofu: test/e2e/terraform.test.ts.
import { terraformProvider } from "../../../../provider/terraform/provider";
import { decodeValue, encodeValue } from "../../../../provider/terraform/values";

const provider = terraformProvider();

async function call(network: unknown, url: unknown) {
  const response = (await provider.CallFunction({ name: "egress_allowed", arguments: [encodeValue(network), encodeValue(url)] })) as {
    result?: never;
    error?: { text: string; function_argument?: number };
  };
  return response.error ? { error: response.error } : { result: decodeValue(response.result) };
}

/** A network as Terraform sends the environment's attribute: every attribute present, null where unset. */
const allowlist = (...entries: Array<{ domain: string; credential?: string }>) => ({
  allowlist: entries.map((entry) => ({ credential: null, transform: null, ...entry })),
  disabled: null,
});

test("served by GetFunctions and in GetProviderSchema: network (null allowed) of the environment's network type, url a string, a bool back", async () => {
  const { functions } = (await provider.GetFunctions({})) as { functions: Record<string, { parameters: Array<Record<string, unknown>>; return: { type: Buffer }; summary: string }> };
  expect(Object.keys(functions)).toEqual(["egress_allowed"]);
  const [network, url] = functions.egress_allowed.parameters;
  expect({ name: network.name, allow_null_value: network.allow_null_value, type: JSON.parse(String(network.type)) }).toEqual({
    name: "network",
    allow_null_value: true,
    type: [
      "object",
      { allowlist: ["list", ["object", { domain: "string", credential: "string", transform: ["list", ["map", "string"]] }, ["transform", "credential"]]], disabled: "bool" },
      ["allowlist", "disabled"],
    ],
  });
  expect({ name: url.name, allow_null_value: url.allow_null_value, type: JSON.parse(String(url.type)) }).toEqual({ name: "url", allow_null_value: false, type: "string" });
  expect(JSON.parse(String(functions.egress_allowed.return.type))).toBe("bool");
  expect(((await provider.GetProviderSchema({})) as { functions: unknown }).functions).toEqual(functions);
  expect(((await provider.GetMetadata({})) as { functions: unknown }).functions).toEqual([{ name: "egress_allowed" }]);
});

test.each([
  ["an exact domain", allowlist({ domain: "api.github.com" }), "https://api.github.com/user", true],
  ["another host", allowlist({ domain: "api.github.com" }), "https://github.com/", false],
  ["case and a trailing dot ignored, a port and a path too", allowlist({ domain: "api.github.com" }), "http://API.GitHub.com.:8080/x?y=1", true],
  ["a wildcard's subdomain at any depth", allowlist({ domain: "*.githubusercontent.com" }), "https://a.b.githubusercontent.com/f", true],
  ["not a wildcard's apex", allowlist({ domain: "*.githubusercontent.com" }), "https://githubusercontent.com/f", false],
  ["`*`, every host", allowlist({ domain: "*" }), "https://example.org", true],
  ["an empty allowlist, nothing", allowlist(), "https://example.org", false],
  ["a disabled network, nothing", { allowlist: null, disabled: true }, "https://example.org", false],
  ["no policy (null), every host", null, "https://example.org", true],
])("%s", async (_name, network, url, allowed) => {
  expect(await call(network, url)).toEqual({ result: allowed });
});

test("a bad URL is an error naming the url argument; a bad network one naming network", async () => {
  expect(await call(null, "api.github.com/user")).toEqual({ error: { text: 'url: "api.github.com/user" is not a URL: write it whole, e.g. "https://api.github.com/user"', function_argument: 1 } });
  expect(await call(null, "ftp://files.example.com/")).toEqual({
    error: { text: 'url: "ftp://files.example.com/" is not an http or https URL (the egress proxy carries those alone), e.g. "https://api.github.com/user"', function_argument: 1 },
  });
  expect(await call({ allowlist: null, disabled: null }, "https://example.org")).toEqual({
    error: { text: "network.allowlist: is required unless disabled is true (leave network out to allow all egress)", function_argument: 0 },
  });
});
