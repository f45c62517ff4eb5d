/**
 * No single test waits more than 10 minutes: one hang may not eat most of CI's time, and a test that
 * needs longer does too much at once (or a cache the run should have prepared). Read from each test
 * file's syntax tree, every constant a timeout is given:
 * - jest's: the argument after a test's or hook's function (`test(name, fn, timeout)`, `beforeAll(fn,
 *   timeout)`, `.each`, `testNeeding(...)`; any call's argument after a function literal, `setTimeout`
 *   included), and `jest.setTimeout`;
 * - what a name says is one: the value of a variable, property, parameter default or destructured name
 *   that has "timeout" in it (`GO_TIMEOUT_MS = …`, `{ timeout: … }`), and a call's argument whose
 *   parameter in the function called is so named (`describeReferenceExamples("go", needs, timeoutMs)`);
 * - the suite's default, jest's `testTimeout` (its own and each project's).
 * A constant is what the file can compute: numbers, arithmetic, and names bound by `const` in it or in a
 * module it imports by a relative path (re-exports followed). A value known only at run time (a
 * parameter, a `let`) is not followed; where it comes from a constant, that constant is checked where
 * it is written or passed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

import { bare, parse, ROOT, testFiles, where } from "./_syntax";

const LONGEST_MS = 10 * 60_000;
const RUNNERS = new Set(["test", "it", "fit", "xit", "xtest"]);
const HOOKS = new Set(["beforeAll", "afterAll", "beforeEach", "afterEach"]);
const TIMEOUT_NAME = /timeout/i;

/** What a module binds, as the check needs it: constants, imports, and its functions' parameter names. */
interface Module {
  source: ts.SourceFile;
  /** Every `const` of the module by name (a name bound more than once: each value). */
  constants: Map<string, ts.Expression[]>;
  /** Local name → where it comes from. */
  imports: Map<string, { file: string; name: string }>;
  /** Modules whose every export this one re-exports (`export * from`). */
  reexportsAll: string[];
  /** Function name → its parameters' names. */
  functions: Map<string, string[]>;
}

const modules = new Map<string, Module | undefined>();

/** The .ts file a relative import from `file` names, or undefined. */
function resolveImport(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.posix.join(path.posix.dirname(file), specifier);
  return [`${base}.ts`, `${base}/index.ts`].find((candidate) => fs.existsSync(path.join(ROOT, candidate)));
}

/** The module of `file` (repository-relative), read from disk unless `text` is given. */
function moduleOf(file: string, text?: string): Module | undefined {
  if (text === undefined && modules.has(file)) return modules.get(file);
  if (text === undefined && !fs.existsSync(path.join(ROOT, file))) return undefined;
  const source = parse(file, text ?? fs.readFileSync(path.join(ROOT, file), "utf8"));
  const module: Module = { source, constants: new Map(), imports: new Map(), reexportsAll: [], functions: new Map() };
  const paramNames = (fn: ts.SignatureDeclaration) => fn.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : ""));
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclarationList(node) && node.flags & ts.NodeFlags.Const) {
      for (const declaration of node.declarations) {
        if (!ts.isIdentifier(declaration.name) || !declaration.initializer) continue;
        const name = declaration.name.text;
        module.constants.set(name, [...(module.constants.get(name) ?? []), declaration.initializer]);
        const value = bare(declaration.initializer);
        if (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) module.functions.set(name, paramNames(value));
      }
    }
    if (ts.isFunctionDeclaration(node) && node.name) module.functions.set(node.name.text, paramNames(node));
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = resolveImport(file, node.moduleSpecifier.text);
      const named = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      if (from && named && (ts.isNamedImports(named) || ts.isNamedExports(named))) {
        for (const element of named.elements) module.imports.set(element.name.text, { file: from, name: (element.propertyName ?? element.name).text });
      }
      if (from && ts.isExportDeclaration(node) && !node.exportClause) module.reexportsAll.push(from);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (text === undefined) modules.set(file, module);
  return module;
}

