/**
 * A test that needs something of the machine skips through `describeNeeding`/`testNeeding`
 * (test/support/prerequisites.ts), which CI (GENV_TESTS_REQUIRE_ALL=1) turns into a failure naming what
 * is missing; a test's own skip would stay a silent skip there, a `.todo` is a test that is not there,
 * and a focused one (`.only`, `fit`) silently drops the rest of its file. So no test file but that one
 * uses, read from each file's syntax tree (a comment or a string naming them is no use):
 * - `skip`, `only` or `todo` of `describe`, `test` or `it`, called or passed on, `.each` and
 *   `.concurrent` chains included, as a property or as an element (`describe["skip"]`; an element the
 *   file computes, `test[mode]`, counts too, as it could be one);
 * - `xdescribe`, `xtest`, `xit`, `fdescribe`, `fit`;
 * - the same through an alias: a name bound to a runner or to anything taken from one (`const t = test`,
 *   `d = ready ? describe : other`, `const { concurrent } = test`, `import { test as t } from
 *   "@jest/globals"`, `globalThis.test`), and `skip`, `only` or `todo` taken out by destructuring
 *   (`const { skip } = test`).
 * Aliases are told apart by name within a file, not by scope. A runner passed into a function or returned
 * from one is not followed: that is how prerequisites.ts hands out its runners.
 *
 * One exception, written out below: the release test skips starting the single executable of a
 * platform this machine is not (the arm64 executable on x64), which no prerequisite can provide here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

import { bare, parse, ROOT, testFiles, where } from "./_syntax";

const ALLOWED_FILE = "test/support/prerequisites.ts";
/** The runners, and what holds them too (`globalThis.test`). */
const RUNNERS = ["describe", "test", "it", "globalThis", "global"];
/** Where an import or a `require` gets the runners from explicitly. */
const JEST_GLOBALS = "@jest/globals";
const DROPPING_RUNNERS = new Set(["xdescribe", "xtest", "xit", "fdescribe", "fit"]);
/** What a runner's member may not be: the modifiers, and the dropping runners (`globalThis.fit`). */
const DROPPING_MEMBERS = new Set(["skip", "only", "todo", ...DROPPING_RUNNERS]);

/**
 * The one skip outside prerequisites.ts: in the release test, `test.skip` titled
 * `starts (a ${platform} machine is needed)`, in the branch where `platform` is not this machine's (the
 * `else` of `if (platform === HOST)`).
 */
function isOtherPlatformSkip(file: string, node: ts.Node, source: ts.SourceFile): boolean {
  if (file !== "test/integration/release/artifacts.test.ts") return false;
  const call = node.parent;
  if (!ts.isCallExpression(call) || call.expression !== node || node.getText(source) !== "test.skip") return false;
  if (call.arguments[0]?.getText(source) !== "`starts (a ${platform} machine is needed)`") return false;
  for (let inner: ts.Node = call, outer = call.parent; outer; inner = outer, outer = outer.parent) {
    if (ts.isIfStatement(outer) && outer.elseStatement === inner && outer.expression.getText(source) === "platform === HOST") return true;
  }
  return false;
}

const isRequireOfJestGlobals = (call: ts.CallExpression): boolean =>
  ts.isIdentifier(call.expression) && call.expression.text === "require" && ts.isStringLiteralLike(call.arguments[0] ?? call) && (call.arguments[0] as ts.StringLiteralLike).text === JEST_GLOBALS;

/**
 * Whether `expression` may be a runner or something taken from one: a runner's name or alias, a member of
 * one (`test.concurrent`, `globalThis["test"]`), either branch of `?:`, either side of `||`, `&&`, `??`,
 * the value of `=` and `,`, `require("@jest/globals")`.
 */
