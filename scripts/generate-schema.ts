/**
 * Generates `schema.json`, the Pulumi package schema of every resource, component and type, from the
 * zod schemas (the single source of truth): structure through `z.toJSONSchema`, descriptions from the
 * schemas' doc comments. `npm run schema` rewrites the file; a test fails when the committed file drifts.
 *
 * Mapping (JSON Schema → Pulumi schema):
 * - a registered zod schema → an object type `gemini-environments:index:<Name>`, `$ref`s between them;
 * - `z.enum` of a registered name → an enum type; a `const` → a string property with `const`;
 * - records → `{type: "object", additionalProperties}`; unions → `oneOf` (with a `discriminator` when
 *   every branch is an object type with a constant `type`);
 * - `HooksConfig` and `Network` are unions/maps, which Pulumi types cannot be: they are written inline
 *   where used (`{additionalProperties: HooksGroup}`, `oneOf: ["disabled", NetworkAllowlist]`).
 * Property names are the wire's (snake_case in hooks.json) except the resources' own, which are the
 * TypeScript SDK's camelCase (`fromEnvironment`, `fileCount`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { LINT_CODES } from "../hooks/lint";
import * as hooks from "../hooks/schema";
import * as sdk from "../sdk/schemas";

export const PACKAGE = "gemini-environments";
const token = (name: string) => `${PACKAGE}:index:${name}`;

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Named types: zod schema → Pulumi type name, and which source file documents it
// ---------------------------------------------------------------------------------------------

const NAMED: Array<[z.ZodType, string, string]> = [
  [sdk.SourceType, "SourceType", "sdk/schemas.ts"],
  [sdk.Source, "Source", "sdk/schemas.ts"],
  [sdk.AllowlistEntry, "AllowlistEntry", "sdk/schemas.ts"],
  [sdk.NetworkAllowlist, "NetworkAllowlist", "sdk/schemas.ts"],
  [sdk.Network, "Network", "sdk/schemas.ts"], // inlined
  [hooks.HooksConfig, "HooksConfig", "hooks/schema.ts"], // inlined
  [hooks.HooksGroup, "HooksGroup", "hooks/schema.ts"],
  [hooks.Rule, "HooksRule", "hooks/schema.ts"],
  [hooks.CommandHandler, "CommandHandler", "hooks/schema.ts"],
  [hooks.HttpHandler, "HttpHandler", "hooks/schema.ts"],
];
const INLINED = new Set(["Network", "HooksConfig"]);
const ZOD_NAME: Record<string, string> = { HooksRule: "Rule" };

/** The resources' inputs and outputs that are not wire shapes (names from provider/environment.ts). */
const EnvironmentInputs = z.object({
  /** What to put into the environment. Any change replaces the environment. */
  sources: z.array(sdk.Source).optional(),
  /** Egress policy: omitted (all egress allowed), `"disabled"`, or `{allowlist: [...]}`. Any change replaces the environment. */
  network: sdk.Network.optional(),
  /** Start from a copy of another environment's current files (`env_…` or `environments/env_…`). */
  fromEnvironment: z.string().optional(),
  /** Bring an existing environment under management instead of creating one (its id); it must hold the declared sources and network. */
  adopt: z.string().optional(),
});
const EnvironmentOutputs = z.object({
  /** `active`, or `expired` once idle too long (the next `up` after a refresh replaces it). */
  status: z.string(),
  /** Creation time, ISO 8601. */
  created: z.string(),
  /** Last update time, ISO 8601. */
  updated: z.string(),
  /** Last access time, ISO 8601. */
  lastAccessed: z.string(),
  /** Number of files in the environment. */
  fileCount: z.number().int(),
  /** Total size of the environment's files, in bytes. */
  sizeBytes: z.number().int(),
});
const HookBundle = z.object({
  /** The `.agents/hooks.json` content: named groups, in the order they run. */
  config: hooks.HooksConfig,
  /** Scripts by name, each shipped at `.agents/hooks-scripts/<name>` (their text). Every script a command runs must be here. */
  scripts: z.record(z.string(), z.string()).optional(),
  /** Absolute sandbox paths of scripts that other sources ship, which commands may run without the bundle holding them. */
  providedScripts: z.array(z.string()).optional(),
});
const GuardedEnvironmentInputs = z.object({
  /** The hooks config and scripts, shipped as `.agents/hooks.json` and `.agents/hooks-scripts/*`. */
  hooks: HookBundle,
  /** The egress policy (omitted: all egress allowed; the TypeScript component asks for it explicitly); HTTP hooks need their hosts allowed. */
  network: sdk.Network.optional(),
  /** More sources after the bundle's, e.g. the workspace the agent works on. */
  sources: z.array(sdk.Source).optional(),
  /** Linter warning codes reviewed and accepted, not reported again (errors cannot be acknowledged). */
  acknowledgedWarnings: z.array(z.enum(LINT_CODES)).optional(),
});
const GuardedEnvironmentOutputs = z.object({
  /** The Environment's id, e.g. `env_abc123`. */
  environmentId: z.string(),
  /** `active` or `expired`. */
  status: z.string(),
  /** Number of files in the environment. */
  fileCount: z.number().int(),
  /** Total size of the environment's files, in bytes. */
  sizeBytes: z.number().int(),
});
const CredentialInputs = z.object({
  /** The id allowlist entries reference (`network.allowlist[].credential`), 1–128 of `[A-Za-z0-9._-]`, e.g. `gh-token`. Default: the resource name with a suffix fixed by project, stack and name. A change replaces the credential. */
  credentialId: z.string().optional(),
  /** `bearer_token`, `environment_variable` or `oauth2`. A change replaces the credential. */
  type: z.enum(sdk.CREDENTIAL_TYPES),
  /** bearer_token: the token (secret, write-only). A change updates the credential in place. */
  token: z.string().optional(),
  /** bearer_token: the header to set; default `Authorization`. */
  headerName: z.string().optional(),
  /** bearer_token: put before the token with a space; default `Bearer`, `""` for none. */
  prefix: z.string().optional(),
  /** environment_variable: the value (secret, write-only). */
  value: z.string().optional(),
  /** environment_variable: `header`, `query`, `body`, or a list of them. */
  injectionLocation: z.union([z.string(), z.array(z.string())]).optional(),
  /** environment_variable: domains allowed to receive the value, e.g. `["api.example.com"]`. */
  trustedDomains: z.array(z.string()).optional(),
  /** oauth2: the client id. */
  clientId: z.string().optional(),
  /** oauth2: the client secret (secret, write-only). */
  clientSecret: z.string().optional(),
  /** oauth2: the refresh token (secret, write-only). */
  refreshToken: z.string().optional(),
  /** oauth2: the token endpoint, e.g. `https://oauth2.example.com/token`. */
  tokenUrl: z.string().optional(),
  /** oauth2: scopes to request. */
  scopes: z.array(z.string()).optional(),
});
const CredentialOutputs = z.object({
  /** The credential's id (also the resource's id). */
  credentialId: z.string(),
  /** `active` or `revoked`. */
  status: z.string(),
  /** Creation time, ISO 8601. */
  createTime: z.string(),
  /** Last update time, ISO 8601. */
  updateTime: z.string(),
});
/** Write-only credential properties, secret in state (provider/credential-inputs.ts SECRET_PROPERTIES). */
const CREDENTIAL_SECRETS = ["token", "value", "clientSecret", "refreshToken"];
const LOCAL_DOCS = "scripts/generate-schema.ts";

