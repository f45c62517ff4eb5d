/**
 * Generates `schema.json`, the Pulumi package schema of every resource, component, function and type, from the
 * zod schemas (the single source of truth): structure, descriptions (`.meta({description})`) and the
 * properties' secrets through `z.toJSONSchema`; each input's `willReplaceOnChanges` from its `change`.
 * `npm run schema` rewrites the file; a test fails when the committed file drifts. Each resource's and
 * function's description ends with its examples, the programs of examples/reference
 * (scripts/reference-examples.ts).
 *
 * Mapping (JSON Schema → Pulumi schema):
 * - a registered zod schema → an object type `gemini-environments:index:<Name>`, `$ref`s between them;
 * - `z.enum` of a registered name → an enum type, each value with a PascalCase `name` and the
 *   description its meta `valueDescriptions` gives (every closed set is registered: an enum written
 *   inline fails generation); a `const` → a string property with `const`;
 * - records → `{type: "object", additionalProperties}`; unions → `oneOf` (with a `discriminator` when
 *   every branch is an object type with a constant `type`);
 * - `HooksConfig` is a map, which a Pulumi type cannot be: it is written inline where used
 *   (`{additionalProperties: HooksGroup}`); so is `Network`, the union of EgressPolicy and the API's forms;
 * - a `bindableOr` union (provider/contracts/resource-schema.ts) → its first branch, the form every language binds
 *   (`network`, `transform`, `injectionLocation` as lists or objects), though the provider takes the others too.
 * - a function (provider/functions/catalog.ts) → `functions`, its arguments and result as `inputs` and `outputs`.
 * Property names are camelCase, as Pulumi's are: the resources' own are the TypeScript SDK's
 * (`fromEnvironment`, `fileCount`), a nested type's wire fields are renamed (`tool_call` → `toolCall`,
 * provider/contracts/resource-schema.ts `schemaName`), and the provider renames them back (`withWireNames`).
 *
 * The package's identity comes from package.json: the version, and the repository, which gives the
 * Go module path, the plugin's download URL and the registry's links (`packageIdentity`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import * as hooks from "../hooks/schema";
import { CredentialInputs, CredentialOutputs, CredentialStatus } from "../provider/credential/inputs";
import { HooksTestCase } from "../hooks/cases";
import { AllowlistEntryInput, EnvironmentInputs, EnvironmentOutputs, EnvironmentStatus, NetworkDeclared, NetworkInput, UpdateStrategy } from "../provider/environment/inputs";
import { GuardedEnvironmentInputs, GuardedEnvironmentOutputs, HookBundleInput, LintCode, ProbeMode } from "../provider/components/guarded-environment-inputs";
import { CommandHandlerInput, HookHandlerInput, HooksConfigInput, HooksGroupInput, HttpHandlerInput, RuleInput } from "../provider/components/hooks-config-inputs";
import { ProviderConfigInputs } from "../provider/contracts/configuration-schema";
import { BINDABLE, propertiesOf, schemaName, type PropertyMeta } from "../provider/contracts/resource-schema";
import { allFunctions, functionToken, type FunctionName } from "../provider/functions/catalog";
import { EnvironmentInfo } from "../provider/functions/environments";
import { CredentialInfo } from "../provider/functions/credentials";
import * as sdk from "../client/schemas";
import { referenceExamples, withExamples } from "./reference-examples";

export const PACKAGE = "gemini-environments";
const token = (name: string) => `${PACKAGE}:index:${name}`;

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Named types: zod schema → Pulumi type name, and which source file documents it
// ---------------------------------------------------------------------------------------------

export const NAMED: Array<[z.ZodType, string]> = [
  [sdk.SourceType, "SourceType"],
  [sdk.EnvironmentMode, "EnvironmentMode"],
  [UpdateStrategy, "UpdateStrategy"],
  [EnvironmentStatus, "EnvironmentStatus"],
  [sdk.CredentialType, "CredentialType"],
  [sdk.InjectionLocation, "InjectionLocation"],
  [CredentialStatus, "CredentialStatus"],
  [hooks.HookEventName, "HookEvent"],
  [hooks.Decision, "HookDecision"],
  [LintCode, "LintCode"],
  [ProbeMode, "ProbeMode"],
  [hooks.OnFailure, "OnFailure"],
  [sdk.Source, "Source"],
  [AllowlistEntryInput, "AllowlistEntry"],
  [NetworkInput, "EgressPolicy"],
  [NetworkDeclared, "Network"], // written as EgressPolicy
  [HooksConfigInput, "HooksConfig"], // inlined
  [HooksGroupInput, "HooksGroup"],
  [RuleInput, "HooksRule"],
  [HookHandlerInput, "HookHandler"],
  [CommandHandlerInput, "CommandHandler"],
  [HttpHandlerInput, "HttpHandler"],
  [HooksTestCase, "HooksTestCase"],
  [HookBundleInput, "HookBundle"],
  [EnvironmentInfo, "EnvironmentInfo"],
  [CredentialInfo, "CredentialInfo"],
];
const INLINED = new Set(["Network", "HooksConfig"]);

/** The resources and components: inputs, and outputs (which may restate inputs). */
export const RESOURCES: Array<[string, z.ZodObject, z.ZodObject, { isComponent?: true }?]> = [
  ["Credential", CredentialInputs, CredentialOutputs],
  ["Environment", EnvironmentInputs, EnvironmentOutputs],
  ["GuardedEnvironment", GuardedEnvironmentInputs, GuardedEnvironmentOutputs, { isComponent: true }],
];

