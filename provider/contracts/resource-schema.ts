/**
 * Resource properties are zod schemas whose `.meta` says, once per property, what the rest of the
 * package derives: the description (schema.json, via `z.toJSONSchema`), the wire field (the
 * camelCase ↔ snake_case mapping of create, read and check), what a change does (diff), whether the
 * value is secret whatever its origin, and for a Credential the types that use it. The TypeScript
 * types follow with `z.infer`, the resource classes' Args with `InputsOf`, their outputs with `OutputsOf`.
 *
 * ```ts
 * fromEnvironment: z.string().optional().meta({ description: "…", wire: "from_environment", change: "replace" }),
 * ```
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";

export interface PropertyMeta {
  /** What the property is, for schema.json and every language's docs. */
  description: string;
  /** The API's field, e.g. `from_environment`; none for a property that is never sent (`adopt`). */
  wire?: string;
  /**
   * The API's form of a declared value, where a declaration may take another form than the wire's
   * (`network: {disabled: true}` is the API's `"disabled"`); none: the value as declared.
   */
  toWire?: (value: never) => unknown;
  /** The declared form of the API's value (the inverse of `toWire`): what an import declares. */
  fromWire?: (value: never) => unknown;
  /**
   * What a change of this input does: `replace` the resource, `update` it in place, or
   * `updateOrReplace`: in place where the core can apply it so (an Environment's edited or added
   * inline sources), else a replacement; none: nothing. Only `replace` is schema.json's
   * `willReplaceOnChanges`: a property that may update in place is not marked.
   */
  change?: "replace" | "update" | "updateOrReplace";
  /** Secret whatever its origin: the API never returns it, and the state holds it encrypted. */
  secret?: boolean;
  /** Credential fields: the credential types that use it. */
  types?: readonly string[];
  /**
   * An output's value when the API's answer leaves the field out (default: `""`, or 0 for a number;
   * none for an optional output). For an input: the value an omitted input means (the API's
   * default), so that declaring it is no change.
   */
  absent?: unknown;
  /** An output the API returns in the create response only: read keeps the value from the state. */
  once?: boolean;
}

/**
 * A value declared in `bindable`, the one form schema.json shows because every language binds it, or in
 * the API's other forms (`also`), which the provider takes as well: the API's unions of a list and a
 * single value (`transform`, `injection_location`) or of a string and an object (`network`) do not
 * bind in Python and Go. scripts/generate-schema.ts writes the first branch of a union so marked.
 */
export function bindableOr<Bindable extends z.ZodType, Also extends z.ZodType>(bindable: Bindable, also: Also, params?: { error: string }) {
  return z.union([bindable, also], params).meta({ [BINDABLE]: true });
}

/** The meta key that marks a `bindableOr` union. */
export const BINDABLE = "bindableFirst";

/** The `.meta` of a property schema. */
export function propertyMeta(schema: z.ZodType): PropertyMeta {
  return (schema.meta() ?? { description: "" }) as PropertyMeta;
}

/** Each property of an object schema with its meta, in declared order. */
export function propertiesOf<Shape extends z.ZodRawShape>(object: z.ZodObject<Shape>): Array<[keyof Shape & string, PropertyMeta, z.ZodType]> {
  return Object.entries(object.shape).map(([name, schema]) => [name, propertyMeta(schema as z.ZodType), schema as z.ZodType]);
}

/** A declared property's value as the API takes it (meta `toWire`); unchanged where the forms are the same. */
export function wireValue(meta: PropertyMeta, value: unknown): unknown {
  return meta.toWire === undefined || value === undefined ? value : (meta.toWire as (value: unknown) => unknown)(value);
}

/** The API's value of a property in its declared form (meta `fromWire`). */
export function declaredValue(meta: PropertyMeta, wire: unknown): unknown {
  return meta.fromWire === undefined || wire === undefined ? wire : (meta.fromWire as (value: unknown) => unknown)(wire);
}

/**
 * An output's value from the API's field: int64 decimal strings as numbers, the declared form of the
 * rest (meta `fromWire`); a field the answer leaves out is the output's `absent` value (else `""`, or 0
 * for a number), or undefined for an optional output with none (a self_hosted-only field).
 */
export function outputValue(meta: PropertyMeta, schema: z.ZodType, wire: unknown): unknown {
  if (wire === undefined) return meta.absent === undefined && isOptional(schema) ? undefined : (meta.absent ?? (isNumber(schema) ? 0 : ""));
  return isNumber(schema) ? Number(wire) : declaredValue(meta, wire);
}

/** The properties of `object` in the API's answer, each read from its wire field by `outputValue`; those it leaves out and has no value for, left out. */
export function valuesFromWire(object: z.ZodObject, answer: object): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [property, meta, schema] of propertiesOf(object)) {
    const value = outputValue(meta, schema, (answer as Record<string, unknown>)[meta.wire ?? property]);
    if (value !== undefined) values[property] = value;
  }
  return values;
}

/**
 * A declared value in the one form that comparisons use: the same policy declared in another form
 * (`"disabled"` and `{disabled: true}`; one header map and a list of it) is the same value.
 */
export function normalValue(meta: PropertyMeta, value: unknown): unknown {
  return declaredValue(meta, wireValue(meta, value));
}

/** Input property ↔ wire field, for the properties that have one. */
export function wireNames(object: z.ZodObject): { toWire: Record<string, string>; toInput: Record<string, string> } {
  const toWire: Record<string, string> = {};
  for (const [name, meta] of propertiesOf(object)) if (meta.wire !== undefined) toWire[name] = meta.wire;
  return { toWire, toInput: Object.fromEntries(Object.entries(toWire).map(([name, wire]) => [wire, name])) };
}