function mayBeRunner(expression: ts.Expression, runners: ReadonlySet<string>): boolean {
  const e = bare(expression);
  if (ts.isIdentifier(e)) return runners.has(e.text);
  if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) return mayBeRunner(e.expression, runners);
  if (ts.isConditionalExpression(e)) return mayBeRunner(e.whenTrue, runners) || mayBeRunner(e.whenFalse, runners);
  if (ts.isCallExpression(e)) return isRequireOfJestGlobals(e);
  if (!ts.isBinaryExpression(e)) return false;
  switch (e.operatorToken.kind) {
    case ts.SyntaxKind.EqualsToken:
    case ts.SyntaxKind.CommaToken:
      return mayBeRunner(e.right, runners);
    case ts.SyntaxKind.BarBarToken:
    case ts.SyntaxKind.AmpersandAmpersandToken:
    case ts.SyntaxKind.QuestionQuestionToken:
      return mayBeRunner(e.left, runners) || mayBeRunner(e.right, runners);
    default:
      return false;
  }
}

/** The runners' names and every alias of them in `source`, to a fixed point (an alias of an alias). */
function runnersIn(source: ts.SourceFile): Set<string> {
  const runners = new Set(RUNNERS);
  const bind = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) runners.add(name.text);
    else for (const element of name.elements) if (ts.isBindingElement(element)) bind(element.name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.initializer && mayBeRunner(node.initializer, runners)) bind(node.name);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(node.left) && mayBeRunner(node.right, runners)) runners.add(node.left.text);
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === JEST_GLOBALS && node.importClause) {
      const { name, namedBindings } = node.importClause;
      if (name) runners.add(name.text);
      if (namedBindings && ts.isNamespaceImport(namedBindings)) runners.add(namedBindings.name.text);
      if (namedBindings && ts.isNamedImports(namedBindings)) for (const element of namedBindings.elements) runners.add(element.name.text);
    }
    ts.forEachChild(node, visit);
  };
  for (let size = -1; size !== runners.size; ) {
    size = runners.size;
    visit(source);
  }
  return runners;
}

/** Whether an object pattern destructures a runner (`const { skip } = test`, nested patterns included). */
function destructuresRunner(pattern: ts.ObjectBindingPattern, runners: ReadonlySet<string>): boolean {
  const holder = pattern.parent;
  if (ts.isVariableDeclaration(holder)) return holder.initializer !== undefined && mayBeRunner(holder.initializer, runners);
  return ts.isBindingElement(holder) && ts.isObjectBindingPattern(holder.parent) && destructuresRunner(holder.parent, runners);
}

/** The member a binding element takes out of an object, or undefined when the file computes it. */
function memberOf(element: ts.BindingElement): string | undefined {
  const key = element.propertyName ?? element.name;
  if (ts.isIdentifier(key) || ts.isStringLiteralLike(key)) return key.text;
  if (ts.isComputedPropertyName(key) && ts.isStringLiteralLike(key.expression)) return key.expression.text;
  return undefined;
}

/** Whether `identifier` is a use of a value, not a name being declared or a member's name. */
function isReference(identifier: ts.Identifier): boolean {
  const parent = identifier.parent;
  if (ts.isShorthandPropertyAssignment(parent)) return true;
  if (ts.isBindingElement(parent) && parent.propertyName === identifier) return false;
  return !("name" in parent && parent.name === identifier);
}

