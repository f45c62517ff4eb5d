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
 * A constant is what the file can compute: numbers, arithmetic, `Math.max` and `Math.min`, names bound
 * by `const` in it or in a module it imports by a relative path (re-exports followed), a property of a
 * `const` object literal (`LIMITS.build`), and what `timeLeftOf(budget)` leaves (at most `budget`). A
 * value known only at run time (a parameter, a `let`, a property of one, a clock reading) is not
 * followed; where it comes from a constant, that constant is checked where it is written or passed. Any
 * other timeout fails, naming its file and line: it could be any length. An argument that is a timeout
 * only by following a function literal is checked when it can be computed (it is as often a `.then`'s
 * second handler or a `reduce`'s start).
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
  /** Names bound at run time: parameters, `let`s, destructured names, loop and catch variables. */
  runTime: Set<string>;
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
  const module: Module = { source, constants: new Map(), runTime: new Set(), imports: new Map(), reexportsAll: [], functions: new Map() };
  const paramNames = (fn: ts.SignatureDeclaration) => fn.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : ""));
  const bindAtRunTime = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) module.runTime.add(name.text);
    else for (const element of name.elements) if (ts.isBindingElement(element)) bindAtRunTime(element.name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node)) {
      const isConst = ts.isVariableDeclarationList(node.parent) && node.parent.flags & ts.NodeFlags.Const;
      if (isConst && ts.isIdentifier(node.name) && node.initializer) {
        const name = node.name.text;
        module.constants.set(name, [...(module.constants.get(name) ?? []), node.initializer]);
        const value = bare(node.initializer);
        if (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) module.functions.set(name, paramNames(value));
      } else {
        bindAtRunTime(node.name);
      }
    }
    if (ts.isParameter(node)) bindAtRunTime(node.name);
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

/**
 * The values `expression` may have, as far as the file can compute them; each part it cannot is added
 * to `unknown`. A name bound at run time (a parameter, a `let`), or a property of one, has no value here
 * and is no failure: where it comes from a constant, that constant is checked where it is written.
 */
function valuesOf(expression: ts.Expression, module: Module, unknown: string[], depth = 0): number[] {
  const e = bare(expression);
  const cannot = (): number[] => (unknown.push(e.getText(module.source)), []);
  if (depth > 20) return cannot();
  if (ts.isNumericLiteral(e)) return [Number(e.text)];
  if (NOT_A_NUMBER.has(e.kind)) return [];
  if (ts.isIdentifier(e)) {
    const found = definitionOf(module, e.text);
    if (found) return (found.module.constants.get(found.name) ?? []).flatMap((value) => valuesOf(value, found.module, unknown, depth + 1));
    if (isRunTime(module, e.text)) return [];
    if (e.text === "undefined") return [];
    if (e.text === "Infinity") return [Infinity];
    return cannot();
  }
  if (ts.isPropertyAccessExpression(e) || (ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression))) {
    const member = ts.isPropertyAccessExpression(e) ? e.name.text : (e.argumentExpression as ts.StringLiteralLike).text;
    const objects = objectsOf(e.expression, module, depth + 1);
    if (objects === "run time") return [];
    const values = (objects ?? []).map(({ literal, module: from }) => memberOf(literal, member, from, unknown, depth + 1));
    return objects === undefined || values.includes(undefined) ? cannot() : values.flatMap((value) => value!);
  }
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken) return valuesOf(e.operand, module, unknown, depth + 1).map((v) => -v);
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.PlusToken) return valuesOf(e.operand, module, unknown, depth + 1);
  if (ts.isConditionalExpression(e)) return [...valuesOf(e.whenTrue, module, unknown, depth + 1), ...valuesOf(e.whenFalse, module, unknown, depth + 1)];
  if (ts.isCallExpression(e)) {
    const callee = e.expression.getText(module.source);
    if (CLOCKS.has(callee)) return [];
    const budgets = budgetsOf(e.expression, module, depth + 1);
    if (budgets) return budgets.flatMap((budget) => valuesOf(budget.expression, budget.module, unknown, depth + 1));
    const math = MATH.get(callee);
    if (!math) return cannot();
    // Each combination of the arguments' values; an argument known only at run time makes the result so too.
    const combinations = e.arguments.reduce<number[][] | undefined>((sofar, argument) => {
      const values = valuesOf(argument, module, unknown, depth + 1);
      return sofar && values.length > 0 ? sofar.flatMap((combination) => values.map((value) => [...combination, value])) : undefined;
    }, [[]]);
    return combinations?.map((combination) => math(...combination)) ?? [];
  }
  if (ts.isBinaryExpression(e)) {
    const apply: Partial<Record<ts.SyntaxKind, (a: number, b: number) => number>> = {
      [ts.SyntaxKind.PlusToken]: (a, b) => a + b,
      [ts.SyntaxKind.MinusToken]: (a, b) => a - b,
      [ts.SyntaxKind.AsteriskToken]: (a, b) => a * b,
      [ts.SyntaxKind.SlashToken]: (a, b) => a / b,
      [ts.SyntaxKind.AsteriskAsteriskToken]: (a, b) => a ** b,
      [ts.SyntaxKind.QuestionQuestionToken]: (a) => a,
      [ts.SyntaxKind.BarBarToken]: (a) => a,
    };
    const operation = apply[e.operatorToken.kind];
    if (!operation) return cannot();
    const [left, right] = [valuesOf(e.left, module, unknown, depth + 1), valuesOf(e.right, module, unknown, depth + 1)];
    if (e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || e.operatorToken.kind === ts.SyntaxKind.BarBarToken) return [...left, ...right];
    return left.flatMap((a) => right.map((b) => operation(a, b)));
  }
  return cannot();
}

