/**
 * The TypeScript package reads like the schema the registry documents: every named type of schema.json
 * is exported by its name (`types.input.<Name>Args`, `types.output.<Name>`, `types.enums.<Name>`) with
 * the schema's properties, each resource's Args has the schema's inputs (required where the schema
 * requires them), and every function, top-level and `plugin.*`, plain and `…Output`, takes the schema's
 * arguments, returns its result and takes InvokeOptions. Each property's type is compared too, down to
 * the leaves: the named types it refers to, an array's items, a map's values, an enum's values, a
 * primitive's kind. Read from the package's declarations by the TypeScript compiler itself, so a name
 * changed on either side, at any depth, fails here.
 */
import * as path from "node:path";
import ts from "typescript";
import { generateSchema } from "../../../scripts/generate-schema";

const root = path.resolve(__dirname, "../../..");

/** A property's schema: a primitive, an array (`items`), a map (`additionalProperties`) or a named type (`$ref`). */
interface PropertySchema {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  $ref?: string;
  const?: unknown;
  items?: PropertySchema;
  additionalProperties?: PropertySchema;
}
interface SchemaObject {
  properties?: Record<string, PropertySchema>;
  required?: string[];
  enum?: Array<{ value: string }>;
}
interface Schema {
  types: Record<string, SchemaObject>;
  resources: Record<string, { inputProperties: Record<string, PropertySchema>; requiredInputs?: string[] }>;
  provider: { inputProperties: Record<string, PropertySchema> };
  functions: Record<string, { inputs?: SchemaObject; outputs: SchemaObject }>;
}

const schema = generateSchema(root) as unknown as Schema;
const nameOf = (token: string) => token.split(":").pop()!;

let checker: ts.TypeChecker;
let packageExports: Map<string, ts.Symbol>;

beforeAll(() => {
  const index = path.join(root, "index.ts");
  const program = ts.createProgram([index], { strict: true, skipLibCheck: true, esModuleInterop: true, resolveJsonModule: true, module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, types: ["node"], noEmit: true });
  checker = program.getTypeChecker();
  packageExports = membersOf(checker.getSymbolAtLocation(program.getSourceFile(index)!)!);
}, 60_000);

function membersOf(module: ts.Symbol): Map<string, ts.Symbol> {
  const resolved = module.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(module) : module;
  return new Map(checker.getExportsOfModule(resolved).map((symbol) => [symbol.name, symbol]));
}

/** An exported name under `types.input`, `plugin`, or the top level. */
function exported(...names: string[]): ts.Symbol {
  let scope = packageExports;
  let symbol: ts.Symbol | undefined;
  for (const name of names) {
    symbol = scope.get(name);
    if (!symbol) throw new Error(`the package exports no ${names.join(".")}`);
    scope = symbol.flags & (ts.SymbolFlags.Alias | ts.SymbolFlags.Module | ts.SymbolFlags.Namespace) ? membersOf(symbol) : new Map();
  }
  return symbol!;
}

function typeOf(symbol: ts.Symbol): ts.Type {
  const resolved = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return resolved.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface | ts.SymbolFlags.Class) ? checker.getDeclaredTypeOfSymbol(resolved) : checker.getTypeOfSymbol(resolved);
}

/** The object members of a type (a union's object branches together; `"disabled"` and other literals aside), unwrapping `pulumi.Input`. */
function objectParts(type: ts.Type): ts.Type[] {
  const parts = type.isUnion() ? type.types : [type];
  return parts.filter((part) => part.flags & ts.TypeFlags.Object && !checker.getPropertyOfType(part, "apply") && !checker.getPropertyOfType(part, "then"));
}

function properties(type: ts.Type): { names: string[]; required: string[] } {
  const names = new Set<string>();
  const required = new Set<string>();
  for (const part of objectParts(type)) {
    for (const property of checker.getPropertiesOfType(part)) {
      names.add(property.name);
      if (!(property.flags & ts.SymbolFlags.Optional)) required.add(property.name);
    }
  }
  return { names: [...names].sort(), required: [...required].sort() };
}

function literalValues(type: ts.Type): string[] {
  return (type.isUnion() ? type.types : [type]).map((part) => (part.isStringLiteral() ? part.value : checker.typeToString(part))).sort();
}