/** Descriptions for what the zod schemas leave undocumented. */
const MORE_DOCS: Record<string, DocEntry> = {
  SourceType: { doc: "Kind of source: `inline` content, a `repository`, a Cloud Storage bucket (`gcs`) or a `skill_registry` skill.", properties: {} },
  AllowlistEntry: { doc: "A domain the sandbox may reach, and the headers or credential the egress proxy injects on requests to it.", properties: {} },
  NetworkAllowlist: {
    doc: 'Egress limited to listed domains; `"disabled"` (as the network itself) turns all network access off.',
    properties: { allowlist: 'Allowed domains, in order (their transforms apply in that order), or `"disabled"`.' },
  },
  HooksGroup: {
    properties: {
      pre_tool_execution: "Rules run just before a tool runs; a handler may deny the call.",
      post_tool_execution: "Rules run just after a tool finishes; they cannot block or undo it.",
    },
  },
  CommandHandler: { properties: { type: "`command`." } },
  HttpHandler: { properties: { type: "`http`." } },
};

// ---------------------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------------------

/** The schema as a plain object; `root` is the repository (for the doc comments). */
export function generateSchema(root: string = repositoryRoot()): Json {
  const docs = new Docs(root);
  const registry = z.registry<{ id: string }>();
  for (const [schema, name] of NAMED) registry.add(schema, { id: name });
  for (const [schema, name] of [
    [EnvironmentInputs, "$EnvironmentInputs"],
    [EnvironmentOutputs, "$EnvironmentOutputs"],
    [HookBundle, "HookBundle"],
    [GuardedEnvironmentInputs, "$GuardedEnvironmentInputs"],
    [GuardedEnvironmentOutputs, "$GuardedEnvironmentOutputs"],
    [CredentialInputs, "$CredentialInputs"],
    [CredentialOutputs, "$CredentialOutputs"],
  ] as const) {
    registry.add(schema, { id: name });
  }
  const json = z.toJSONSchema(registry, { io: "input", uri: (id) => `#/$/${id}`, unrepresentable: "any" }).schemas as Record<string, Json>;
  const convert = new Converter(json);

  const types: Record<string, Json> = {};
  for (const [, name, file] of NAMED) {
    if (INLINED.has(name)) continue;
    types[token(name)] = convert.type(name, withMore(docs.of(file, ZOD_NAME[name] ?? name), MORE_DOCS[name]));
  }
  types[token("HookBundle")] = convert.type("HookBundle", docs.of(LOCAL_DOCS, "HookBundle", "A hooks config and the scripts it runs, shipped as inline sources."));

  const environment = resource(convert, docs, "$EnvironmentInputs", "$EnvironmentOutputs", "EnvironmentInputs", "EnvironmentOutputs");
  const guarded = resource(convert, docs, "$GuardedEnvironmentInputs", "$GuardedEnvironmentOutputs", "GuardedEnvironmentInputs", "GuardedEnvironmentOutputs");
  const credential = resource(convert, docs, "$CredentialInputs", "$CredentialOutputs", "CredentialInputs", "CredentialOutputs");
  for (const name of CREDENTIAL_SECRETS) {
    for (const properties of [credential.properties, credential.inputProperties] as Json[]) properties[name] = { ...(properties[name] as Json), secret: true };
  }
  const configVariables = {
    apiKey: { type: "string", secret: true, description: "API key (x-goog-api-key). Default: the GOOGLE_API_KEY or GEMINI_API_KEY environment variable." },
    baseUrl: { type: "string", description: "Base URL of the Environments API, e.g. http://127.0.0.1:8765 for `genv serve`. Default: GOOGLE_GEMINI_BASE_URL, else the hosted service." },
  };
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  return {
    name: PACKAGE,
    version,
    displayName: "Gemini Environments",
    description: "Gemini Environments (agent sandboxes) as code, with hooks and network egress policies as validated, reviewable resources.",
    keywords: ["pulumi", "gemini", "agents", "sandbox", "kind/native"],
    license: "Apache-2.0",
    meta: { moduleFormat: "(.*)" },
    config: { variables: configVariables },
    provider: {
      description: "The provider: its API key and base URL. What it leaves out comes from the stack's `gemini-environments:` config, then the environment.",
      inputProperties: configVariables,
    },
    types,
    resources: {
      [token("Credential")]: {
        description:
          "A server-managed secret that the egress proxy injects, referenced by id from an allowlist entry. A change of credentialId or type replaces it; any other change, a rotated secret included, updates it in place.",
        ...credential,
      },
      [token("Environment")]: {
        description: "A Gemini Environment: an isolated sandbox in which agent code, tools and hooks run. The API has no update: any change to sources, network or fromEnvironment replaces it.",
        ...environment,
      },
      [token("GuardedEnvironment")]: {
        isComponent: true,
        description: "An Environment whose hooks (`.agents/hooks.json` and its scripts) and egress policy are declared together; the hooks linter stops the preview on errors.",
        ...guarded,
      },
    },
    language: { nodejs: { packageName: "pulumi-gemini-environments", dependencies: { "@pulumi/pulumi": "^3.100.0" } } },
  };
}

