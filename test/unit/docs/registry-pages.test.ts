/**
 * The Pulumi Registry's pages, docs/_index.md and docs/installation-configuration.md, are generated
 * (scripts/generate-registry-docs.ts, `npm run schema`): this fails when the committed pages drift, when
 * one lacks the registry's front matter, when a language's example is not a whole example program
 * that a test of the suite runs, or when a config key of schema.json is missing from the configuration
 * table with its environment variables.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { CONFIG_ENVIRONMENT, EXAMPLES, registryPages } from "../../../scripts/generate-registry-docs";

const root = path.resolve(__dirname, "../../..");
const pages = registryPages(root);

test.each(Object.keys(pages))("the committed docs/%s is the generator's output (run `npm run schema` to update it)", (file) => {
  expect(fs.readFileSync(path.join(root, "docs", file), "utf8")).toBe(pages[file]);
});

test.each(Object.keys(pages))("docs/%s opens with the registry's front matter: a title, a meta_desc, layout: package", (file) => {
  const frontMatter = /^---\n([\s\S]*?)\n---\n/.exec(pages[file])?.[1];
  expect(frontMatter).toMatch(/^title: \S.*$/m);
  expect(frontMatter).toMatch(/^meta_desc: \S.*$/m);
  expect(frontMatter).toMatch(/^layout: package$/m);
});

test("the overview shows one example per language in the registry's chooser, each a whole example program", () => {
  const index = pages["_index.md"];
  expect(index).toContain('{{< chooser language "typescript,python,go,yaml" >}}');
  for (const { language, fence, file } of EXAMPLES) {
    const program = fs.readFileSync(path.join(root, file), "utf8").trimEnd();
    expect(index).toContain(`{{% choosable language ${language} %}}\n\n\`${file}\`:\n\n\`\`\`${fence}\n${program}\n\`\`\``);
  }
});

test.each(EXAMPLES)("the $language example ($file) is run by $testedBy", ({ file, testedBy }) => {
  const example = path.basename(path.dirname(file));
  expect(fs.readFileSync(path.join(root, testedBy), "utf8")).toMatch(new RegExp(`addExample\\("${example}"\\)|"examples", "${example}"`));
});

test("the configuration table has every config key of schema.json, with its environment variables", () => {
  const schema = JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8")) as { config: { variables: Record<string, unknown> } };
  const table = pages["installation-configuration.md"];
  for (const key of Object.keys(schema.config.variables)) {
    const row = table.split("\n").find((line) => line.startsWith(`| \`gemini-environments:${key}\` |`));
    expect(row).toBeDefined();
    for (const variable of CONFIG_ENVIRONMENT[key]) expect(row).toContain(`\`${variable}\``);
  }
});
