/**
 * schema.json is generated (scripts/generate-schema.ts, `npm run schema`); this fails when the committed
 * file differs from what the generator produces from the current zod schemas.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { generateSchema, schemaText } from "../../../scripts/generate-schema";

const root = path.resolve(__dirname, "../../..");

test("the committed schema.json is the generator's output (run `npm run schema` to update it)", () => {
  expect(fs.readFileSync(path.join(root, "schema.json"), "utf8")).toBe(schemaText(root));
});

test("every resource, component, function and type is there", () => {
  const schema = generateSchema(root) as { name: string; resources: Record<string, { isComponent?: boolean }>; functions: Record<string, unknown>; types: Record<string, unknown> };
  expect(schema.name).toBe("gemini-environments");
  expect(Object.keys(schema.resources)).toEqual(["gemini-environments:index:Credential", "gemini-environments:index:Environment", "gemini-environments:index:GuardedEnvironment"]);
  expect(schema.resources["gemini-environments:index:GuardedEnvironment"]?.isComponent).toBe(true);
  expect(Object.keys(schema.functions)).toEqual(
    ["getEnvironment", "getEnvironments", "getEnvironmentFile", "getCredential", "getCredentials"].map((name) => `gemini-environments:index:${name}`),
  );
  expect(Object.keys(schema.types).sort()).toEqual(
    [
      "AllowlistEntry",
      "CommandHandler",
      "CredentialInfo",
      "CredentialStatus",
      "CredentialType",
      "EgressPolicy",
      "EnvironmentInfo",
      "EnvironmentMode",
      "EnvironmentStatus",
      "HookBundle",
      "HookDecision",
      "HookEvent",
      "HookHandler",
      "HooksGroup",
      "HooksRule",
      "HooksTestCase",
      "HttpHandler",
      "InjectionLocation",
      "LintCode",
      "OnFailure",
      "ProbeMode",
      "Source",
      "SourceType",
      "UpdateStrategy",
    ].map(
      (name) => `gemini-environments:index:${name}`,
    ),
  );
});

test("every $ref points at a declared type or Pulumi's built-ins", () => {
  const text = schemaText(root);
  const schema = JSON.parse(text) as { types: Record<string, unknown> };
  for (const [, ref] of text.matchAll(/"\$ref": "([^"]+)"/g)) {
    if (ref?.startsWith("pulumi.json#/")) continue;
    expect(Object.keys(schema.types)).toContain(ref?.replace("#/types/", ""));
  }
});

test("the self-hosted key is a secret output, and the mode fields are inputs", () => {
  const schema = generateSchema(root) as { resources: Record<string, { properties: Record<string, { secret?: boolean }>; inputProperties: Record<string, unknown> }> };
  const environment = schema.resources["gemini-environments:index:Environment"];
  expect(environment.properties.environmentKey).toMatchObject({ type: "string", secret: true });
  expect(environment.inputProperties).not.toHaveProperty("environmentKey");
  expect(Object.keys(environment.inputProperties)).toEqual(expect.arrayContaining(["mode", "systemInstruction", "customConfig"]));
});

test("no union: Go types none (an interface{}), so every value is one object type, hook handlers too ({command: …} or {http: …})", () => {
  const unions: Array<{ at: string; oneOf: Array<{ $ref?: string }>; discriminator?: unknown }> = [];
  const walk = (value: unknown, at: string): void => {
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${at}[${index}]`));
    else if (value !== null && typeof value === "object") {
      const node = value as Record<string, unknown>;
      if (Array.isArray(node.oneOf)) unions.push({ at, oneOf: node.oneOf as Array<{ $ref?: string }>, discriminator: node.discriminator });
      for (const [key, item] of Object.entries(node)) walk(item, `${at}.${key}`);
    }
  };
  walk(generateSchema(root), "schema");
  expect(unions.map(({ at }) => at)).toEqual([]);
});

test("the package's identity: version from package.json, a Go import path inside the module at sdk/go, this npm package as the Node one", () => {
  const schema = generateSchema(root) as { version: string; pluginDownloadURL: string; language: Record<string, Record<string, unknown>>; [key: string]: unknown };
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { name: string; version: string };
  expect(schema.version).toBe(manifest.version);
  expect(schema.language.python).toMatchObject({ packageName: "pulumi_gemini_environments", respectSchemaVersion: true, requires: { pulumi: expect.stringMatching(/^>=3\./) } });
  const { importBasePath, modulePath } = schema.language.go as { importBasePath: string; modulePath: string };
  expect(importBasePath).toBe(`${modulePath}/geminienvironments`);
  expect(modulePath).toMatch(/^github\.com\/[^/]+\/[^/]+\/sdk\/go$/);
  expect(schema.language.nodejs?.packageName).toBe(manifest.name);
  expect(schema.language.csharp).toBeUndefined(); // no .NET SDK is built (language-sections.test.ts)
  expect(schema.pluginDownloadURL).toMatch(/^github:\/\/api\.github\.com\/[^/]+\/[^/]+$/);
  for (const field of ["displayName", "description", "keywords", "repository", "publisher", "logoUrl"]) expect(schema[field]).toBeTruthy();
});

test("every closed set is an enum: each value with a PascalCase name and a description, the values as the API takes them", () => {
  const schema = generateSchema(root) as { types: Record<string, { enum?: Array<{ name: string; value: string; description: string }> }> };
  const enums = Object.fromEntries(
    Object.entries(schema.types)
      .filter(([, type]) => type.enum !== undefined)
      .map(([token, type]) => [token.replace("gemini-environments:index:", ""), type.enum!]),
  );
  expect(Object.keys(enums).sort()).toEqual(
    ["CredentialStatus", "CredentialType", "EnvironmentMode", "EnvironmentStatus", "HookDecision", "HookEvent", "InjectionLocation", "LintCode", "OnFailure", "ProbeMode", "SourceType", "UpdateStrategy"].sort(),
  );
  for (const values of Object.values(enums)) {
    for (const { name, value, description } of values) {
      expect(name).toMatch(/^[A-Z][A-Za-z0-9]*$/);
      expect(description.length).toBeGreaterThan(0);
      // The API's values and ours are one style: lowercase, words joined by `_` (the linter's stable codes by `-`).
      expect(value).toMatch(/^[a-z0-9]+([_-][a-z0-9]+)*$/);
    }
  }
  expect(enums.UpdateStrategy!.map(({ value }) => value)).toEqual(["in_place", "replace"]);
  expect(enums.CredentialType!.map(({ name }) => name)).toEqual(["EnvironmentVariable", "BearerToken", "Oauth2"]);
  // No closed set is left a plain string: every `enum` in the schema is a named type's.
  const inline: string[] = [];
  const walk = (value: unknown, at: string, top: boolean): void => {
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${at}[${index}]`, false));
    else if (value !== null && typeof value === "object") {
      if ("enum" in value && !top) inline.push(at);
      for (const [key, item] of Object.entries(value)) walk(item, `${at}.${key}`, false);
    }
  };
  for (const [token, type] of Object.entries(schema.types)) for (const [key, item] of Object.entries(type)) if (key !== "enum") walk(item, `${token}.${key}`, false);
  walk((schema as unknown as { resources: unknown }).resources, "resources", false);
  expect(inline).toEqual([]);
});

test("defaults are the zod definitions': an omitted input's meaning, handler and group defaults, the config's environment variables", () => {
  const schema = generateSchema(root) as {
    config: { variables: Record<string, { default?: unknown; defaultInfo?: { environment: string[] }; secret?: boolean }> };
    provider: { inputProperties: Record<string, unknown> };
    resources: Record<string, { inputProperties: Record<string, { default?: unknown }> }>;
    types: Record<string, { properties?: Record<string, { default?: unknown; const?: unknown; secret?: boolean }>; required?: string[] }>;
  };
  expect(schema.config.variables.apiKey).toMatchObject({ secret: true, defaultInfo: { environment: ["GOOGLE_API_KEY", "GEMINI_API_KEY"] } });
  expect(schema.config.variables.baseUrl).toMatchObject({ default: "https://generativelanguage.googleapis.com", defaultInfo: { environment: ["GOOGLE_GEMINI_BASE_URL"] } });
  expect(schema.provider.inputProperties).toEqual(schema.config.variables);
  const environment = schema.resources["gemini-environments:index:Environment"]!.inputProperties;
  expect(environment.mode?.default).toBe("on_demand");
  expect(environment.updateStrategy?.default).toBe("in_place");
  const type = (name: string) => schema.types[`gemini-environments:index:${name}`]!;
  expect(type("CommandHandler").properties?.type).toMatchObject({ const: "command", default: "command" });
  expect(type("CommandHandler").required).toEqual(["command"]);
  expect(type("HttpHandler").properties?.type).toMatchObject({ const: "http", default: "http" });
  expect(type("CommandHandler").properties?.timeout?.default).toBe(30);
  expect(type("HooksGroup").properties?.enabled?.default).toBe(true);
  expect(type("HooksTestCase").properties?.event?.default).toBe("pre_tool_execution");
  expect(type("AllowlistEntry").properties?.transform?.secret).toBe(true);
});

test("the network's type is EgressPolicy (NetworkAllowlist before 0.2.0), which every network input refers to", () => {
  const text = schemaText(root);
  expect(text).not.toContain("NetworkAllowlist");
  const schema = JSON.parse(text) as { resources: Record<string, { inputProperties: Record<string, { $ref?: string }> }> };
  for (const resource of ["Environment", "GuardedEnvironment"]) {
    expect(schema.resources[`gemini-environments:index:${resource}`]!.inputProperties.network?.$ref).toBe("#/types/gemini-environments:index:EgressPolicy");
  }
});