// ---------------------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------------------

/** The schema as a plain object; `root` is the repository (for package.json's version). */
export function generateSchema(root: string = repositoryRoot()): Json {
  const registry = z.registry<{ id: string }>();
  for (const [schema, name] of NAMED) registry.add(schema, { id: name });
  for (const [name, inputs, outputs] of RESOURCES) {
    registry.add(inputs, { id: `$${name}Inputs` });
    registry.add(outputs, { id: `$${name}Outputs` });
  }
  const functions = allFunctions();
  for (const { name, args, result } of functions) {
    if (!registry.has(args)) registry.add(args, { id: `$${name}Args` });
    if (!registry.has(result)) registry.add(result, { id: `$${name}Result` });
  }
  registry.add(ProviderConfigInputs, { id: "$ProviderConfig" });
  const json = z.toJSONSchema(registry, { io: "input", uri: (id) => `#/$/${id}`, unrepresentable: "any" }).schemas as Record<string, Json>;
  const convert = new Converter(json);

  const types: Record<string, Json> = {};
  for (const [, name] of NAMED) if (!INLINED.has(name)) types[token(name)] = convert.type(name);

  const examples = referenceExamples(root);
  const resources: Record<string, Json> = {};
  for (const [name, inputs, , options] of RESOURCES) {
    resources[token(name)] = {
      ...options,
      description: withImport(withExamples(json[`$${name}Inputs`]?.description as string, name, examples), name, options),
      ...resource(convert, `$${name}Inputs`, `$${name}Outputs`, propertiesOf(inputs)),
    };
  }

  const functionSpecs: Record<string, Json> = {};
  for (const { name, description, args, result } of functions) {
    const inputs = convert.type(registry.get(args)!.id);
    const outputs = convert.type(registry.get(result)!.id);
    functionSpecs[functionToken(name as FunctionName)] = {
      description: withExamples(description, name, examples),
      ...(Object.keys(inputs.properties as Json).length > 0 && { inputs: { properties: inputs.properties, ...(inputs.required !== undefined && { required: inputs.required }) } }),
      outputs: { properties: outputs.properties, ...(outputs.required !== undefined && { required: outputs.required }) },
    };
  }

  const providerConfig = convert.type("$ProviderConfig");
  const configVariables = providerConfig.properties;
  const identity = packageIdentity(root);
  return {
    name: PACKAGE,
    version: identity.version,
    displayName: "Gemini Environments",
    description: "Gemini Environments (agent sandboxes) as code, with hooks and network egress policies as validated, reviewable resources.",
    keywords: ["pulumi", "gemini", "agents", "sandbox", "kind/native", "category/utility"],
    homepage: identity.repository,
    repository: identity.repository,
    publisher: identity.publisher,
    logoUrl: identity.logoUrl,
    license: "Apache-2.0",
    pluginDownloadURL: identity.pluginDownloadURL,
    // supportPack: the Go generator writes the SDK's go.mod (a module rooted at sdk/go), and every SDK
    // takes its version from here.
    meta: { moduleFormat: "(.*)", supportPack: true },
    config: { variables: configVariables },
    provider: { description: providerConfig.description, inputProperties: configVariables },
    types,
    resources,
    functions: functionSpecs,
    language: {
      python: {
        packageName: PYTHON_PACKAGE,
        respectSchemaVersion: true,
        pyproject: { enabled: true },
        requires: { pulumi: ">=3.248.0,<4.0.0" },
        // The package's README (the generator writes it; scripts/generate-sdks makes it the wheel's readme
        // too): the registry overview, which docs/_index.md opens with.
        readme: registryOverview(root),
      },
      go: {
        importBasePath: `${identity.goModule}/${GO_PACKAGE}`,
        modulePath: identity.goModule,
        rootPackageName: GO_PACKAGE,
        respectSchemaVersion: true,
        // EnvironmentArray, EnvironmentMap and the rest, as pulumi-command's and pulumi-random's SDKs have.
        generateResourceContainerTypes: true,
      },
      // Only the SDKs that are built and released (scripts/generate-sdks, and this npm package): a section
      // for another language would make the registry show usage of a package no one can install.
      // C# and Java users generate one locally (docs/provider.md: Other languages).
      // TypeScript users use this npm package itself (no Node SDK is generated): the registry names it.
      nodejs: { packageName: identity.name, dependencies: { "@pulumi/pulumi": "^3.100.0" } },
    },
  };
}

