/**
 * The Terraform schema of the provider, derived from the same zod schemas as schema.json
 * (environment/inputs.ts, credential/inputs.ts, functions/, contracts/configuration-schema.ts): each
 * property an attribute in snake_case (`fromEnvironment` → `from_environment`), its description from
 * `.meta`, secret properties `sensitive`, objects and lists of objects nested attributes (not blocks:
 * `network = { disabled = true }`, `sources = [{ type = "inline", … }]`).
 *
 * `terraformSchema()` is what GetProviderSchema sends (provider.ts) and what docs/terraform/ is
 * generated from. Each attribute keeps its zod schema and core property name, so that values convert
 * between Terraform's form and the core's (`_values.ts`) by the same table.
 *
 * Where Terraform's types cannot say what zod says:
 * - a free-form JSON object (`custom_config`) is a string of JSON (`jsonencode({pool = "gpu"})`);
 * - a union that takes the API's other forms (`bindableOr`) is its first, bindable branch, as in
 *   schema.json (`network` the object, `injection_location` a list);
 * - a Credential's `credential_id` is required: Pulumi derives a default from the resource's URN, but
 *   Terraform gives a provider no resource address, so no default could be both stable and unique.
 */
import { z } from "zod";
import { ProviderConfigInputs } from "../contracts/configuration-schema";
import { BINDABLE, innerSchema, propertyMeta } from "../contracts/resource-schema";
import { EnvironmentComputed, EnvironmentInputs } from "../environment/inputs";
import { CredentialComputed, CredentialInputs } from "../credential/inputs";
import type { FunctionCore } from "../contracts/function-core";
import { getEnvironment, getEnvironments } from "../functions/environments";
import { getEnvironmentFile } from "../functions/environment-file";
import { getCredential, getCredentials } from "../functions/credentials";
import { HooksDataArgs, HooksDataResult } from "./hooks";

// ---------------------------------------------------------------------------------------------
// The shape of a schema
// ---------------------------------------------------------------------------------------------

/** A cty type as Terraform's schema writes it in JSON: `"string"`, `["list", "string"]`, `["map", "string"]`. */
export type CtyType = "string" | "number" | "bool" | "dynamic" | ["list", CtyType] | ["map", CtyType] | ["object", Record<string, CtyType>];

/** One attribute: a value of `type`, or nested attributes (`nested`). */
export interface TerraformAttribute {
  /** Terraform's name, snake_case: `from_environment`. */
  name: string;
  /** The core's property (camelCase, `fromEnvironment`), or a nested field's own name. */
  property: string;
  description: string;
  required: boolean;
  optional: boolean;
  computed: boolean;
  sensitive: boolean;
  /** The type of a value attribute; undefined for a nested one. */
  type?: CtyType;
  /** A nested attribute: one object (`single`) or a list of them (`list`). */
  nested?: { nesting: "single" | "list"; attributes: TerraformAttribute[] };
  /** A JSON object carried as a string (`custom_config`). */
  json?: boolean;
  /**
   * Write-only (protocol 6.8, Terraform and OpenTofu 1.11): sent in the configuration, kept in neither
   * plan nor state; `version` names the attribute whose change sends it again (`token_wo_version`).
   * Its `property` is the secret's own (`token`), so the core receives it as it receives `token`.
   */
  writeOnly?: { version: string; plain: string };
  /** The version of a write-only attribute (its name): Terraform's alone, never the core's. */
  versionOf?: string;
}

export interface TerraformBlock {
  /** The state's schema version: bumped when an attribute changes shape (UpgradeResourceState). */
  version: number;
  description: string;
  attributes: TerraformAttribute[];
}

export interface TerraformSchema {
  /** The provider's source address in the registry. */
  source: string;
  provider: TerraformBlock;
  resources: Record<string, TerraformBlock>;
  dataSources: Record<string, TerraformBlock>;
}

/** The provider's type name: every resource and data source is `geminienvironments_<name>`. */
export const PROVIDER_NAME = "geminienvironments";
export const SOURCE_ADDRESS = "gemini-environments/geminienvironments";

