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

test("every resource, component and type is there", () => {
  const schema = generateSchema(root) as { name: string; resources: Record<string, { isComponent?: boolean }>; types: Record<string, unknown> };
  expect(schema.name).toBe("gemini-environments");
  expect(Object.keys(schema.resources)).toEqual(["gemini-environments:index:Credential", "gemini-environments:index:Environment", "gemini-environments:index:GuardedEnvironment"]);
  expect(schema.resources["gemini-environments:index:GuardedEnvironment"]?.isComponent).toBe(true);
  expect(Object.keys(schema.types).sort()).toEqual(
    ["AllowlistEntry", "CommandHandler", "EnvironmentMode", "HookBundle", "HooksGroup", "HooksRule", "HooksTestCase", "HttpHandler", "NetworkAllowlist", "Source", "SourceType", "UpdateStrategy"].map(
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