/**
 * Each resource's Import section: what its id is, an example id, and the resource declared with the
 * `import` option in each language (a fenced block per language: each SDK's generator keeps its own).
 */
const IMPORTS: Record<string, { what: string; id: string; programs: Record<"typescript" | "python" | "go" | "yaml", string> }> = {
  Environment: {
    what: "An environment made outside this stack is imported by its id (`env_…`); its inputs, as the API echoes them, go into the state",
    id: "env_0123456789",
    programs: {
      typescript: 'const environment = new plugin.Environment("environment", {\n    network: { allowlist: [{ domain: "api.github.com" }] },\n}, { import: "env_0123456789" });',
      python: 'environment = genv.Environment(\n    "environment",\n    network=genv.EgressPolicyArgs(allowlist=[genv.AllowlistEntryArgs(domain="api.github.com")]),\n    opts=pulumi.ResourceOptions(import_="env_0123456789"),\n)',
      go: 'environment, err := genv.NewEnvironment(ctx, "environment", &genv.EnvironmentArgs{\n\tNetwork: genv.EgressPolicyArgs{\n\t\tAllowlist: genv.AllowlistEntryArray{genv.AllowlistEntryArgs{Domain: pulumi.String("api.github.com")}},\n\t},\n}, pulumi.Import(pulumi.ID("env_0123456789")))',
      yaml: "resources:\n  environment:\n    type: gemini-environments:index:Environment\n    properties:\n      network:\n        allowlist:\n          - domain: api.github.com\n    options:\n      import: env_0123456789",
    },
  },
  Credential: {
    what: "A credential is imported by its id, its `credentialId`, with its `type`; the API never returns the secret, so the first `up` after declaring the token updates it",
    id: "github-token",
    programs: {
      typescript: 'const credential = new plugin.Credential("credential", {\n    credentialId: "github-token",\n    type: "bearer_token",\n    token: config.requireSecret("githubToken"),\n}, { import: "github-token" });',
      python: 'credential = genv.Credential(\n    "credential",\n    credential_id="github-token",\n    type=genv.CredentialType.BEARER_TOKEN,\n    token=config.require_secret("githubToken"),\n    opts=pulumi.ResourceOptions(import_="github-token"),\n)',
      go: 'credential, err := genv.NewCredential(ctx, "credential", &genv.CredentialArgs{\n\tCredentialId: pulumi.String("github-token"),\n\tType:         genv.CredentialTypeBearerToken,\n\tToken:        cfg.RequireSecret("githubToken"),\n}, pulumi.Import(pulumi.ID("github-token")))',
      yaml: "resources:\n  credential:\n    type: gemini-environments:index:Credential\n    properties:\n      credentialId: github-token\n      type: bearer_token\n      token: ${githubToken}\n    options:\n      import: github-token",
    },
  },
};