/**
 * State versions. Bump one when an attribute of the resource changes shape, and teach
 * UpgradeResourceState (upgrade.ts) to carry the old shape over.
 */
export const SCHEMA_VERSIONS = { environment: 0, credential: 0 } as const;

// ---------------------------------------------------------------------------------------------
// The schema
// ---------------------------------------------------------------------------------------------

let cached: TerraformSchema | undefined;

/** The provider's Terraform schema: its configuration, resources and data sources. */
export function terraformSchema(): TerraformSchema {
  cached ??= {
    source: SOURCE_ADDRESS,
    provider: {
      version: 0,
      description: "The Gemini Environments provider: its API key and base URL, each defaulting to an environment variable.",
      attributes: attributesOf(ProviderConfigInputs, { optional: true }),
    },
    resources: {
      [`${PROVIDER_NAME}_environment`]: {
        version: SCHEMA_VERSIONS.environment,
        description: terraformText(propertyMeta(EnvironmentInputs).description),
        attributes: [
          idAttribute("The environment's id, e.g. `env_abc123`."),
          ...attributesOf(EnvironmentInputs),
          ...attributesOf(EnvironmentComputed, { computed: true }),
        ],
      },
      [`${PROVIDER_NAME}_credential`]: {
        version: SCHEMA_VERSIONS.credential,
        description: terraformText(propertyMeta(CredentialInputs).description),
        attributes: [
          idAttribute("The credential's id, the same as `credential_id`."),
          ...attributesOf(CredentialInputs, { required: ["credentialId"] }).map((attribute) =>
            attribute.name === "credential_id"
              ? { ...attribute, description: CREDENTIAL_ID_DESCRIPTION }
              : attribute.sensitive
                ? { ...attribute, description: `${attribute.description} Kept in the state (sensitive): with ${WRITE_ONLY_ENGINES}, prefer \`${attribute.name}_wo\`.` }
                : attribute,
          ),
          ...writeOnlyAttributes(attributesOf(CredentialInputs).filter((attribute) => attribute.sensitive)),
          ...attributesOf(CredentialComputed, { computed: true }),
        ],
      },
    },
    dataSources: {
      [`${PROVIDER_NAME}_environment`]: functionBlock(getEnvironment),
      [`${PROVIDER_NAME}_environments`]: functionBlock(getEnvironments),
      [`${PROVIDER_NAME}_environment_file`]: functionBlock(getEnvironmentFile),
      [`${PROVIDER_NAME}_credential`]: functionBlock(getCredential),
      [`${PROVIDER_NAME}_credentials`]: functionBlock(getCredentials),
      [`${PROVIDER_NAME}_hooks`]: {
        version: 0,
        description: terraformText(propertyMeta(HooksDataArgs).description),
        attributes: [...attributesOf(HooksDataArgs), ...attributesOf(HooksDataResult, { computed: true })],
      },
    },
  };
  return cached;
}

/** Required here (the module's comment says why), so without Pulumi's default derived from the URN. */
const CREDENTIAL_ID_DESCRIPTION =
  "The id allowlist entries reference (`network.allowlist[].credential`), 1–128 of `[A-Za-z0-9._-]`, e.g. `gh-token`; unique per API key. A change replaces the credential.";

/** The function core a data source reads through, by the data source's type name. */
export const DATA_SOURCE_FUNCTIONS: Record<string, FunctionCore> = {
  [`${PROVIDER_NAME}_environment`]: getEnvironment as unknown as FunctionCore,
  [`${PROVIDER_NAME}_environments`]: getEnvironments as unknown as FunctionCore,
  [`${PROVIDER_NAME}_environment_file`]: getEnvironmentFile as unknown as FunctionCore,
  [`${PROVIDER_NAME}_credential`]: getCredential as unknown as FunctionCore,
  [`${PROVIDER_NAME}_credentials`]: getCredentials as unknown as FunctionCore,
};

