/**
 * The Terraform registry's pages under docs/terraform/ are generated from terraformSchema() and
 * examples/terraform/ (scripts/generate-terraform-docs.ts, `npm run schema`): this fails when a
 * committed page drifts or one is left over, when a page lacks the registry's front matter, when a
 * resource, data source or attribute the provider serves has no page or no line, when a page's
 * example is not its example file, or when an example is not run by the e2e test of the examples; for
 * a module under examples/terraform/modules/, when its guide or README does not show its examples
 * whole, when its tests do not apply each example, or when the e2e test does not run its tests.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { EXAMPLES_DIR, EXAMPLES_TESTED_BY, exampleOf, moduleExamples, moduleNames, MODULES_DIR, terraformPages } from "../../../scripts/generate-terraform-docs";
import { terraformSchema, type TerraformAttribute } from "../../../provider/terraform/schema";
import { FUNCTIONS } from "../../../provider/terraform/functions";

const root = path.resolve(__dirname, "../../..");
const docsDir = path.join(root, "docs", "terraform");
const pages = terraformPages(root);
const schema = terraformSchema();

function committedPages(dir = docsDir, prefix = ""): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? committedPages(path.join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]));
}

test.each(Object.keys(pages))("the committed docs/terraform/%s is the generator's output (run `npm run schema` to update it)", (file) => {
  expect(fs.readFileSync(path.join(docsDir, file), "utf8")).toBe(pages[file]);
});

test("docs/terraform/ holds the generated pages and nothing else", () => {
  expect(committedPages().sort()).toEqual(Object.keys(pages).sort());
});

test("one page per resource and data source, in the registry's folders", () => {
  const expected = [
    "index.md",
    ...Object.keys(schema.resources).map((type) => `resources/${type.replace(/^geminienvironments_/, "")}.md`),
    ...Object.keys(schema.dataSources).map((type) => `data-sources/${type.replace(/^geminienvironments_/, "")}.md`),
    ...Object.keys(FUNCTIONS).map((name) => `functions/${name}.md`),
    ...moduleNames(root).map((name) => `guides/${name}-module.md`),
  ];
  expect(Object.keys(pages).sort()).toEqual(expected.sort());
  expect(Object.keys(pages)).toEqual(expect.arrayContaining(["resources/environment.md", "resources/credential.md", "data-sources/hooks.md", "guides/guarded-environment-module.md"]));
});

test.each(Object.keys(pages))("docs/terraform/%s opens with the registry's front matter: page_title, subcategory, description", (file) => {
  const frontMatter = /^---\n([\s\S]*?)\n---\n/.exec(pages[file])?.[1];
  expect(frontMatter).toMatch(/^page_title: "\S.*"$/m);
  expect(frontMatter).toMatch(/^subcategory: ""$/m);
  expect(frontMatter).toMatch(/^description: \|-\n {2}\S/m);
});

const blocks = [
  { file: "index.md", block: schema.provider, example: exampleOf("provider", "") },
  ...Object.entries(schema.resources).map(([type, block]) => ({ file: `resources/${type.replace(/^geminienvironments_/, "")}.md`, block, example: exampleOf("resources", type) })),
  ...Object.entries(schema.dataSources).map(([type, block]) => ({ file: `data-sources/${type.replace(/^geminienvironments_/, "")}.md`, block, example: exampleOf("data-sources", type) })),
];

test.each(blocks)("$file lists every attribute the provider serves, nested ones in their section, secrets marked Sensitive", ({ file, block }) => {
  const page = pages[file];
  const check = (attributes: TerraformAttribute[], parent: string) => {
    const section = sectionOf(page, parent === "" ? "## Schema\n" : `### Nested Schema for \`${parent}\`\n`);
    for (const attribute of attributes) {
      const line = section.split("\n").find((candidate) => candidate.startsWith(`- \`${attribute.name}\` (`));
      expect(line).toBeDefined();
      expect(line!.includes("Sensitive)")).toBe(attribute.sensitive);
      if (attribute.nested) check(attribute.nested.attributes, parent === "" ? attribute.name : `${parent}.${attribute.name}`);
    }
  };
  check(block.attributes, "");
  // A required attribute is under Required, a computed-only one under Read-Only.
  const required = block.attributes.filter((attribute) => attribute.required).map((attribute) => attribute.name);
  if (required.length > 0) expect(page).toContain(`### Required\n\n- \`${[...required].sort()[0]}\``);
});

/**
 * The text under `heading`, up to the next section (a nested schema, or the next `##` heading): an
 * attribute listed in another section does not count for this one.
 */