/** What is no number, so no timeout: `null`, a function, an object, a string, an error (`const timeout = new TimeoutError(…)`). */
const NOT_A_NUMBER = new Set([
  ts.SyntaxKind.NullKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ClassExpression,
  ts.SyntaxKind.ObjectLiteralExpression,
  ts.SyntaxKind.ArrayLiteralExpression,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateExpression,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.NewExpression,
]);

/** Readings of the clock: known at run time only (a wait until a moment, `Math.max(0, deadline - Date.now())`). */
const CLOCKS = new Set(["Date.now", "Date.parse", "performance.now"]);

const MATH = new Map<string, (...values: number[]) => number>([
  ["Math.max", Math.max],
  ["Math.min", Math.min],
]);

/** test/support/commands.ts's `timeLeftOf(budget)`: a function whose every call gives what is left of `budget`, so at most `budget`. */
const TIME_LEFT = { file: "test/support/commands.ts", name: "timeLeftOf" };

/** The budgets a called function measures out (`timeLeftOf(budget)`, or a `const` bound to it: `left` of `left()`, each one bound so), or undefined. */
function budgetsOf(callee: ts.Expression, module: Module, depth: number): Array<{ expression: ts.Expression; module: Module }> | undefined {
  const e = bare(callee);
  if (depth > 20) return undefined;
  if (ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.arguments[0]) {
    const found = definitionOf(module, e.expression.text);
    if (found?.name === TIME_LEFT.name && found.module.source.fileName === TIME_LEFT.file) return [{ expression: e.arguments[0], module }];
  }
  if (!ts.isIdentifier(e)) return undefined;
  const found = definitionOf(module, e.text);
  const budgets = (found?.module.constants.get(found.name) ?? []).map((value) => budgetsOf(value, found!.module, depth + 1));
  return budgets.length > 0 && budgets.every((budget) => budget !== undefined) ? budgets.flat() : undefined;
}

/** Whether `module` binds `name` at run time, or imports it from a module that does. */
function isRunTime(module: Module, name: string, depth = 0): boolean {
  if (module.runTime.has(name)) return true;
  const imported = module.imports.get(name);
  const from = imported && depth < 10 ? moduleOf(imported.file) : undefined;
  return from !== undefined && isRunTime(from, imported!.name, depth + 1);
}

/** The object literals `expression` is bound to by `const` (`LIMITS` of `LIMITS.build`, nested ones too), "run time" for a value only the run knows, or undefined. */
function objectsOf(expression: ts.Expression, module: Module, depth: number): Array<{ literal: ts.ObjectLiteralExpression; module: Module }> | "run time" | undefined {
  const e = bare(expression);
  if (depth > 20) return undefined;
  if (ts.isObjectLiteralExpression(e)) return [{ literal: e, module }];
  if (ts.isIdentifier(e)) {
    const found = definitionOf(module, e.text);
    if (!found) return isRunTime(module, e.text) ? "run time" : undefined;
    const objects = (found.module.constants.get(found.name) ?? []).map((value) => objectsOf(value, found.module, depth + 1));
    return objects.every((object) => Array.isArray(object)) ? objects.flat() : undefined;
  }
  if (ts.isPropertyAccessExpression(e)) {
    const outer = objectsOf(e.expression, module, depth + 1);
    if (outer === "run time" || outer === undefined) return outer;
    const inner = outer.map(({ literal, module: from }) => {
      const property = literal.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText(from.source) === e.name.text) as ts.PropertyAssignment | undefined;
      return property ? objectsOf(property.initializer, from, depth + 1) : undefined;
    });
    return inner.every((object) => Array.isArray(object)) ? inner.flat() : undefined;
  }
  // A parameter's property (`options.limits`) or a call's result: known at run time only when its root is.
  return undefined;
}