/** `file:line: text` of each skip, focus or todo in `file` (repository-relative) that is not the exception. */
function skipsIn(file: string, text: string): string[] {
  const source = parse(file, text);
  const runners = runnersIn(source);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    let dropping = false;
    if (ts.isPropertyAccessExpression(node)) {
      dropping = DROPPING_MEMBERS.has(node.name.text) && mayBeRunner(node.expression, runners);
    } else if (ts.isElementAccessExpression(node)) {
      const member = node.argumentExpression;
      dropping = mayBeRunner(node.expression, runners) && !(ts.isStringLiteralLike(member) && !DROPPING_MEMBERS.has(member.text));
    } else if (ts.isIdentifier(node)) {
      dropping = DROPPING_RUNNERS.has(node.text) && isReference(node);
    } else if (ts.isBindingElement(node) && !node.dotDotDotToken && ts.isObjectBindingPattern(node.parent)) {
      const member = memberOf(node);
      dropping = (member === undefined || DROPPING_MEMBERS.has(member)) && destructuresRunner(node.parent, runners);
    }
    if (dropping && !isOtherPlatformSkip(file, node, source)) found.push(where(source, node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("skips go through test/support/prerequisites.ts", () => {
  test("no test file skips, focuses or leaves a todo on its own", () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    const skips = files.filter((file) => file !== ALLOWED_FILE).flatMap((file) => skipsIn(file, fs.readFileSync(path.join(ROOT, file), "utf8")));
    expect(skips).toEqual([]);
  });

  test.each([
    // Skipped.
    'describe.skip("x", () => {});',
    'test.skip("x", () => {});',
    'it.skip("x", () => {});',
    '(ready ? describe : describe.skip)("x", () => {});',
    'test.skip.each([1])("x %s", () => {});',
    'xdescribe("x", () => {});',
    'xtest("x", () => {});',
    'xit("x", () => {});',
    // Focused: the rest of the file silently does not run.
    'test.only("x", () => {});',
    'describe.only("x", () => {});',
    'it.only("x", () => {});',
    'describe.only.each([1])("x %s", () => {});',
    'test.concurrent.only("x", async () => {});',
    'fit("x", () => {});',
    'fdescribe("x", () => {});',
    // Left to do.
    'test.todo("x");',
    'it.todo("x");',
    // As elements.
    'describe["skip"]("x", () => {});',
    'test["only"]("x", () => {});',
    "it[`todo`](\"x\");",
    'test[mode]("x", () => {});',
    // Through an alias.
    'const d = describe.skip; d("x", () => {});',
    'const t = test; t.skip("x", () => {});',
    'let t; t = ready ? it : other; t.only("x", () => {});',
    'const a = test; const b = a; b.todo("x");',
    'const t = (globalThis as any).test as typeof test; t.only("x", () => {});',
    'const { concurrent } = test; concurrent.only("x", async () => {});',
    'const { skip } = test; skip("x", () => {});',
    'const { only: focused } = describe; focused("x", () => {});',
    'const { concurrent: { skip } } = test; skip("x", async () => {});',
    'const { ["todo"]: later } = it; later("x");',
    'import { test as t } from "@jest/globals"; t.skip("x", () => {});',
    'import * as jestGlobals from "@jest/globals"; jestGlobals.describe.only("x", () => {});',
    'const g = require("@jest/globals"); g.it.todo("x");',
    'globalThis.fit("x", () => {});',
    'import { fit } from "@jest/globals"; fit("x", () => {});',
  ])("the check finds %s", (way) => {
    expect(skipsIn("test/unit/any.test.ts", way)).toHaveLength(1);
  });

  test("what only names a skip, or is not a runner's, passes", () => {
    expect(skipsIn("test/unit/any.test.ts", '// describe.skip, test.only\nconst note = "test.todo";\nrunner.skip();\noptions.only = true;\nshape.fit;\nconst { skip } = options;')).toEqual([]);
    expect(skipsIn("test/unit/any.test.ts", 'test.each([1])("x %s", () => {});\ntest["each"]([1])("x %s", () => {});\nconst t = test;\nt("x", () => {});\nconst { each } = describe;')).toEqual([]);
  });

  test("only the other platform's start is let through", () => {
    const release = (branch: string, title = "`starts (a ${platform} machine is needed)`") =>
      `if (platform === HOST) {\n  test("starts", run);\n} ${branch}\n`.replace("SKIP", `test.skip(${title}, () => undefined);`);
    expect(skipsIn("test/integration/release/artifacts.test.ts", release('else if (platform.startsWith("darwin-")) {} else { SKIP }'))).toEqual([]);
    expect(skipsIn("test/integration/release/artifacts.test.ts", release("else { SKIP }"))).toEqual([]);
    // Elsewhere, under another title, where the platform is this machine's, or focused: reported.
    expect(skipsIn("test/integration/release/other.test.ts", release("else { SKIP }"))).toHaveLength(1);
    expect(skipsIn("test/integration/release/artifacts.test.ts", release("else { SKIP }", '"starts"'))).toHaveLength(1);
    expect(skipsIn("test/integration/release/artifacts.test.ts", "if (platform === HOST) { test.skip(`starts (a ${platform} machine is needed)`, () => undefined); }")).toHaveLength(1);
    expect(skipsIn("test/integration/release/artifacts.test.ts", release("else { SKIP }").replace("test.skip", "test.only"))).toHaveLength(1);
  });
});
