/**
 * A test that needs something of the machine skips through `describeNeeding`/`testNeeding`
 * (test/support/prerequisites.ts), which CI (GENV_TESTS_REQUIRE_ALL=1) turns into a failure naming what
 * is missing; a test's own `describe.skip` would stay a silent skip there. So no test file but that one
 * uses `describe.skip`, `test.skip`, `it.skip` (called or passed on, `.each` and the like included) or
 * `xdescribe`, `xtest`, `xit`, read from each file's syntax tree (so a comment or a string naming them
 * is no use).
 *
 * One exception, written out below: the release test skips starting the single executable of a
 * platform this machine is not (the arm64 executable on x64), which no prerequisite can provide here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "../../..");
const ALLOWED_FILE = "test/support/prerequisites.ts";
const RUNNERS = new Set(["describe", "test", "it"]);
const SKIPPING_RUNNERS = new Set(["xdescribe", "xtest", "xit"]);

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

/** The leftmost identifier of `a.b.c`. */
function rootOf(expression: ts.Expression): ts.Expression {
  return ts.isPropertyAccessExpression(expression) ? rootOf(expression.expression) : expression;
}

/** `file:line: text` of each skip in `file` (repository-relative) that is not the exception. */
function skipsIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node): void => {
    if (isOtherPlatformSkip(file, node, source)) return;
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source)}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === "skip") {
      const root = rootOf(node.expression);
      if (ts.isIdentifier(root) && RUNNERS.has(root.text)) report(node);
    } else if (ts.isIdentifier(node) && SKIPPING_RUNNERS.has(node.text) && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)) {
      report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function testFiles(): string[] {
  return (fs.readdirSync(path.join(ROOT, "test"), { recursive: true }) as string[])
    .map((rel) => path.posix.join("test", rel.split(path.sep).join("/")))
    .filter((rel) => rel.endsWith(".ts") && !rel.includes("/node_modules/"));
}

describe("skips go through test/support/prerequisites.ts", () => {
  test("no test file skips on its own", () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    const skips = files.filter((file) => file !== ALLOWED_FILE).flatMap((file) => skipsIn(file, fs.readFileSync(path.join(ROOT, file), "utf8")));
    expect(skips).toEqual([]);
  });

  test("the check finds each way to skip, and lets only the other platform's start through", () => {
    const ways = [
      'describe.skip("x", () => {});',
      'test.skip("x", () => {});',
      'it.skip("x", () => {});',
      "(ready ? describe : describe.skip)(\"x\", () => {});",
      'test.skip.each([1])("x %s", () => {});',
      'xdescribe("x", () => {});',
      'xtest("x", () => {});',
      'xit("x", () => {});',
    ];
    for (const way of ways) expect(skipsIn("test/unit/any.test.ts", way)).toHaveLength(1);
    expect(skipsIn("test/unit/any.test.ts", '// describe.skip\nconst note = "test.skip";\nrunner.skip();')).toEqual([]);

    const release = (branch: string, title = "`starts (a ${platform} machine is needed)`") =>
      `if (platform === HOST) {\n  test("starts", run);\n} ${branch}\n`.replace("SKIP", `test.skip(${title}, () => undefined);`);
    expect(skipsIn("test/integration/release/artifacts.test.ts", release('else if (platform.startsWith("darwin-")) {} else { SKIP }'))).toEqual([]);
    expect(skipsIn("test/integration/release/artifacts.test.ts", release("else { SKIP }"))).toEqual([]);
    // Elsewhere, under another title, or where the platform is this machine's: reported.
    expect(skipsIn("test/integration/release/other.test.ts", release("else { SKIP }"))).toHaveLength(1);
    expect(skipsIn("test/integration/release/artifacts.test.ts", release("else { SKIP }", '"starts"'))).toHaveLength(1);
    expect(skipsIn("test/integration/release/artifacts.test.ts", "if (platform === HOST) { test.skip(`starts (a ${platform} machine is needed)`, () => undefined); }")).toHaveLength(1);
  });
});
