/**
 * The schema's `language` names only SDKs that are built and released: the registry shows usage for each
 * language it lists, so a section for an SDK no one can install (C# before) would document a package that
 * does not exist. The built ones are the generators scripts/sdkgen runs (written to sdk/<language>) and
 * this npm package itself, the Node.js one.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { generateSchema } from "../../../scripts/generate-schema";

const root = path.resolve(__dirname, "../../..");

/** The languages scripts/sdkgen generates: its `{"<language>", func …}` table. */
function generatedLanguages(): string[] {
  const source = fs.readFileSync(path.join(root, "scripts", "sdkgen", "main.go"), "utf8");
  return [...source.matchAll(/^\s*\{"(\w+)", func\(/gm)].map(([, language]) => language!);
}

test("scripts/sdkgen generates Python and Go, each checked in under sdk/", () => {
  expect(generatedLanguages().sort()).toEqual(["go", "python"]);
  for (const language of generatedLanguages()) expect(fs.existsSync(path.join(root, "sdk", language))).toBe(true);
});

test("language lists the generated SDKs and this npm package, nothing else", () => {
  const schema = generateSchema(root) as { language: Record<string, { packageName?: string }> };
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { name: string };
  expect(Object.keys(schema.language).sort()).toEqual([...generatedLanguages(), "nodejs"].sort());
  expect(schema.language.nodejs?.packageName).toBe(manifest.name);
});

test("Go has the resources' container types (EnvironmentArray, EnvironmentMap), as the SDK under sdk/go does", () => {
  const schema = generateSchema(root) as { language: Record<string, Record<string, unknown>> };
  expect(schema.language.go).toMatchObject({ generateResourceContainerTypes: true });
  const go = fs.readFileSync(path.join(root, "sdk", "go", "geminienvironments", "environment.go"), "utf8");
  for (const type of ["EnvironmentArray", "EnvironmentMap", "EnvironmentArrayOutput", "EnvironmentMapOutput"]) expect(go).toMatch(new RegExp(`^type ${type} `, "m"));
});