/** A value's own types: `undefined`, `null` and `pulumi.Input`'s promise and output left out. */
function valueParts(type: ts.Type): ts.Type[] {
  const parts = type.isUnion() ? type.types : [type];
  return parts.filter((part) => !(part.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)) && !(part.flags & ts.TypeFlags.Object && (checker.getPropertyOfType(part, "apply") || checker.getPropertyOfType(part, "then"))));
}

const ANY = "pulumi.json#/Any";
const PRIMITIVES = { string: ts.TypeFlags.StringLike, integer: ts.TypeFlags.NumberLike, number: ts.TypeFlags.NumberLike, boolean: ts.TypeFlags.BooleanLike } as const;

const propertyNames = (part: ts.Type) => checker.getPropertiesOfType(part).map((property) => property.name);
const sameList = (a: readonly string[], b: readonly string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/**
 * Where `type` lacks the schema's `declared` form, however deep, each as `place: what differs`: a named
 * type's properties by name, then each one's type; an enum's values; an array's items; a map's values;
 * a primitive's kind. `at` names the place, e.g. `HookBundle.config{}.preToolExecution[].matcher`.
 *
 * The schema's form must be one branch of the type; other branches are spellings the provider accepts
 * too and the schema does not document, left aside: `"disabled"` for a network, `inPlace`, one
 * injection location alone, hooks.json's `{type: "command", …}` handlers, a component (a HookBundle, a
 * NetworkPolicy) for its Args.
 */
function differences(type: ts.Type, declared: PropertySchema, at: string): string[] {
  if (declared.$ref === ANY) return [];
  const parts = valueParts(type);
  const lacks = (form: string) => [`${at}: ${checker.typeToString(type)} where the schema has ${form}`];
  if (declared.$ref !== undefined) {
    const named = schema.types[decodeURIComponent(declared.$ref.replace(/^#\/types\//, ""))];
    if (named === undefined) return [`${at}: the schema's ${declared.$ref} is not one of its types`];
    if (named.enum === undefined) return objectDifferences(parts, named, at);
    const values = new Set(parts.flatMap((part) => (part.isStringLiteral() ? [part.value] : [])));
    const missing = named.enum.map(({ value }) => value).filter((value) => !values.has(value));
    return missing.length === 0 ? [] : [`${at}: no ${missing.join(", ")} of the schema's ${declared.$ref}`];
  }
  switch (declared.type) {
    case "array": {
      const lists = parts.filter((part) => checker.isArrayType(part));
      if (lists.length === 0) return lacks("an array");
      return lists.flatMap((list) => differences(checker.getTypeArguments(list as ts.TypeReference)[0]!, declared.items!, `${at}[]`));
    }
    case "object": {
      // A map of anything: any object is one.
      if (declared.additionalProperties?.$ref === ANY) return parts.some((part) => part.flags & ts.TypeFlags.Object) ? [] : lacks("an object");
      const values = parts.flatMap((part) => checker.getIndexTypeOfType(part, ts.IndexKind.String) ?? []);
      if (values.length === 0) return lacks("a map");
      return values.flatMap((value) => differences(value, declared.additionalProperties!, `${at}{}`));
    }
    default: {
      const primitive = declared.type!;
      const found = declared.const !== undefined ? parts.some((part) => part.isStringLiteral() && part.value === declared.const) : parts.some((part) => part.flags & PRIMITIVES[primitive]);
      return found ? [] : lacks(declared.const !== undefined ? JSON.stringify(declared.const) : primitive);
    }
  }
}

/**
 * Where an object type lacks the schema's object: its branches with none but the schema's properties
 * and each of them of the schema's type (together, as EgressPolicy's `{allowlist}` and
 * `{disabled: true}`) must have all of them. Otherwise what the closest branches lack, however deep.
 */
function objectDifferences(parts: ts.Type[], declared: SchemaObject, at: string): string[] {
  const expected = Object.keys(declared.properties ?? {});
  const objects = parts.filter((part) => part.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection) && !checker.isArrayType(part));
  const candidates = objects
    .filter((part) => propertyNames(part).every((name) => expected.includes(name)))
    .map((part) => ({
      names: propertyNames(part),
      lacks: Object.entries(declared.properties ?? {}).flatMap(([name, property]) => {
        const symbol = checker.getPropertyOfType(part, name);
        return symbol ? differences(checker.getTypeOfSymbol(symbol), property, `${at}.${name}`) : [];
      }),
    }));
  if (sameList([...new Set(candidates.filter(({ lacks }) => lacks.length === 0).flatMap(({ names }) => names))], expected)) return [];
  const deeper = candidates.flatMap(({ lacks }) => lacks);
  if (deeper.length > 0) return deeper;
  const found = objects.map((part) => `{${propertyNames(part).join(", ")}}`).join(" | ") || parts.map((part) => checker.typeToString(part)).join(" | ");
  return [`${at}: ${found} where the schema has {${expected.join(", ")}}`];
}

const objectTypes = Object.entries(schema.types).filter(([, type]) => type.enum === undefined).map(([token, type]) => [nameOf(token), type] as const);
const enumTypes = Object.entries(schema.types).filter(([, type]) => type.enum !== undefined).map(([token, type]) => [nameOf(token), type] as const);

/** The types a program declares (reached from a resource's, the provider's or a function's inputs): the others are only read back, with no `Args` form, as in the generated SDKs. */
const inputTypes = (() => {
  const reached = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== "object") return;
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string" && item.startsWith("#/types/")) {
        const token = decodeURIComponent(item.slice("#/types/".length));
        if (!reached.has(token)) {
          reached.add(token);
          visit(schema.types[token]);
        }
      } else visit(item);
    }
  };
  visit([Object.values(schema.resources).map((resource) => resource.inputProperties), schema.provider.inputProperties, Object.values(schema.functions).map((declared) => declared.inputs)]);
  return new Set([...reached].map(nameOf));
})();