function sectionOf(page: string, heading: string): string {
  const start = page.indexOf(heading);
  expect(start).toBeGreaterThanOrEqual(0);
  const body = page.slice(start + heading.length);
  const end = body.search(/^(<a id="nestedatt--|### Nested Schema for |#{1,2} )/m);
  return end < 0 ? body : body.slice(0, end);
}

test("a section is its own lines: an attribute of a nested schema does not stand in for a missing top-level one", () => {
  const page = ["## Schema", "", "### Optional", "", "- `network` (Attributes)", "", '<a id="nestedatt--network"></a>', "### Nested Schema for `network`", "", "Optional:", "", "- `disabled` (Boolean)", "", "## Import", ""].join("\n");
  expect(sectionOf(page, "## Schema\n")).toContain("### Optional\n\n- `network`");
  expect(sectionOf(page, "## Schema\n")).not.toContain("`disabled`");
  expect(sectionOf(page, "### Nested Schema for `network`\n")).toBe("\nOptional:\n\n- `disabled` (Boolean)\n\n");
});

const functionPages = Object.entries(FUNCTIONS).map(([name, definition]) => ({ file: `functions/${name}.md`, name, definition, example: exampleOf("functions", name) }));

test.each(functionPages)("$file gives the function's signature and each argument, in order, nullable where it takes null", ({ file, name, definition }) => {
  expect(pages[file]).toContain(`# function: ${name}\n`);
  const listed = sectionOf(pages[file], "## Arguments\n").trim().split("\n");
  expect(listed.map((line) => /^\d+\. `(\w+)` \(([^)]*)\)/.exec(line)?.slice(1))).toEqual(
    definition.parameters.map((parameter) => [parameter.name, expect.stringMatching(parameter.allowNull ? /, Nullable$/ : /^[A-Za-z]+$/)]),
  );
});

test("functions/egress_allowed.md's signature", () => {
  expect(pages["functions/egress_allowed.md"]).toContain("## Signature\n\n```text\negress_allowed(network object, url string) bool\n```");
});

test.each([...blocks, ...functionPages])("$file shows its example, $example, whole", ({ file, example }) => {
  const text = fs.readFileSync(path.join(root, example), "utf8").trimEnd();
  expect(pages[file]).toContain(`## Example Usage\n\n\`\`\`terraform\n${text}\n\`\`\``);
});

test("the resources' pages have an Import section with the command of their import.sh", () => {
  expect(pages["resources/environment.md"]).toContain("terraform import geminienvironments_environment.example env_abc123");
  expect(pages["resources/credential.md"]).toContain("terraform import geminienvironments_credential.github github-token");
});

test(`every example folder is run by name in ${EXAMPLES_TESTED_BY}`, () => {
  const tested = fs.readFileSync(path.join(root, EXAMPLES_TESTED_BY), "utf8");
  const folders = [...blocks, ...functionPages].map(({ example }) => path.relative(EXAMPLES_DIR, path.dirname(example)));
  expect(folders).toHaveLength(1 + Object.keys(schema.resources).length + Object.keys(schema.dataSources).length + Object.keys(FUNCTIONS).length);
  for (const folder of folders) expect(tested).toContain(`"${folder}"`);
});

describe.each(moduleNames(root))("the module %s", (name) => {
  const folder = `${MODULES_DIR}/${name}`;
  const examples = moduleExamples(root, name);
  const tests = fs
    .readdirSync(path.join(root, folder, "tests"))
    .filter((file) => file.endsWith(".tftest.hcl"))
    .map((file) => fs.readFileSync(path.join(root, folder, "tests", file), "utf8"))
    .join("\n");

  test("has examples, each shown whole in its guide and its README, and applied by its tests", () => {
    expect(examples.length).toBeGreaterThan(0);
    const readme = fs.readFileSync(path.join(root, folder, "README.md"), "utf8");
    for (const example of examples) {
      const shown = `\`\`\`terraform\n${fs.readFileSync(path.join(root, example), "utf8").trimEnd()}\n\`\`\``;
      expect(pages[`guides/${name}-module.md`]).toContain(shown);
      expect(readme).toContain(shown);
      expect(tests).toContain(`source = "./${path.relative(folder, path.dirname(example))}"`);
    }
  });

  test(`its tests are run by ${EXAMPLES_TESTED_BY}`, () => {
    expect(fs.readFileSync(path.join(root, EXAMPLES_TESTED_BY), "utf8")).toContain(`"${path.relative(EXAMPLES_DIR, folder)}"`);
  });
});
