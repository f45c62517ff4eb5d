/**
 * Generates `docs/reference/`, the reference of every resource, component, function, input, output and type,
 * from the same source as schema.json: the schema `generateSchema` derives from the zod schemas, and
 * the zod meta for what a change of an input does. Each property is shown with its name in TypeScript,
 * Python, Go and YAML, its type, whether it is secret, what a change does and its description; each
 * resource and function with its examples (examples/reference/, through schema.json's descriptions; the
 * Provider's is `PROVIDER_EXAMPLE`). `npm run schema` rewrites the pages; a test fails when the committed
 * ones drift.
 *
 * Names per language follow Pulumi's generators: Python snake_case, Go PascalCase, YAML schema.json's
 * camelCase; TypeScript uses this npm package's names (a nested type's fields as on the wire, e.g.
 * hooks.json's `pre_tool_execution`, because TypeScript programs declare hooks as hooks.json does).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { z } from "zod";
import { propertiesOf, schemaName, type PropertyMeta } from "../provider/contracts/resource-schema";
import { GO_PACKAGE, NAMED, PACKAGE, PYTHON_PACKAGE, RESOURCES, generateSchema, packageIdentity, repositoryRoot } from "./generate-schema";

type Json = Record<string, unknown>;
interface PropertySpec {
  description?: string;
  type?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  $ref?: string;
  oneOf?: PropertySpec[];
  secret?: boolean;
  default?: unknown;
  const?: unknown;
}
interface ObjectSpec {
  description?: string;
  properties?: Record<string, PropertySpec>;
  required?: string[];
  enum?: Array<{ value: string }>;
  inputProperties?: Record<string, PropertySpec>;
  requiredInputs?: string[];
  isComponent?: boolean;
}
interface FunctionSpec {
  description?: string;
  inputs?: ObjectSpec;
  outputs: ObjectSpec;
}

/**
 * The Provider's Pulumi YAML example. Every resource's and function's example is a program in
 * examples/reference/ (scripts/reference-examples.ts), which schema.json's descriptions carry; the
 * provider's description is its config's, without one.
 */
export const PROVIDER_EXAMPLE = {
  name: "local",
  note: "An explicit provider for `genv serve`; resources take it with `options: {provider: ${local}}`.",
  properties: { baseUrl: "http://127.0.0.1:8765", apiKey: "${emulatorKey}" },
};

const CHANGE: Record<NonNullable<PropertyMeta["change"]>, string> = {
  replace: "replaces",
  update: "updates in place",
  updateOrReplace: "updates in place where it can (edited or added inline files), else replaces",
};

// ---------------------------------------------------------------------------------------------
// Names in each language
// ---------------------------------------------------------------------------------------------

