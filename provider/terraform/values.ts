/**
 * Terraform's values and the cores' (contracts/resource-core.ts), both ways.
 *
 * On the wire a value is a `DynamicValue`: msgpack of the whole object as the schema's type says
 * (every attribute present, null when unset), a value not known until apply the extension 0, or 12
 * when Terraform knows something of it (a refined unknown: we read it as unknown and drop what is
 * known of it); UpgradeResourceState's stored state is JSON. Here an unknown is the cores' `UNKNOWN`
 * (what Pulumi sends for one), so `containsUnknown` and the cores' checks read it as they do Pulumi's.
 *
 * Between the two forms the table is the schema's (schema.ts): `from_environment` ↔ `fromEnvironment`,
 * null ↔ left out, a JSON-string attribute (`custom_config`) ↔ its object.
 */
import { startupSnapshot } from "node:v8";
import type * as MsgpackLibrary from "@msgpack/msgpack";
import { UNKNOWN } from "../environment/inputs";
import type { TerraformAttribute } from "./schema";

/** A Terraform object in its own form: snake_case keys, null for unset, `UNKNOWN` for unknown. */
export type TerraformObject = Record<string, unknown>;

/** A DynamicValue as the proto loader gives and takes it. */
export interface DynamicValue {
  msgpack?: Buffer | Uint8Array;
  json?: Buffer | Uint8Array;
}

const UNKNOWN_EXTENSION = 0;
const REFINED_UNKNOWN_EXTENSION = 12;

interface Msgpack {
  library: typeof MsgpackLibrary;
  codec: MsgpackLibrary.ExtensionCodec;
  /** What cty writes for an unknown: fixext1 of type 0. */
  unknown: MsgpackLibrary.ExtData;
}
let loaded: Msgpack | undefined;

/**
 * @msgpack/msgpack and its codec for the unknowns, loaded on first use: the library keeps an Error
 * made when it loads (its decoder's "Insufficient data"), which V8 cannot write into the startup
 * snapshot the single executable starts from (plugin/single-executable.ts).
 */
function msgpack(): Msgpack {
  if (loaded) return loaded;
  const library = require("@msgpack/msgpack") as typeof MsgpackLibrary;
  const codec = new library.ExtensionCodec();
  codec.register({ type: UNKNOWN_EXTENSION, encode: () => null, decode: () => UNKNOWN });
  codec.register({ type: REFINED_UNKNOWN_EXTENSION, encode: () => null, decode: () => UNKNOWN });
  return (loaded = { library, codec, unknown: new library.ExtData(UNKNOWN_EXTENSION, new Uint8Array([0])) });
}

/** A DynamicValue's value: msgpack, else JSON (a stored state), else null. */
export function decodeValue(value: DynamicValue | null | undefined): unknown {
  if (value?.msgpack && value.msgpack.length > 0) {
    const { library, codec } = msgpack();
    return library.decode(value.msgpack, { extensionCodec: codec, useBigInt64: false });
  }
  if (value?.json && value.json.length > 0) return JSON.parse(Buffer.from(value.json).toString("utf8"));
  return null;
}

/**
 * The msgpack DynamicValue of `value`; `UNKNOWN` anywhere in it is the unknown extension. While the
 * single executable's startup snapshot is made (the warm-up's calls, warm-up.ts), where msgpack cannot
 * be loaded, its JSON, which decodeValue reads as well.
 */
export function encodeValue(value: unknown): DynamicValue {
  if (startupSnapshot.isBuildingSnapshot()) return { json: Buffer.from(JSON.stringify(value)) };
  const { library, codec, unknown } = msgpack();
  const bytes = library.encode(withUnknowns(value, unknown), { extensionCodec: codec, ignoreUndefined: false });
  return { msgpack: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

/** `value` with each `UNKNOWN` as the extension cty writes for it. */
function withUnknowns(value: unknown, unknown: MsgpackLibrary.ExtData): unknown {
  if (value === UNKNOWN) return unknown;
  if (Array.isArray(value)) return value.map((item) => withUnknowns(item, unknown));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withUnknowns(item, unknown)]));
  return value === undefined ? null : value;
}

// ---------------------------------------------------------------------------------------------
// Terraform's form ↔ the cores'
// ---------------------------------------------------------------------------------------------

/**
 * The core's value of a Terraform object: camelCase properties, null left out, unknowns kept as
 * `UNKNOWN`, a JSON attribute parsed (a text that is not JSON stays a string: check names it).
 */
export function coreValue(attributes: readonly TerraformAttribute[], object: unknown): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (object === null || typeof object !== "object") return values;
  for (const attribute of attributes) {
    const value = coreAttribute(attribute, (object as TerraformObject)[attribute.name]);
    if (value !== undefined) values[attribute.property] = value;
  }
  return values;
}

function coreAttribute(attribute: TerraformAttribute, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (value === UNKNOWN) return UNKNOWN;
  if (attribute.json) return parsedJson(value);
  const nested = attribute.nested;
  if (nested?.nesting === "single") return coreValue(nested.attributes, value);
  if (nested?.nesting === "list" && Array.isArray(value)) return value.map((item) => (item === UNKNOWN ? UNKNOWN : coreValue(nested.attributes, item)));
  return value;
}

function parsedJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * The Terraform object of a core's value: every attribute, null where the value has none, a JSON
 * attribute as compact JSON text.
 */
export function terraformValue(attributes: readonly TerraformAttribute[], values: object | undefined): TerraformObject {
  const object: TerraformObject = {};
  for (const attribute of attributes) object[attribute.name] = terraformAttribute(attribute, (values as Record<string, unknown> | undefined)?.[attribute.property]);
  return object;
}

function terraformAttribute(attribute: TerraformAttribute, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value === UNKNOWN) return UNKNOWN;
  if (attribute.json) return typeof value === "string" ? value : JSON.stringify(value);
  const nested = attribute.nested;
  if (nested?.nesting === "single") return terraformValue(nested.attributes, value as object);
  if (nested?.nesting === "list" && Array.isArray(value)) return value.map((item) => terraformValue(nested.attributes, item as object));
  return value;
}

/**
 * A stored object made to fit the schema: the attributes it lacks null, those the schema no longer
 * has dropped (a state written by another version of the provider, UpgradeResourceState).
 */
export function conformed(attributes: readonly TerraformAttribute[], object: unknown): TerraformObject {
  const source = object !== null && typeof object === "object" ? (object as TerraformObject) : {};
  const result: TerraformObject = {};
  for (const attribute of attributes) {
    const value = source[attribute.name];
    const nested = attribute.nested;
    if (value === undefined || value === null || !nested) result[attribute.name] = value ?? null;
    else if (nested.nesting === "single") result[attribute.name] = conformed(nested.attributes, value);
    else result[attribute.name] = Array.isArray(value) ? value.map((item) => conformed(nested.attributes, item)) : null;
  }
  return result;
}

/** Whether a Terraform value holds an unknown anywhere. */
export function hasUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(hasUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasUnknown);
  return false;
}