/** Where `name`, as `module` sees it, is defined: its module, following imports and re-exports. */
function definitionOf(module: Module, name: string, depth = 0): { module: Module; name: string } | undefined {
  if (depth > 10) return undefined;
  if (module.constants.has(name) || module.functions.has(name)) return { module, name };
  const imported = module.imports.get(name);
  if (imported) {
    const from = moduleOf(imported.file);
    return from && definitionOf(from, imported.name, depth + 1);
  }
  for (const file of module.reexportsAll) {
    const from = moduleOf(file);
    const found = from && definitionOf(from, name, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The values `expression` may have, as far as the file can compute them: none when it cannot. */
function valuesOf(expression: ts.Expression, module: Module, depth = 0): number[] {
  const e = bare(expression);
  if (depth > 20) return [];
  if (ts.isNumericLiteral(e)) return [Number(e.text)];
  if (ts.isIdentifier(e)) {
    const found = definitionOf(module, e.text);
    return found ? (found.module.constants.get(found.name) ?? []).flatMap((value) => valuesOf(value, found.module, depth + 1)) : [];
  }
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken) return valuesOf(e.operand, module, depth + 1).map((v) => -v);
  if (ts.isConditionalExpression(e)) return [...valuesOf(e.whenTrue, module, depth + 1), ...valuesOf(e.whenFalse, module, depth + 1)];
  if (ts.isBinaryExpression(e)) {
    const apply: Partial<Record<ts.SyntaxKind, (a: number, b: number) => number>> = {
      [ts.SyntaxKind.PlusToken]: (a, b) => a + b,
      [ts.SyntaxKind.MinusToken]: (a, b) => a - b,
      [ts.SyntaxKind.AsteriskToken]: (a, b) => a * b,
      [ts.SyntaxKind.SlashToken]: (a, b) => a / b,
      [ts.SyntaxKind.AsteriskAsteriskToken]: (a, b) => a ** b,
      [ts.SyntaxKind.QuestionQuestionToken]: (a) => a,
    };
    const operation = apply[e.operatorToken.kind];
    if (!operation) return [];
    const [left, right] = [valuesOf(e.left, module, depth + 1), valuesOf(e.right, module, depth + 1)];
    if (e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return [...left, ...right];
    return left.flatMap((a) => right.map((b) => operation(a, b)));
  }
  return [];
}

/** The runner or hook a call's callee is (`test`, `test.each(t)`, `it.concurrent`, `testNeeding(n)`), or undefined. */
function runnerOf(callee: ts.Expression): string | undefined {
  const e = bare(callee);
  if (ts.isIdentifier(e)) return RUNNERS.has(e.text) || HOOKS.has(e.text) ? e.text : e.text === "testNeeding" ? "test" : undefined;
  if (ts.isPropertyAccessExpression(e)) return runnerOf(e.expression);
  if (ts.isCallExpression(e)) return runnerOf(e.expression);
  return undefined;
}

const isFunctionLiteral = (node: ts.Node | undefined): boolean => node !== undefined && (ts.isArrowFunction(bare(node as ts.Expression)) || ts.isFunctionExpression(bare(node as ts.Expression)));

/** The expressions of `module` that are timeouts. */
function timeoutsOf(module: Module): ts.Expression[] {
  const found: ts.Expression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const args = node.arguments;
      const runner = runnerOf(node.expression);
      const timeoutIndex = runner === undefined ? -1 : HOOKS.has(runner) ? 1 : 2;
      args.forEach((arg, i) => {
        if (i === timeoutIndex || isFunctionLiteral(args[i - 1])) found.push(arg);
      });
      const callee = bare(node.expression);
      if (ts.isPropertyAccessExpression(callee) && callee.getText(module.source) === "jest.setTimeout" && args[0]) found.push(args[0]);
      const called = ts.isIdentifier(callee) ? definitionOf(module, callee.text) : undefined;
      const parameters = called?.module.functions.get(called.name) ?? [];
      args.forEach((arg, i) => {
        if (TIMEOUT_NAME.test(parameters[i] ?? "")) found.push(arg);
      });
    }
    const named = ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node) || ts.isParameter(node) || ts.isBindingElement(node) ? node : undefined;
    if (named?.initializer && TIMEOUT_NAME.test(named.name.getText(module.source))) found.push(named.initializer);
    ts.forEachChild(node, visit);
  };
  visit(module.source);
  return [...new Set(found)];
}