/** Python's name of a schema property: snake_case, as pkg/v3/codegen/python names it. */
export function pythonName(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** Go's name of a schema property: exported, as pkg/v3/codegen/go names it. */
export function goName(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** For each named type, its schema property name → the TypeScript (zod) name. */
function typeScriptNames(): Map<string, Map<string, string>> {
  const names = new Map<string, Map<string, string>>();
  for (const [schema, typeName] of NAMED) {
    const shape = (schema as unknown as { _zod: { def: { shape?: Record<string, z.ZodType> } } })._zod.def.shape;
    if (shape) names.set(typeName, new Map(Object.keys(shape).map((key) => [schemaName(key), key])));
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// Pages
// ---------------------------------------------------------------------------------------------

/** Every page of docs/reference/: file name → text. */
export function referencePages(root: string = repositoryRoot()): Record<string, string> {
  const schema = generateSchema(root) as {
    resources: Record<string, ObjectSpec>;
    functions: Record<string, FunctionSpec>;
    types: Record<string, ObjectSpec>;
    provider: ObjectSpec;
    [key: string]: unknown;
  };
  const identity = packageIdentity(root);
  const tsNames = typeScriptNames();
  const pages: Record<string, string> = {};

  const changes = new Map<string, Map<string, PropertyMeta["change"]>>();
  for (const [name, inputs] of RESOURCES) changes.set(name, new Map(propertiesOf(inputs).map(([property, meta]) => [property, meta.change])));

  const resourceNames = Object.keys(schema.resources).map(shortName);
  for (const [token, spec] of Object.entries(schema.resources)) {
    const name = shortName(token);
    pages[`${name}.md`] = resourcePage(name, spec, changes.get(name) ?? new Map(), identity.goModule);
  }
  pages["Provider.md"] = resourcePage("Provider", { ...schema.provider, properties: {} }, new Map(), identity.goModule);
  const functionNames = Object.keys(schema.functions).map(shortName);
  for (const [token, spec] of Object.entries(schema.functions)) {
    const name = shortName(token);
    pages[`${name}.md`] = functionPage(name, spec, new Set(resourceNames), identity.goModule);
  }
  pages["types.md"] = typesPage(schema.types, tsNames);
  pages["README.md"] = indexPage([...resourceNames, "Provider"], functionNames, schema.types, identity);
  return pages;
}

function resourcePage(name: string, spec: ObjectSpec, changes: Map<string, PropertyMeta["change"]>, goModule: string): string {
  const kind = name === "Provider" ? "provider" : spec.isComponent ? "component" : "resource";
  const token = name === "Provider" ? `pulumi:providers:${PACKAGE}` : `${PACKAGE}:index:${name}`;
  const inputs = spec.inputProperties ?? {};
  const required = new Set(spec.requiredInputs ?? []);
  const outputs = Object.entries(spec.properties ?? {}).filter(([property]) => !(property in inputs));
  const [prose, examples] = descriptionParts(spec.description);
  const example = name === "Provider" ? PROVIDER_EXAMPLE : undefined;
  const lines = [
    GENERATED,
    `# ${name} (${kind})`,
    "",
    escapeText(prose),
    "",
    "| TypeScript | Python | Go | YAML |",
    "| --- | --- | --- | --- |",
    `| ${typeScriptClass(name)} | \`${PYTHON_PACKAGE}.${name}\` | \`${GO_PACKAGE}.New${name}\` (\`${goModule}/${GO_PACKAGE}\`) | \`type: ${token}\` |`,
    "",
  ];
  if (name === "GuardedEnvironment") {
    lines.push(
      "In TypeScript, `hooks` takes a `HookBundle` and `network` a `NetworkPolicy` (or a network value); the other languages declare the bundle's parts as below.",
      "",
    );
  }
  lines.push("## Inputs", "", ...propertyTable(inputs, required, (property) => changeOf(kind, changes, property)));
  if (outputs.length > 0) lines.push("## Outputs", "", ...propertyTable(Object.fromEntries(outputs), new Set(spec.required ?? []), () => undefined, undefined, "Always set"));
  if (examples) lines.push(examples);
  if (example) {
    lines.push("## Example (Pulumi YAML)", "", escapeText(example.note), "", "```yaml", "resources:", `  ${example.name}:`, `    type: ${token}`, "    properties:");
    lines.push(...yamlLines(example.properties, 6), "```", "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

function functionPage(name: string, spec: FunctionSpec, resources: Set<string>, goModule: string): string {
  const token = `${PACKAGE}:index:${name}`;
  const go = goFunctionName(name, resources);
  const python = pythonName(name);
  const [prose, examples] = descriptionParts(spec.description);
  const lines = [
    GENERATED,
    `# ${name} (function)`,
    "",
    escapeText(prose),
    "",
    "| TypeScript | Python | Go | YAML |",
    "| --- | --- | --- | --- |",
    `| \`${name}\`, \`${name}Output\`; \`plugin.${name}\`, \`plugin.${name}Output\` | \`${PYTHON_PACKAGE}.${python}\`, \`${python}_output\` | \`${GO_PACKAGE}.${go}\`, \`${go}Output\` (\`${goModule}/${GO_PACKAGE}\`) | \`fn::invoke\` of \`${token}\` |`,
    "",
    "In TypeScript, `plugin.*` invoke the plugin, as the other languages do; the top-level functions call the API from the program itself, with the stack's `gemini-environments:` config or the environment's key, as the dynamic provider does. The `…Output` forms take and return outputs.",
    "",
    "## Arguments",
    "",
    ...propertyTable(spec.inputs?.properties ?? {}, new Set(spec.inputs?.required ?? []), () => undefined),
    "## Result",
    "",
    ...propertyTable(spec.outputs.properties ?? {}, new Set(spec.outputs.required ?? []), () => undefined, undefined, "Always set"),
  ];
  if (examples) lines.push(examples);
  return `${lines.join("\n").trimEnd()}\n`;
}

/** Go's name of a function, as pkg/v3/codegen/go names it: `getX` of a resource X is `LookupX`. */
export function goFunctionName(name: string, resources: Set<string>): string {
  const rest = name.replace(/^get/, "");
  return name.startsWith("get") && resources.has(rest) ? `Lookup${rest}` : goName(name);
}

function typesPage(types: Record<string, ObjectSpec>, tsNames: Map<string, Map<string, string>>): string {
  const lines = [GENERATED, "# Types", "", "The objects and enums that resources take and return, by name (Python `<Name>Args`, Go `<Name>Args` for inputs).", ""];
  for (const [token, spec] of Object.entries(types)) {
    const name = shortName(token);
    lines.push(`## ${name}`, "", escapeText(spec.description ?? ""), "");
    if (spec.enum) {
      lines.push(`An enum of strings: ${spec.enum.map(({ value }) => `\`${value}\``).join(", ")} (Python \`${PYTHON_PACKAGE}.${name}\`, Go \`${GO_PACKAGE}.${name}\`).`, "");
      continue;
    }
    lines.push(`Python \`${PYTHON_PACKAGE}.${name}Args\`, Go \`${GO_PACKAGE}.${name}Args\`.`, "");
    const names = tsNames.get(name);
    lines.push(...propertyTable(spec.properties ?? {}, new Set(spec.required ?? []), () => undefined, (property) => names?.get(property) ?? property));
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

function indexPage(resources: string[], functions: string[], types: Record<string, ObjectSpec>, identity: ReturnType<typeof packageIdentity>): string {
  return [
    GENERATED,
    "# Reference",
    "",
    `Every resource, component, function, input, output and type of the \`${PACKAGE}\` package, generated from the schema (\`schema.json\`) and the provider's own property schemas.`,
    "",
    "| Language | Package |",
    "| --- | --- |",
    "| TypeScript | `pulumi-gemini-environments` (npm) |",
    `| Python | \`${PYTHON_PACKAGE}\` (\`sdk/python\`) |`,
    `| Go | \`${identity.goModule}/${GO_PACKAGE}\` (\`sdk/go\`) |`,
    `| YAML | \`${PACKAGE}:index:<Name>\` |`,
    "",
    "## Resources and components",
    "",
    ...resources.map((name) => `- [${name}](${name}.md)`),
    "",
    "## Functions",
    "",
    ...functions.map((name) => `- [${name}](${name}.md)`),
    "",
    "## Types",
    "",
    ...Object.keys(types).map((token) => `- [${shortName(token)}](types.md#${anchor(shortName(token))})`),
    "",
  ].join("\n");
}

const GENERATED = "<!-- Generated by scripts/generate-reference.ts from the schema (`npm run schema`); do not edit. -->\n";

function propertyTable(
  properties: Record<string, PropertySpec>,
  required: Set<string>,
  change: (property: string) => string | undefined,
  typeScript: (property: string) => string = (property) => property,
  requiredLabel = "Required",
): string[] {
  const entries = Object.entries(properties);
  if (entries.length === 0) return ["None.", ""];
  const withChange = entries.some(([property]) => change(property) !== undefined);
  const header = ["TypeScript", "Python", "Go", "YAML", "Type", requiredLabel, "Secret", ...(withChange ? ["A change"] : []), "Description"];
  const rows = entries.map(([property, spec]) => [
    `\`${typeScript(property)}\``,
    `\`${pythonName(property)}\``,
    `\`${goName(property)}\``,
    `\`${property}\``,
    typeText(spec),
    required.has(property) ? "yes" : "no",
    spec.secret ? "**yes**" : "no",
    ...(withChange ? [change(property) ?? "—"] : []),
    escapeText(`${spec.description ?? ""}${spec.default !== undefined && !/\bdefault\b/i.test(spec.description ?? "") ? ` Default: \`${JSON.stringify(spec.default)}\`.` : ""}`),
  ]);
  return [`| ${header.join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`, ...rows.map((row) => `| ${row.join(" | ")} |`), ""];
}

function changeOf(kind: string, changes: Map<string, PropertyMeta["change"]>, property: string): string | undefined {
  if (kind === "provider") return undefined;
  if (kind === "component") return "through the child Environment";
  const change = changes.get(property);
  return change === undefined ? "nothing (not sent to the API)" : CHANGE[change];
}

function typeText(spec: PropertySpec): string {
  if (spec.$ref === "pulumi.json#/Any") return "any";
  if (spec.$ref) {
    const name = shortName(spec.$ref.replace("#/types/", ""));
    return `[${name}](types.md#${anchor(name)})`;
  }
  if (spec.oneOf) return spec.oneOf.map(typeText).join(" or ");
  if (spec.type === "array") return `list of ${typeText(spec.items ?? {})}`;
  if (spec.type === "object") return `map of ${typeText(spec.additionalProperties ?? {})}`;
  if (spec.const !== undefined) return `\`${JSON.stringify(spec.const)}\``;
  return spec.type ?? "any";
}

function typeScriptClass(name: string): string {
  return name === "Provider" ? "`plugin.Provider`" : `\`${name}\`, \`plugin.${name}\``;
}

/** A plain JSON value as block-style YAML lines at `indent` spaces; strings as JSON (YAML's double-quoted scalars). */
function yamlLines(value: unknown, indent: number): string[] {
  const pad = " ".repeat(indent);
  // Plain words stay bare; anything YAML could read as another type or syntax is quoted.
  const scalar = (item: unknown) => (typeof item === "string" && /^[A-Za-z_][A-Za-z0-9_.\-/]*$/.test(item) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(item) ? item : JSON.stringify(item));
  const isComposite = (item: unknown) => item !== null && typeof item === "object";
  const lines: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      if (!isComposite(item)) lines.push(`${pad}- ${scalar(item)}`);
      else {
        const [first, ...rest] = yamlLines(item, indent + 2);
        lines.push(`${pad}- ${first.trimStart()}`, ...rest);
      }
    }
  } else {
    for (const [key, item] of Object.entries(value as Json)) {
      if (isComposite(item)) lines.push(`${pad}${scalar(key)}:`, ...yamlLines(item, indent + 2));
      else lines.push(`${pad}${scalar(key)}: ${scalar(item)}`);
    }
  }
  return lines;
}

function shortName(token: string): string {
  return token.split(":").pop() as string;
}

function anchor(name: string): string {
  return name.toLowerCase();
}

/**
 * A description's prose, and its examples block (examples/reference) as a section of its own, its
 * programs as they are.
 */
function descriptionParts(description = ""): [string, string | undefined] {
  const [prose = "", block] = description.split(/\n\n(?=\{\{% examples %\}\})/);
  return [prose, block === undefined ? undefined : examplesSection(block)];
}

/** A description's `{{% examples %}}` block as Markdown: the registry's shortcodes left out. */
function examplesSection(block: string): string {
  return `${block
    .replace(/^\{\{% \/?examples? %\}\}\n?/gm, "")
    .replace(/^## Example Usage\n/m, "## Examples\n\n")
    .replace(/^```\n```/gm, "```\n\n```")
    .trim()}\n`;
}

function escapeText(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

if (require.main === module) {
  const root = repositoryRoot();
  const dir = path.join(root, "docs", "reference");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(referencePages(root))) fs.writeFileSync(path.join(dir, file), text);
  process.stdout.write(`wrote ${path.relative(process.cwd(), dir) || dir}\n`);
}