/**
 * `description` with an Import section at its end, as the registry's resource pages end: the
 * `pulumi import` command, then the `import` resource option. In TypeScript through `plugin.*`: the
 * dynamic classes cannot be imported (pulumi/pulumi#16175). A component is not importable: none.
 */
export function withImport(description: string, name: string, options?: { isComponent?: true }): string {
  if (options?.isComponent) return description;
  const spec = IMPORTS[name];
  if (!spec) throw new Error(`generate-schema: the resource ${name} has no Import section (IMPORTS)`);
  const variable = name.charAt(0).toLowerCase() + name.slice(1);
  const fence = (language: string, source: string) => `\`\`\`${language}\n${source}\n\`\`\``;
  return [
    description,
    "## Import",
    `${spec.what}:`,
    fence("sh", `$ pulumi import ${token(name)} ${variable} ${spec.id}`),
    `Or in a program, with the \`import\` resource option on a resource that declares the same inputs (in TypeScript, \`plugin.${name}\`: the dynamic \`${name}\` cannot be imported):`,
    ...Object.entries(spec.programs).map(([language, source]) => fence(language, source)),
  ].join("\n\n");
}

export const PYTHON_PACKAGE = "pulumi_gemini_environments";
export const GO_PACKAGE = "geminienvironments";

/** docs/registry/overview.md: what the package is, for the registry's page and PyPI's. */
export function registryOverview(root: string = repositoryRoot()): string {
  return fs.readFileSync(path.join(root, "docs", "registry", "overview.md"), "utf8");
}

/** What package.json says of the package, in the forms the schema needs. */
export function packageIdentity(root: string = repositoryRoot()) {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { name: string; version: string; repository?: string | { url: string } };
  const url = typeof manifest.repository === "string" ? manifest.repository : manifest.repository?.url;
  const match = url === undefined ? null : /github\.com[/:]([^/]+)\/([^/.]+)/.exec(url);
  if (!match) throw new Error('generate-schema: package.json needs a GitHub "repository" (its owner and name give the Go module path and the plugin download URL)');
  const [, owner, name] = match;
  const repository = `https://github.com/${owner}/${name}`;
  return {
    name: manifest.name,
    version: manifest.version,
    repository,
    publisher: owner,
    goModule: `github.com/${owner}/${name}/sdk/go`,
    pluginDownloadURL: `github://api.github.com/${owner}/${name}`,
    logoUrl: `https://raw.githubusercontent.com/${owner}/${name}/main/docs/logo.svg`,
  };
}

/** The text of schema.json: 2-space JSON and a trailing newline. */
export function schemaText(root?: string): string {
  return `${JSON.stringify(generateSchema(root), null, 2)}\n`;
}

/**
 * A resource's properties, with what the inputs' meta says: `willReplaceOnChanges` where a change
 * replaces (as inputs and as outputs), and `default` where an omitted input means a value (`absent`).
 */
function resource(convert: Converter, inputs: string, outputs: string, inputMetas: Array<[string, PropertyMeta, z.ZodType]>): Json {
  const inputType = convert.type(inputs);
  const outputType = convert.type(outputs);
  for (const [property, meta] of inputMetas) {
    const spec = (inputType.properties as Record<string, Json>)[property]!;
    if (meta.change === "replace") spec.willReplaceOnChanges = true;
    if (meta.absent !== undefined) spec.default = meta.absent;
  }
  return {
    properties: { ...(outputType.properties as Json), ...(inputType.properties as Json) },
    required: outputType.required ?? [],
    inputProperties: inputType.properties,
    requiredInputs: inputType.required ?? [],
  };
}

class Converter {
  constructor(private readonly schemas: Record<string, Json>) {}