/** `file:line: text` and the value of each timeout over LONGEST_MS in `file` (the text `text` when given). */
function longTimeoutsIn(file: string, text?: string): string[] {
  const module = moduleOf(file, text)!;
  return timeoutsOf(module).flatMap((timeout) => {
    const longest = Math.max(...valuesOf(timeout, module));
    return longest > LONGEST_MS ? [`${where(module.source, timeout)} = ${longest} ms`] : [];
  });
}

type JestConfig = { testTimeout?: number; projects?: unknown[] };

/** jest's configuration (jest.config.js, else package.json's `jest`) and each of its projects'. */
function jestConfigs(): JestConfig[] {
  const file = path.join(ROOT, "jest.config.js");
  const config = (fs.existsSync(file) ? require(file) : JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).jest) as JestConfig | undefined;
  return config ? [config, ...((config.projects ?? []).filter((project) => typeof project === "object") as JestConfig[])] : [];
}

describe(`no test waits more than ${LONGEST_MS / 60_000} minutes`, () => {
  test("no timeout in the test tree is longer", () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => longTimeoutsIn(file))).toEqual([]);
  });

  test("nor the suite's default", () => {
    const configs = jestConfigs();
    expect(configs.length).toBeGreaterThan(0);
    expect(configs.filter((config) => (config.testTimeout ?? 5_000) > LONGEST_MS)).toEqual([]);
  });

  test.each([
    'test("x", async () => {}, 11 * 60_000);',
    'it("x", function () {}, 3_600_000);',
    'beforeAll(async () => {}, 700_000);',
    "afterEach(() => {}, 10 * 60 * 1000 + 1);",
    'test.each([1])("x %s", async () => {}, 20 * 60_000);',
    'testNeeding({})("x", async () => {}, 20 * 60_000);',
    'test("x", run, 20 * 60_000);',
    'jest.setTimeout(3_600_000);',
    'setTimeout(() => done(), 11 * 60_000);',
    'const LONG = 20 * 60_000;\ntest("x", async () => {}, LONG);',
    'const A = 5 * 60_000;\nconst B = A * 3;\nbeforeAll(async () => {}, B);',
    'const GO_TIMEOUT_MS = 15 * 60_000;',
    'await execFileAsync("go", ["build"], { timeout: 15 * 60_000 });',
    'function build(dir: string, timeoutMs = 45 * 60_000) {}',
    'const run = (args: string[], buildTimeoutMs: number) => args;\nrun(["x"], 16 * 60_000);',
    // Imported: _workspace.ts's 3-minute constant, four times over.
    'import { E2E_TEST_TIMEOUT_MS } from "../../e2e/_workspace";\ntest("x", async () => {}, 4 * E2E_TEST_TIMEOUT_MS);',
  ])("the check finds %s", (source) => {
    expect(longTimeoutsIn("test/unit/structure/any.test.ts", source)).not.toEqual([]);
  });

  test("a timeout passed to a function of another module is read from that function's parameter names", () => {
    expect(longTimeoutsIn("test/e2e/any.test.ts", 'import { describeReferenceExamples } from "./_reference";\ndescribeReferenceExamples("go", {}, 20 * 60_000);')).toEqual([
      "test/e2e/any.test.ts:2: 20 * 60_000 = 1200000 ms",
    ]);
  });

  test("10 minutes, what is not a timeout, and what only the run knows pass", () => {
    expect(
      longTimeoutsIn(
        "test/unit/structure/any.test.ts",
        [
          'test("x", async () => {}, 10 * 60_000);',
          "const BYTES = 64 * 1024 * 1024;",
          'execFile("tar", [], { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });',
          "const hour = 3600_000;",
          'test("x", async () => {}, timeoutMs);',
        ].join("\n"),
      ),
    ).toEqual([]);
  });
});