/** The text of schema.json: 2-space JSON and a trailing newline. */
export function schemaText(root?: string): string {
  return `${JSON.stringify(generateSchema(root), null, 2)}\n`;
}

function resource(convert: Converter, docs: Docs, inputs: string, outputs: string, inputDocs: string, outputDocs: string): Json {
  const inputType = convert.type(inputs, docs.of(LOCAL_DOCS, inputDocs));
  const outputType = convert.type(outputs, docs.of(LOCAL_DOCS, outputDocs));
  return {
    properties: { ...(outputType.properties as Json), ...(inputType.properties as Json) },
    required: outputType.required ?? [],
    inputProperties: inputType.properties,
    requiredInputs: inputType.required ?? [],
  };
}

class Converter {
  constructor(private readonly schemas: Record<string, Json>) {}

  /** An object or enum type spec for the registered schema `id`. */
  type(id: string, docs: DocEntry): Json {
    const schema = this.schemas[id] as Json;
    if (Array.isArray(schema.enum)) {
      return { type: "string", ...(docs.doc && { description: docs.doc }), enum: (schema.enum as string[]).map((value) => ({ value })) };
    }
    const properties: Json = {};
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      const spec = this.property(property);
      const description = docs.properties[name];
      properties[name] = description ? { description, ...spec } : spec;
    }
    const required = (schema.required as string[] | undefined) ?? [];
    return { type: "object", ...(docs.doc && { description: docs.doc }), properties, ...(required.length > 0 && { required }) };
  }

  /** A property spec: a type spec plus `const` and `default`. */
  private property(schema: Json): Json {
    const spec = this.typeSpec(schema);
    if (schema.const !== undefined) spec.const = schema.const;
    if (schema.default !== undefined) spec.default = schema.default;
    return spec;
  }

  private typeSpec(schema: Json): Json {
    if (typeof schema.$ref === "string") return this.ref(schema.$ref.replace("#/$/", ""));
    const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
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

// ---------------------------------------------------------------------------------------------
// Doc comments of the zod schemas
// ---------------------------------------------------------------------------------------------

interface DocEntry {
  doc?: string | undefined;
  properties: Record<string, string>;
}

/**
 * Doc comments from source text: the one above `export const Name =` / `const Name =`, and the ones above
 * each `field:` inside it (until the next top-level const).
 */
class Docs {
  private readonly cache = new Map<string, Map<string, DocEntry>>();
  constructor(private readonly root: string) {}

  of(file: string, name: string, fallback?: string): DocEntry {
    const entry = this.file(file).get(name) ?? { properties: {} };
    return { ...entry, doc: entry.doc ?? fallback };
  }

  private file(file: string): Map<string, DocEntry> {
    let entries = this.cache.get(file);
    if (entries) return entries;
    entries = new Map();
    const text = fs.readFileSync(path.join(this.root, file), "utf8");
    const starts = [...text.matchAll(/^(?:export )?const (\w+)\b/gm)];
    starts.forEach((match, i) => {
      const end = starts[i + 1]?.index ?? text.length;
      const body = text.slice(match.index, end);
      const before = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*$/.exec(text.slice(0, match.index));
      const properties: Record<string, string> = {};
      for (const property of body.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*\n\s*(\w+)\??\s*:/g)) properties[property[2] as string] = clean(property[1] as string);
      (entries as Map<string, DocEntry>).set(match[1] as string, { doc: before ? clean(before[1] as string) : undefined, properties });
    });
    this.cache.set(file, entries);
    return entries;
  }
}

function withMore(entry: DocEntry, more: DocEntry | undefined): DocEntry {
  return more ? { doc: entry.doc ?? more.doc, properties: { ...more.properties, ...entry.properties } } : entry;
}

function clean(comment: string): string {
  return comment
    .split("\n")
    .map((line) => line.replace(/^\s*\*\s?/, "").trim())
    .join("\n")
    .trim()
    .replace(/([^\n])\n(?!\n|[-*] |```)/g, "$1 ");
}

function repositoryRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json")) && fs.existsSync(path.join(dir, "sdk", "schemas.ts"))) return dir;
    if (path.dirname(dir) === dir) throw new Error("generate-schema: cannot find the repository root (package.json next to sdk/schemas.ts)");
  }
}

if (require.main === module) {
  const out = path.join(repositoryRoot(), "schema.json");
  fs.writeFileSync(out, schemaText());
  process.stdout.write(`wrote ${path.relative(process.cwd(), out) || out}\n`);
}