/** `fromEnvironment` → `from_environment`. */
export function snakeCase(property: string): string {
  return property.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * A description in Terraform's words, from the Pulumi reference's: a property, in backticks or not
 * (`updateStrategy`, fromEnvironment), becomes its attribute (`update_strategy`, from_environment);
 * an object or a field in code is written as HCL writes it (`{allowlist: [...]}` → `{ allowlist =
 * [...] }`, `disabled: true` → `disabled = true`); and Pulumi's commands and stacks are Terraform's.
 */
export function terraformText(description: string): string {
  return description
    .replace(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g, (word) => (PROPERTY_NAMES.has(word) ? snakeCase(word) : word))
    .replace(/`([^`]*)`/g, (_code, code: string) => `\`${hclCode(code)}\``)
    .replace(/the next `up`/g, "the next `terraform apply`")
    .replace(/another stack/g, "another configuration");
}

/** `{key: value, …}` → `{ key = value, … }`, and `key: value` alone → `key = value`. */
function hclCode(code: string): string {
  const fields = (text: string) => text.replace(/(^|, )([A-Za-z_][\w-]*): /g, "$1$2 = ");
  if (/^[A-Za-z_][\w-]*: /.test(code)) return fields(code);
  return code.replace(/\{([^{}]*)\}/g, (written, inner: string) => (/^[A-Za-z_][\w-]*: /.test(inner) ? `{ ${fields(inner)} }` : written));
}

/** The properties a description may name (not every camelCase word is one: `inPlace` is a value). */
const PROPERTY_NAMES = new Set(
  [
    EnvironmentInputs,
    EnvironmentComputed,
    CredentialInputs,
    CredentialComputed,
    ProviderConfigInputs,
    ...Object.values(DATA_SOURCE_FUNCTIONS).flatMap((core) => [core.args, core.result]),
  ].flatMap((object) => Object.keys(object.shape)),
);

// ---------------------------------------------------------------------------------------------
// zod → attributes
// ---------------------------------------------------------------------------------------------

interface Options {
  /** Every attribute computed (outputs, a lookup's result). */
  computed?: boolean;
  /** Every attribute optional (the provider's configuration, which falls back to the environment). */
  optional?: boolean;
  /** Properties required although their schema is optional. */
  required?: readonly string[];
}

function idAttribute(description: string): TerraformAttribute {
  return { name: "id", property: "id", description, required: false, optional: false, computed: true, sensitive: false, type: "string" };
}

/** The engines that take write-only attributes, as descriptions and docs say it. */
export const WRITE_ONLY_ENGINES = "Terraform 1.11 or OpenTofu 1.11 and newer";

/**
 * `<secret>_wo` and `<secret>_wo_version` for each secret, as aws (`password_wo`), google and vault
 * offer them: the write-only form keeps the secret out of plan and state; the plain one stays for
 * older engines.
 */
function writeOnlyAttributes(secrets: TerraformAttribute[]): TerraformAttribute[] {
  return secrets.flatMap((secret) => {
    const name = `${secret.name}_wo`;
    const version = `${name}_version`;
    const what = secret.description.replace(/ \(secret, write-only\)/, "").replace(/\.( A change .*)?$/, "");
    return [
      {
        ...secret,
        name,
        description: `${what}, write-only: sent to the API, kept in neither the plan nor the state (${WRITE_ONLY_ENGINES}). Set \`${version}\` with it, and change that to send a new value: a new \`${name}\` alone plans nothing. Conflicts with \`${secret.name}\`.`,
        writeOnly: { version, plain: secret.name },
      },
      {
        name: version,
        property: snakeToCamel(version),
        description: `The version of \`${name}\`: any number you choose; changing it sends \`${name}\` again, in place.`,
        required: false,
        optional: true,
        computed: false,
        sensitive: false,
        type: "number" as const,
        versionOf: name,
      },
    ];
  });
}

