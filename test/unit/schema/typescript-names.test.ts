/**
 * The TypeScript package reads like the schema the registry documents: every named type of schema.json
 * is exported by its name (`types.input.<Name>Args`, `types.output.<Name>`, `types.enums.<Name>`) with
 * the schema's properties, each resource's Args has the schema's inputs (required where the schema
 * requires them), and every function, top-level and `plugin.*`, plain and `…Output`, takes the schema's
 * arguments, returns its result and takes InvokeOptions. Read from the package's declarations by the
 * TypeScript compiler itself, so a name changed on either side fails here.
 */
import * as path from "node:path";
import ts from "typescript";
import { generateSchema } from "../../../scripts/generate-schema";

const root = path.resolve(__dirname, "../../..");

interface SchemaObject {
  properties?: Record<string, unknown>;
  required?: string[];
  enum?: Array<{ value: string }>;
}
interface Schema {
  types: Record<string, SchemaObject>;
  resources: Record<string, { inputProperties: Record<string, unknown>; requiredInputs?: string[] }>;
  provider: { inputProperties: Record<string, unknown> };
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

test.each(objectTypes.filter(([name]) => inputTypes.has(name)))("types.input.%sArgs has the schema's properties, required where it requires them", (name, type) => {
  const { names, required } = properties(typeOf(exported("types", "input", `${name}Args`)));
  expect(names).toEqual(Object.keys(type.properties ?? {}).sort());
  expect(required).toEqual([...(type.required ?? [])].filter((property) => !isConst(type, property)).sort());
});

test.each(objectTypes)("types.output.%s has the schema's properties", (name, type) => {
  expect(properties(typeOf(exported("types", "output", name))).names).toEqual(Object.keys(type.properties ?? {}).sort());
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

test.each(RESOURCE_ARGS)("%s's TypeScript Args have the schema's inputs, required where it requires them", (resource, names) => {
  const declared = schema.resources[`gemini-environments:index:${resource}`]!;
  const { names: properties_, required } = properties(typeOf(exported(...names)));
  expect(properties_).toEqual(Object.keys(declared.inputProperties).sort());
  expect(required).toEqual([...(declared.requiredInputs ?? [])].sort());
});

test("the TypeScript GuardedEnvironment asks for what the schema's does (network required in both)", () => {
  const declared = schema.resources["gemini-environments:index:GuardedEnvironment"]!;
  const { names, required } = properties(typeOf(exported("GuardedEnvironmentArgs")));
  expect(names).toEqual(expect.arrayContaining(Object.keys(declared.inputProperties)));
  expect(required).toEqual([...(declared.requiredInputs ?? [])].sort());
  expect(required).toContain("network");
});

test("plugin.ProviderArgs has the provider's inputs", () => {
  expect(properties(typeOf(exported("plugin", "ProviderArgs"))).names).toEqual(Object.keys(schema.provider.inputProperties).sort());
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
  const returned = checker.getReturnTypeOfSignature(signature!);
  // Promise<Result> or Output<Result>: the one type argument.
  const [result] = returned.aliasTypeArguments ?? checker.getTypeArguments(returned as ts.TypeReference);
  expect(properties(result!).names).toEqual(Object.keys(declared.outputs.properties ?? {}).sort());
});