test("the schema has object and enum types to compare", () => {
  expect(objectTypes.map(([name]) => name)).toEqual(expect.arrayContaining(["Source", "EgressPolicy", "HookBundle", "EnvironmentInfo"]));
  expect(enumTypes.map(([name]) => name)).toEqual(expect.arrayContaining(["SourceType", "LintCode"]));
  expect([...inputTypes]).toEqual(expect.arrayContaining(["Source", "EgressPolicy", "HookBundle", "HooksTestCase", "CommandHandler"]));
  expect(inputTypes.has("EnvironmentInfo")).toBe(false);
});

test.each(objectTypes.filter(([name]) => inputTypes.has(name)))("types.input.%sArgs has the schema's properties and their types however deep, required where it requires them", (name, type) => {
  const args = typeOf(exported("types", "input", `${name}Args`));
  const { names, required } = properties(args);
  expect(names).toEqual(Object.keys(type.properties ?? {}).sort());
  expect(objectDifferences(valueParts(args), type, `${name}Args`)).toEqual([]);
  expect(required).toEqual([...(type.required ?? [])].filter((property) => !isConst(type, property)).sort());
});

test.each(objectTypes)("types.output.%s has the schema's properties and their types however deep", (name, type) => {
  const output = typeOf(exported("types", "output", name));
  expect(properties(output).names).toEqual(Object.keys(type.properties ?? {}).sort());
  expect(objectDifferences(valueParts(output), type, name)).toEqual([]);
});

/** A `const` property (a handler's `type`) is set by the SDK, so it is optional to write. */
function isConst(type: SchemaObject, property: string): boolean {
  return (type.properties?.[property] as { const?: unknown } | undefined)?.const !== undefined;
}

test.each(enumTypes)("types.enums.%s has the schema's values", (name, type) => {
  expect(literalValues(typeOf(exported("types", "enums", name)))).toEqual(type.enum!.map(({ value }) => value).sort());
});

test("EgressPolicyArgs is exported at the top level, NetworkArgs kept as its deprecated alias", () => {
  expect(properties(typeOf(exported("EgressPolicyArgs"))).names).toEqual(Object.keys(schema.types["gemini-environments:index:EgressPolicy"]!.properties!).sort());
  const alias = checker.getAliasedSymbol(exported("NetworkArgs"));
  expect(ts.getJSDocTags(alias.declarations![0]!).map((tag) => tag.tagName.text)).toContain("deprecated");
  expect(checker.typeToString(typeOf(exported("NetworkArgs")))).toBe(checker.typeToString(typeOf(exported("EgressPolicyArgs"))));
});

