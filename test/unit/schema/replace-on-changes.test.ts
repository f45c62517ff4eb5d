/**
 * schema.json's `willReplaceOnChanges` says which inputs replace a resource: the SDKs and the registry
 * show it, and `pulumi up` reads it. It must be exactly where the provider's diff replaces: this
 * derives the set from the zod source's `change` metadata and checks it against the cores' own diff,
 * one changed input at a time.
 */
import type { z } from "zod";
import { credentialCore } from "../../../provider/credential/core";
import type { CredentialInputs, CredentialOutputs } from "../../../provider/credential/inputs";
import { CredentialInputs as CredentialSchema } from "../../../provider/credential/inputs";
import { environmentCore } from "../../../provider/environment/core";
import { EnvironmentInputs, type EnvironmentOutputs } from "../../../provider/environment/inputs";
import { replacedProperties, type ResourceDiff } from "../../../provider/contracts/resource-core";
import { propertiesOf } from "../../../provider/contracts/resource-schema";
import { generateSchema } from "../../../scripts/generate-schema";

type PropertySpec = { willReplaceOnChanges?: boolean };
const schema = generateSchema() as { resources: Record<string, { properties: Record<string, PropertySpec>; inputProperties: Record<string, PropertySpec>; [key: string]: unknown }> };
const marked = (name: string, of: "inputProperties" | "properties" = "inputProperties") =>
  Object.entries(schema.resources[`gemini-environments:index:${name}`]![of])
    .filter(([, spec]) => spec.willReplaceOnChanges === true)
    .map(([property]) => property)
    .sort();

test("the marked inputs are those whose zod `change` is replace, as inputs and as outputs", () => {
  const resources: Array<[string, z.ZodObject]> = [
    ["Environment", EnvironmentInputs],
    ["Credential", CredentialSchema],
  ];
  for (const [name, inputs] of resources) {
    const replacing = propertiesOf(inputs)
      .filter(([, meta]) => meta.change === "replace")
      .map(([property]) => property)
      .sort();
    expect(marked(name)).toEqual(replacing);
    expect(marked(name, "properties")).toEqual(replacing);
  }
});

test("Environment: everything but sources (inline files update in place) and the provider's own settings; Credential: its id and type", () => {
  expect(marked("Environment")).toEqual(["customConfig", "fromEnvironment", "mode", "network", "systemInstruction"]);
  expect(marked("Credential")).toEqual(["credentialId", "type"]);
  expect(marked("GuardedEnvironment")).toEqual([]);
});

test("no resource-level replaceOnChanges, a key Pulumi's schema does not read", () => {
  for (const spec of Object.values(schema.resources)) expect(spec).not.toHaveProperty("replaceOnChanges");
});

/** A changed value of each input, and the state before; a missing input fails the test below. */
const ENVIRONMENT_BEFORE = {
  sources: [{ type: "inline", target: "a.txt", content: "a" }],
  network: { allowlist: [{ domain: "api.example.com" }] },
  fromEnvironment: "env_before",
  mode: "self_hosted",
  systemInstruction: "before",
  customConfig: { pool: "cpu" },
  updateStrategy: "inPlace",
} as const;
const ENVIRONMENT_CHANGED: Record<string, unknown> = {
  sources: [{ type: "inline", target: "a.txt", content: "edited" }],
  network: { disabled: true },
  fromEnvironment: "env_after",
  adopt: "env_adopted",
  mode: "on_demand",
  systemInstruction: "after",
  customConfig: { pool: "gpu" },
  updateStrategy: "replace",
};

const CREDENTIAL_BEFORE: Record<string, Record<string, unknown>> = {
  bearer_token: { credentialId: "gh", type: "bearer_token", token: "t1", headerName: "Authorization", prefix: "Bearer" },
  environment_variable: { credentialId: "gh", type: "environment_variable", value: "v1", injectionLocation: ["header"], trustedDomains: ["a.example.com"] },
  oauth2: { credentialId: "gh", type: "oauth2", clientId: "c1", clientSecret: "s1", refreshToken: "r1", tokenUrl: "https://a.example.com/token", scopes: ["a"] },
};
const CREDENTIAL_CHANGED: Record<string, unknown> = {
  credentialId: "gh2",
  type: "oauth2",
  token: "t2",
  headerName: "X-Token",
  prefix: "",
  value: "v2",
  injectionLocation: ["query"],
  trustedDomains: ["b.example.com"],
  clientId: "c2",
  clientSecret: "s2",
  refreshToken: "r2",
  tokenUrl: "https://b.example.com/token",
  scopes: ["b"],
};

const replaces = (diff: ResourceDiff) => replacedProperties(diff).length > 0;

test.each(propertiesOf(EnvironmentInputs).map(([property]) => property))("Environment: a change of %s replaces exactly when schema.json says so", (property) => {
  expect(ENVIRONMENT_CHANGED).toHaveProperty([property]);
  const olds = { ...ENVIRONMENT_BEFORE } as unknown as EnvironmentOutputs;
  const diff = environmentCore.diff(olds, { ...ENVIRONMENT_BEFORE, [property]: ENVIRONMENT_CHANGED[property] } as never);
  if (property !== "adopt") expect(diff.changes.size).toBeGreaterThan(0);
  expect(replaces(diff)).toBe(marked("Environment").includes(property));
});

test.each(propertiesOf(CredentialSchema).map(([property, meta]) => [property, meta.types?.[0] ?? "bearer_token"] as const))(
  "Credential: a change of %s (a %s credential) replaces exactly when schema.json says so",
  (property, type) => {
    expect(CREDENTIAL_CHANGED).toHaveProperty([property]);
    const before = CREDENTIAL_BEFORE[type]!;
    const diff = credentialCore.diff(before as unknown as CredentialOutputs, { ...before, [property]: CREDENTIAL_CHANGED[property] } as unknown as CredentialInputs);
    expect(diff.changes.size).toBeGreaterThan(0);
    expect(replaces(diff)).toBe(marked("Credential").includes(property));
  },
);