  /** An object or enum type spec for the registered schema `id`, with its description. */
  type(id: string): Json {
    const schema = this.schemas[id] as Json;
    const description = schema.description as string | undefined;
    if (Array.isArray(schema.enum)) return { type: "string", ...(description && { description }), enum: enumValues(id, schema) };
    const properties: Json = {};
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) properties[schemaName(name)] = this.property(property);
    const required = ((schema.required as string[] | undefined) ?? []).map(schemaName);
    return { type: "object", ...(description && { description }), properties, ...(required.length > 0 && { required }) };
  }

  /** A property spec: its description, a type spec, `const`, `default` and `secret`. */
  private property(schema: Json): Json {
    const spec: Json = { ...(typeof schema.description === "string" && { description: schema.description }), ...this.typeSpec(schema) };
    if (schema.const !== undefined) spec.const = schema.const;
    if (schema.default !== undefined) spec.default = schema.default;
    if (Array.isArray(schema.environment)) spec.defaultInfo = { environment: schema.environment };
    if (schema.secret === true) spec.secret = true;
    return spec;
  }

  private typeSpec(schema: Json): Json {
    if (typeof schema.$ref === "string") return this.ref(schema.$ref.replace("#/$/", ""));
    if (Array.isArray(schema.enum) && schema.enum.length > 1) {
      throw new Error(`generate-schema: the closed set ${JSON.stringify(schema.enum)} is written inline: give it a name in NAMED, so that it is an enum in every language`);
    }
    const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
    if (union && schema[BINDABLE] === true) return this.typeSpec(union[0] as Json);
    if (union) return this.union(union);
    switch (schema.type) {
      case "string":
        return { type: "string" };
      case "integer":
        return { type: "integer" };
      case "number":
        return { type: "number" };
      case "boolean":
        return { type: "boolean" };
      case "array":
        return { type: "array", items: this.typeSpec(schema.items as Json) };
      case "object":
        return { type: "object", additionalProperties: this.typeSpec((schema.additionalProperties as Json | undefined) ?? {}) };
      default:
        return { $ref: "pulumi.json#/Any" };
    }
  }

  private ref(id: string): Json {
    if (id === "Network") return this.typeSpec(this.schemas.Network as Json);
    if (id === "HooksConfig") return this.typeSpec(this.schemas.HooksConfig as Json);
    return { $ref: `#/types/${token(id)}` };
  }

  private union(branches: Json[]): Json {
    const oneOf = branches.map((branch) => this.typeSpec(branch));
    const mapping: Record<string, string> = {};
    for (const branch of branches) {
      const id = typeof branch.$ref === "string" ? branch.$ref.replace("#/$/", "") : undefined;
      const constant = id ? ((this.schemas[id]?.properties as Record<string, Json> | undefined)?.type?.const as string | undefined) : undefined;
      if (id === undefined || constant === undefined) return { oneOf };
      mapping[constant] = `#/types/${token(id)}`;
    }
    return { oneOf, discriminator: { propertyName: "type", mapping } };
  }
}

/** An enum's values: each with a PascalCase name (`on_demand` → `OnDemand`) and its description (meta `valueDescriptions`). */
function enumValues(id: string, schema: Json): Json[] {
  const descriptions = (schema.valueDescriptions ?? {}) as Record<string, string>;
  const values = schema.enum as string[];
  const undescribed = values.filter((value) => typeof descriptions[value] !== "string");
  const unknown = Object.keys(descriptions).filter((value) => !values.includes(value));
  if (undescribed.length > 0 || unknown.length > 0) {
    throw new Error(`generate-schema: ${id}'s meta valueDescriptions must describe exactly its values (undescribed: ${undescribed.join(", ") || "none"}; not values: ${unknown.join(", ") || "none"})`);
  }
  return values.map((value) => ({ name: enumName(value), value, description: descriptions[value] }));
}

/** An enum value's name in every language: PascalCase of its words (`bearer_token`, `insecure-url` → `BearerToken`, `InsecureUrl`). */
export function enumName(value: string): string {
  return value
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("");
}

export function repositoryRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json")) && fs.existsSync(path.join(dir, "schema.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error("generate-schema: cannot find the package root (package.json next to schema.json)");
  }
}

if (require.main === module) {
  const out = path.join(repositoryRoot(), "schema.json");
  fs.writeFileSync(out, schemaText());
  process.stdout.write(`wrote ${path.relative(process.cwd(), out) || out}\n`);
}
