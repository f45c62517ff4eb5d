/**
 * docs/reference/ is generated (scripts/generate-reference.ts, `npm run schema`) from the same source as
 * schema.json: this fails when the committed pages differ from the generator's, when a name it gives
 * for Python or Go is not the generated SDKs' (sdk/python, sdk/go), or when a resource or function
 * has no example program in examples/reference.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { generateSchema } from "../../../scripts/generate-schema";
import { goFunctionName, goName, PROVIDER_EXAMPLE, pythonName, referencePages } from "../../../scripts/generate-reference";
import { referenceExamples, referenceFolderOf } from "../../../scripts/reference-examples";

const root = path.resolve(__dirname, "../../..");
const dir = path.join(root, "docs", "reference");

test("the committed docs/reference is the generator's output (run `npm run schema` to update it)", () => {
  const pages = referencePages(root);
  const committed = fs.readdirSync(dir);
  const differing = [...new Set([...committed, ...Object.keys(pages)])]
    .filter((file) => !committed.includes(file) || pages[file] !== fs.readFileSync(path.join(dir, file), "utf8"))
    .map((file) => `docs/reference/${file}`)
    .sort();
  expect(differing).toEqual([]);
});

describe("the names it gives are the generated SDKs'", () => {
  const schema = generateSchema(root) as {
    resources: Record<string, { properties: object; inputProperties: object }>;
    functions: Record<string, { inputs?: { properties: object }; outputs: { properties: object } }>;
    types: Record<string, { properties?: object }>;
    provider: { inputProperties: object };
  };
  const python = (file: string) => fs.readFileSync(path.join(root, "sdk", "python", "pulumi_gemini_environments", file), "utf8");
  const go = (file: string) => fs.readFileSync(path.join(root, "sdk", "go", "geminienvironments", file), "utf8");
  const missing = (properties: string[], pythonText: string, goText: string) =>
    properties.flatMap((property) => [
      ...(pythonText.includes(`def ${pythonName(property)}(self)`) ? [] : [`python ${pythonName(property)}`]),
      ...(new RegExp(`^\\t${goName(property)} `, "m").test(goText) ? [] : [`go ${goName(property)}`]),
    ]);

  test.each(["Credential", "Environment", "GuardedEnvironment"])("%s", (name) => {
    const spec = schema.resources[`gemini-environments:index:${name}`];
    const file = name.replace(/^./, (letter) => letter.toLowerCase());
    const pythonFile = `${pythonName(file)}.py`;
    expect(missing([...new Set([...Object.keys(spec.properties), ...Object.keys(spec.inputProperties)])], python(pythonFile), go(`${file}.go`))).toEqual([]);
  });

  test("Provider and every type", () => {
    expect(missing(Object.keys(schema.provider.inputProperties), python("provider.py"), go("provider.go"))).toEqual([]);
    const typeProperties = Object.values(schema.types).flatMap((type) => Object.keys(type.properties ?? {}));
    expect(typeProperties.length).toBeGreaterThan(0);
    // Types that only results hold are output classes (outputs.py).
    expect(missing(typeProperties, python("_inputs.py") + python("outputs.py"), go("pulumiTypes.go"))).toEqual([]);
  });

  test.each(["getEnvironment", "getEnvironments", "getEnvironmentFile", "getCredential", "getCredentials"])("function %s", (name) => {
    const spec = schema.functions[`gemini-environments:index:${name}`];
    const [pythonText, goText] = [python(`${pythonName(name)}.py`), go(`${name}.go`)];
    const goFunction = goFunctionName(name, new Set(Object.keys(schema.resources).map((token) => token.split(":").pop()!)));
    expect(pythonText).toMatch(new RegExp(`^def ${pythonName(name)}\\(`, "m"));
    expect(pythonText).toMatch(new RegExp(`^def ${pythonName(name)}_output\\(`, "m"));
    expect(goText).toContain(`func ${goFunction}(ctx *pulumi.Context`);
    expect(goText).toContain(`func ${goFunction}Output(ctx *pulumi.Context`);
    expect(missing(Object.keys(spec.outputs.properties), pythonText, goText)).toEqual([]);
    // Arguments are the Python functions' keyword parameters, and the Go Args structs' fields.
    for (const argument of Object.keys(spec.inputs?.properties ?? {})) {
      expect(pythonText).toMatch(new RegExp(`^def ${pythonName(name)}\\((?:[^)]*\\s)?${pythonName(argument)}: `, "m"));
      expect(goText).toMatch(new RegExp(`^\\t${goName(argument)} `, "m"));
    }
  });
});

describe("every page has an example", () => {
  // The resources' and functions' examples are programs that the real engine runs (test/e2e/reference-*.test.ts).
  test("every resource and function has a program in examples/reference", () => {
    const schema = generateSchema(root) as { resources: object; functions: object };
    const folders = new Set(referenceExamples(root).map((example) => example.name));
    const names = [...Object.keys(schema.resources), ...Object.keys(schema.functions)].map((token) => token.split(":").pop()!);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !folders.has(referenceFolderOf(name)))).toEqual([]);
  });

  test("the Provider's sets only the provider's inputs", () => {
    const { provider } = generateSchema(root) as { provider: { inputProperties: object } };
    expect(Object.keys(PROVIDER_EXAMPLE.properties).filter((key) => !(key in provider.inputProperties))).toEqual([]);
  });
});