/** The values of `literal`'s property `member`, or undefined when the literal has no such property it can read (one from a spread). */
function memberOf(literal: ts.ObjectLiteralExpression, member: string, module: Module, unknown: string[], depth: number): number[] | undefined {
  const property = literal.properties.find((p) => (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name.getText(module.source).replace(/^["'`]|["'`]$/g, "") === member);
  if (property === undefined) return undefined;
  return valuesOf(ts.isPropertyAssignment(property) ? property.initializer : (property as ts.ShorthandPropertyAssignment).name, module, unknown, depth);
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

/**
 * The expressions of `module` that are timeouts, each with whether it surely is one: an argument that
 * is one only by following a function literal may as well be a `.then`'s second handler, a `reduce`'s
 * start or a server's port.
 */
function timeoutsOf(module: Module): Map<ts.Expression, boolean> {
  const found = new Map<ts.Expression, boolean>();
  const add = (expression: ts.Expression, surely: boolean) => found.set(expression, surely || (found.get(expression) ?? false));
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const args = node.arguments;
      const runner = runnerOf(node.expression);
      const timeoutIndex = runner === undefined ? -1 : HOOKS.has(runner) ? 1 : 2;
      const callee = bare(node.expression);
      const isTimer = ts.isIdentifier(callee) && callee.text === "setTimeout";
      args.forEach((arg, i) => {
        if (i === timeoutIndex || (isTimer && i === 1)) add(arg, true);
        else if (isFunctionLiteral(args[i - 1])) add(arg, false);
      });
      if (ts.isPropertyAccessExpression(callee) && callee.getText(module.source) === "jest.setTimeout" && args[0]) add(args[0], true);
      const called = ts.isIdentifier(callee) ? definitionOf(module, callee.text) : undefined;
      const parameters = called?.module.functions.get(called.name) ?? [];
      args.forEach((arg, i) => {
        if (TIMEOUT_NAME.test(parameters[i] ?? "")) add(arg, true);
      });
    }
    const named = ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node) || ts.isParameter(node) || ts.isBindingElement(node) ? node : undefined;
    if (named?.initializer && TIMEOUT_NAME.test(named.name.getText(module.source))) add(named.initializer, true);
    ts.forEachChild(node, visit);
  };
  visit(module.source);
  return found;
}

/**
 * `file:line: text` and the value of each timeout over LONGEST_MS in `file` (the text `text` when given),
 * and of each the check cannot compute, with what it cannot: such a timeout could be any length.
 */
function longTimeoutsIn(file: string, text?: string): string[] {
  const module = moduleOf(file, text)!;
  return [...timeoutsOf(module)].flatMap(([timeout, surely]) => {
    const unknown: string[] = [];
    const longest = Math.max(...valuesOf(timeout, module, unknown));
    if (unknown.length > 0 && surely) return [`${where(module.source, timeout)}: cannot be computed here (${unknown.join(", ")})`];
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
    'const LIMITS = { build: 3_600_000 };\ntest("x", async () => {}, LIMITS.build);',
    'const HOUR = 3_600_000;\ntest("x", async () => {}, Math.max(HOUR, 1));',
  ])("the check finds %s", (source) => {
    expect(longTimeoutsIn("test/unit/structure/any.test.ts", source)).not.toEqual([]);
  });

  test("a timeout passed to a function of another module is read from that function's parameter names", () => {
    expect(longTimeoutsIn("test/e2e/any.test.ts", 'import { describeReferenceExamples } from "./_reference";\ndescribeReferenceExamples("go", {}, 20 * 60_000);')).toEqual([
      "test/e2e/any.test.ts:2: 20 * 60_000 = 1200000 ms",
    ]);
  });

  test("a timeout it cannot compute fails, named by its file and line", () => {
    expect(longTimeoutsIn("test/unit/structure/any.test.ts", 'const limits = loadLimits();\ntest("x", async () => {}, limits.build);\nbeforeAll(async () => {}, hours(1));')).toEqual([
      "test/unit/structure/any.test.ts:2: limits.build: cannot be computed here (limits.build)",
      "test/unit/structure/any.test.ts:3: hours(1): cannot be computed here (hours(1))",
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
          'const testFor = (timeoutMs: number) => test("x", async () => {}, timeoutMs);',
          "let budget = 60_000;\nsetTimeout(() => undefined, Math.max(0, budget - Date.now()));",
          "const timeout = new TimeoutError(\"slow\", 100);",
          'import { timeLeftOf } from "../../support/commands";\nconst left = timeLeftOf(5 * 60_000);\nawait run(["go", "build"], { timeout: left() });',
          "const total = sizes.reduce((sum, size) => sum + size, header.length);",
        ].join("\n"),
      ),
    ).toEqual([]);
  });
});