const RESOURCE_ARGS: Array<[string, string[]]> = [
  ["Environment", ["EnvironmentArgs"]],
  ["Credential", ["CredentialArgs"]],
  ["GuardedEnvironment", ["plugin", "GuardedEnvironmentArgs"]],
];

test.each(RESOURCE_ARGS)("%s's TypeScript Args have the schema's inputs and their types however deep, required where it requires them", (resource, names) => {
  const declared = schema.resources[`gemini-environments:index:${resource}`]!;
  const args = typeOf(exported(...names));
  const { names: properties_, required } = properties(args);
  expect(properties_).toEqual(Object.keys(declared.inputProperties).sort());
  expect(objectDifferences(valueParts(args), { properties: declared.inputProperties }, names.join("."))).toEqual([]);
  expect(required).toEqual([...(declared.requiredInputs ?? [])].sort());
});

test("the TypeScript GuardedEnvironment asks for what the schema's does (network required in both)", () => {
  const declared = schema.resources["gemini-environments:index:GuardedEnvironment"]!;
  const { names, required } = properties(typeOf(exported("GuardedEnvironmentArgs")));
  expect(names).toEqual(expect.arrayContaining(Object.keys(declared.inputProperties)));
  expect(required).toEqual([...(declared.requiredInputs ?? [])].sort());
  expect(required).toContain("network");
});

test("plugin.ProviderArgs has the provider's inputs and their types", () => {
  const args = typeOf(exported("plugin", "ProviderArgs"));
  expect(properties(args).names).toEqual(Object.keys(schema.provider.inputProperties).sort());
  expect(objectDifferences(valueParts(args), { properties: schema.provider.inputProperties }, "ProviderArgs")).toEqual([]);
});

test("plugin.Credential and plugin.Environment have a static get(name, id, opts)", () => {
  for (const resource of ["Credential", "Environment"]) {
    const symbol = exported("plugin", resource);
    const get = checker.getPropertyOfType(checker.getTypeOfSymbol(symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol), "get");
    expect(get).toBeDefined();
    expect(checker.getSignaturesOfType(checker.getTypeOfSymbol(get!), ts.SignatureKind.Call)[0]!.parameters.map((parameter) => parameter.name)).toEqual(["name", "id", "opts"]);
  }
});

const FUNCTIONS = Object.entries(schema.functions).flatMap(([token, declared]) =>
  [[], ["plugin"]].flatMap((scope) => [false, true].map((output) => [[...scope, `${nameOf(token)}${output ? "Output" : ""}`].join("."), declared] as const)),
);

test.each(FUNCTIONS)("%s takes the schema's arguments and InvokeOptions, and returns its result", (qualified, declared) => {
  const signatures = checker.getSignaturesOfType(typeOf(exported(...qualified.split("."))), ts.SignatureKind.Call);
  expect(signatures).toHaveLength(1);
  const [signature] = signatures;
  const parameters = signature!.parameters.map((parameter) => checker.getTypeOfSymbol(parameter));
  const options = parameters.pop()!;
  for (const option of ["provider", "parent", "version"]) expect(checker.getPropertyOfType(checker.getNonNullableType(options), option)).toBeDefined();
  const expectedArguments = Object.keys(declared.inputs?.properties ?? {}).sort();
  expect(parameters.length === 0 ? [] : properties(checker.getNonNullableType(parameters[0]!)).names).toEqual(expectedArguments);
  if (parameters.length > 0) expect(objectDifferences(valueParts(parameters[0]!), declared.inputs ?? {}, `${qualified}(args)`)).toEqual([]);
  const returned = checker.getReturnTypeOfSignature(signature!);
  // Promise<Result> or Output<Result>: the one type argument.
  const [result] = returned.aliasTypeArguments ?? checker.getTypeArguments(returned as ts.TypeReference);
  expect(properties(result!).names).toEqual(Object.keys(declared.outputs.properties ?? {}).sort());
  expect(objectDifferences(valueParts(result!), declared.outputs, `${qualified}()`)).toEqual([]);
});
