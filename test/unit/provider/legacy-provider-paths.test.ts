/**
 * Stacks made before provider/ was grouped by resource hold, in their state, a serialized dynamic
 * provider that is `require("pulumi-gemini-environments/dist/provider/<resource>-provider.js")`. Those
 * paths must keep serving the same provider methods, or every such stack fails at its next preview.
 */
import * as legacyCredential from "../../../provider/credential-provider";
import * as credential from "../../../provider/credential/dynamic-provider";
import * as legacyEnvironment from "../../../provider/environment-provider";
import * as environment from "../../../provider/environment/dynamic-provider";

test.each([
  ["environment", legacyEnvironment, environment],
  ["credential", legacyCredential, credential],
])("provider/%s-provider serves the same methods as the resource's dynamic provider", (_name, legacy, current) => {
  const methods = ["configure", "check", "diff", "create", "read", "update", "delete"] as const;
  for (const method of methods) expect([method, typeof legacy[method]]).toEqual([method, "function"]);
  expect(methods.map((method) => legacy[method] === current[method])).toEqual(methods.map(() => true));
});