function snakeToCamel(name: string): string {
  return name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** A data source over a function core: its arguments in, its result out (an argument the result repeats stays an argument). */
function functionBlock(core: FunctionCore): TerraformBlock {
  const args = attributesOf(core.args);
  const names = new Set(args.map((attribute) => attribute.name));
  const results = attributesOf(core.result, { computed: true }).filter((attribute) => !names.has(attribute.name));
  return { version: 0, description: terraformText(core.description), attributes: [...args, ...results] };
}

function attributesOf(object: z.ZodObject, options: Options = {}): TerraformAttribute[] {
  return Object.entries(object.shape).map(([property, schema]) => attributeOf(property, schema as z.ZodType, options));
}

function attributeOf(property: string, schema: z.ZodType, options: Options): TerraformAttribute {
  const optionalInSchema = schema.safeParse(undefined).success || hasDefault(schema);
  const computed = options.computed === true;
  const required = !computed && !options.optional && (!optionalInSchema || (options.required?.includes(property) ?? false));
  const attribute: TerraformAttribute = {
    name: snakeCase(property),
    property,
    description: terraformText(descriptionOf(schema)),
    required,
    optional: !computed && !required,
    computed,
    sensitive: isSecret(schema),
  };
  const inner = bindable(innerSchema(schema));
  const def = defOf(inner);
  if (def.type === "object") {
    attribute.nested = { nesting: "single", attributes: attributesOf(inner as z.ZodObject, { computed }) };
  } else if (def.type === "array" && defOf(bindable(innerSchema(def.element as z.ZodType))).type === "object") {
    attribute.nested = { nesting: "list", attributes: attributesOf(bindable(innerSchema(def.element as z.ZodType)) as z.ZodObject, { computed }) };
  } else if (def.type === "record" && typeOf(def.valueType as z.ZodType) === "dynamic") {
    attribute.type = "string";
    attribute.json = true;
  } else {
    attribute.type = typeOf(inner);
  }
  return attribute;
}

/** The cty type of a value schema (no nested objects: those are nested attributes). */
function typeOf(schema: z.ZodType): CtyType {
  const def = defOf(bindable(innerSchema(schema)));
  switch (def.type) {
    case "string":
    case "enum":
    case "literal":
      return "string";
    case "number":
    case "int":
    case "bigint":
      return "number";
    case "boolean":
      return "bool";
    case "array":
      return ["list", typeOf(def.element as z.ZodType)];
    case "record":
      return ["map", typeOf(def.valueType as z.ZodType)];
    case "object":
      return ["object", Object.fromEntries(Object.entries(def.shape as Record<string, z.ZodType>).map(([key, value]) => [snakeCase(key), typeOf(value)]))];
    default:
      return "dynamic";
  }
}

interface ZodDef {
  type: string;
  [key: string]: unknown;
}

function defOf(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

/** A `bindableOr` union's first branch; a union of literals and enums (a string either way) as its first; else the schema. */
function bindable(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  if (def.type !== "union") return schema;
  const options = def.options as z.ZodType[];
  if ((schema.meta() as Record<string, unknown> | undefined)?.[BINDABLE] || options.every((option) => ["literal", "enum", "string"].includes(defOf(innerSchema(option)).type))) {
    return bindable(innerSchema(options[0]));
  }
  return schema;
}

function hasDefault(schema: z.ZodType): boolean {
  const type = defOf(schema).type;
  return type === "default" || type === "prefault";
}

/** The description of the outermost wrapper that has one. */
function descriptionOf(schema: z.ZodType): string {
  for (let current: z.ZodType | undefined = schema; current !== undefined; ) {
    const description = (current.meta() as { description?: string } | undefined)?.description;
    if (description) return description;
    const def = defOf(current);
    current = (def.innerType ?? def.in) as z.ZodType | undefined;
  }
  return "";
}

function isSecret(schema: z.ZodType): boolean {
  for (let current: z.ZodType | undefined = schema; current !== undefined; ) {
    if ((current.meta() as { secret?: boolean } | undefined)?.secret) return true;
    const def = defOf(current);
    current = (def.innerType ?? def.in) as z.ZodType | undefined;
  }
  return false;
}