/**
 * A field's name in schema.json, and so in every generated SDK: Pulumi names properties in camelCase,
 * so a wire field of a nested type (`pre_tool_execution`, `tool_call`) is `preToolExecution`, `toolCall`.
 */
export function schemaName(wire: string): string {
  return wire.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * `value`, declared with schema.json's names, with the wire's names that `schema` (a wire shape) reads:
 * every object's keys renamed back (`toolCall` → `tool_call`), however deep; a map's own keys (a
 * record: group names, header names) are kept, and so is a key already written as on the wire.
 */
export function withWireNames(schema: z.ZodType, value: unknown): unknown {
  const def = definition(schema);
  switch (def.type) {
    case "array":
      return Array.isArray(value) ? value.map((item) => withWireNames(def.element as z.ZodType, item)) : value;
    case "record":
      return isPlainObject(value) ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withWireNames(def.valueType as z.ZodType, item)])) : value;
    case "object": {
      if (!isPlainObject(value)) return value;
      const bySchemaName = new Map(Object.keys(def.shape as object).map((wire) => [schemaName(wire), wire]));
      const shape = def.shape as Record<string, z.ZodType>;
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => {
          const wire = key in shape ? key : (bySchemaName.get(key) ?? key);
          return [wire, shape[wire] ? withWireNames(shape[wire], item) : item];
        }),
      );
    }
    case "union": {
      // The first branch that reads the renamed value; none does: the first branch's renaming, for its errors.
      const candidates = (def.options as z.ZodType[]).map((option) => [option, withWireNames(option, value)] as const);
      return (candidates.find(([option, renamed]) => option.safeParse(renamed).success) ?? candidates[0])?.[1];
    }
    default:
      return value;
  }
}

/**
 * An issue's path in a value `withWireNames` renamed, in schema.json's names again (`["tests", 0,
 * "tool_call"]` → `["tests", 0, "toolCall"]`): the message names the field as the program wrote it.
 */
export function schemaPath(schema: z.ZodType, path: ReadonlyArray<string | number>): Array<string | number> {
  let current: z.ZodType | undefined = schema;
  return path.map((segment) => {
    const def: ZodDef | undefined = current && definition(current);
    const shapes = def?.type === "union" ? (def.options as z.ZodType[]).map(definition) : def ? [def] : [];
    const object = shapes.find((shape) => shape.type === "object" && typeof segment === "string" && segment in (shape.shape as object));
    if (object) {
      current = (object.shape as Record<string, z.ZodType>)[segment];
      return schemaName(segment as string);
    }
    current = def?.type === "array" ? (def.element as z.ZodType) : def?.type === "record" ? (def.valueType as z.ZodType) : undefined;
    return segment;
  });
}

/**
 * The paths in `value` whose schema is marked secret (meta `secret`), however deep (`["network",
 * "allowlist", 0, "transform"]`): what an adapter wraps as secrets on the way to the engine. A union
 * follows the first branch that reads the value.
 */
export function secretValuePaths(schema: z.ZodType, value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (value === undefined) return [];
  if (propertyMeta(schema).secret) return [at];
  const def = definition(schema);
  switch (def.type) {
    case "array":
      return Array.isArray(value) ? value.flatMap((item, index) => secretValuePaths(def.element as z.ZodType, item, [...at, index])) : [];
    case "object":
      return isPlainObject(value)
        ? Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([key, property]) => secretValuePaths(property, value[key], [...at, key]))
        : [];
    case "union": {
      const branch = (def.options as z.ZodType[]).find((option) => option.safeParse(value).success);
      return branch ? secretValuePaths(branch, value, at) : [];
    }
    default:
      return [];
  }
}

interface ZodDef {
  type: string;
  [key: string]: unknown;
}

/** A schema's definition, through the wrappers that do not change a value's shape (optional, default, …). */
function definition(schema: z.ZodType): ZodDef {
  return ownDefinition(innerSchema(schema));
}

function ownDefinition(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

/** The schema inside the wrappers that do not change a value's shape (optional, nullable, default, a transform's pipe, lazy, …). */
export function innerSchema(schema: z.ZodType): z.ZodType {
  const def = ownDefinition(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "nonoptional":
    case "catch":
      return innerSchema(def.innerType as z.ZodType);
    case "pipe":
      return innerSchema(def.in as z.ZodType);
    case "lazy":
      return innerSchema((def.getter as () => z.ZodType)());
    default:
      return schema;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Whether a property schema accepts undefined. */
export function isOptional(schema: z.ZodType): boolean {
  return schema.safeParse(undefined).success;
}

/** Whether a property schema (optional or not) is a number. */
export function isNumber(schema: z.ZodType): boolean {
  const def = (schema as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
  return def.type === "number" || (def.innerType !== undefined && isNumber(def.innerType));
}

/** `T` with every value, however deep, allowed to be a `pulumi.Input`: a plain value, a promise or an output. */
export type DeepInput<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends ReadonlyArray<infer Item>
    ? Array<pulumi.Input<DeepInput<Item>>>
    : { [K in keyof T]: pulumi.Input<DeepInput<T[K]>> };

/** A resource's Args from its inputs: each property a `pulumi.Input`, all the way down. */
export type InputsOf<T> = { [K in keyof T]: pulumi.Input<DeepInput<T[K]>> };

/** A resource class's declared outputs: each property a `pulumi.Output`. */
export type OutputsOf<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };
