/**
 * Each importable resource's description ends with an Import section, as the registry's resource pages
 * do: the `pulumi import` command with its type token, then the `import` resource option in every
 * language (each SDK's generator keeps the block of its own). Components are not importable: none.
 * That import by id works is test/e2e/import.test.ts.
 */
import * as path from "node:path";
import { generateSchema } from "../../../scripts/generate-schema";

const root = path.resolve(__dirname, "../../..");
const schema = generateSchema(root) as { resources: Record<string, { description: string; isComponent?: boolean }> };
const resources = Object.entries(schema.resources).filter(([, resource]) => !resource.isComponent);
const components = Object.entries(schema.resources).filter(([, resource]) => resource.isComponent);

test("the importable resources are the Credential and the Environment", () => {
  expect(resources.map(([token]) => token)).toEqual(["gemini-environments:index:Credential", "gemini-environments:index:Environment"]);
});

test.each(resources)("%s: the description ends with an Import section naming its type token", (token, { description }) => {
  const sections = description.split(/^## /m);
  const last = sections[sections.length - 1]!;
  expect(sections.length).toBeGreaterThan(1);
  expect(last).toMatch(/^Import\n/);
  expect(description.match(/^## Import$/gm)).toHaveLength(1);
  expect(last).toMatch(new RegExp(`^\\$ pulumi import ${token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\w+ \\S+$`, "m"));
  const id = /^\$ pulumi import \S+ \w+ (\S+)$/m.exec(last)![1]!;
  expect(last).toContain(`{ import: "${id}" }`); // typescript
  expect(last).toContain(`import_="${id}"`); // python
  expect(last).toContain(`pulumi.Import(pulumi.ID("${id}"))`); // go
  expect(last).toContain(`import: ${id}\n`); // yaml
  expect(last).toContain(`new plugin.${token.split(":").pop()}(`); // the dynamic classes cannot be imported
});

test.each(components)("%s: a component, not importable, has no Import section", (_token, { description }) => {
  expect(description).not.toMatch(/^## Import/m);
});
