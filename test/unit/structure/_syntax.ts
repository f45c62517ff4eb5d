/** The test tree as the structure tests read it: every .ts file under test/ and every file jest runs, and its syntax tree. */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

export const ROOT = path.resolve(__dirname, "../../..");

const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");

/**
 * Every .ts file under test/ (helpers and support files too) and every file jest runs, whatever its
 * extension (`.js`, `.mjs`, `.cjs`, …): jest lists those itself (`--listTests`), from jest.config.js's
 * projects, roots, testMatch, testRegex and ignore patterns, so a pattern changed there is followed here.
 * Repository-relative with `/` separators.
 */
export function testFiles(): string[] {
  const sources = (fs.readdirSync(path.join(ROOT, "test"), { recursive: true }) as string[])
    .map((rel) => path.posix.join("test", rel.split(path.sep).join("/")))
    .filter((rel) => rel.endsWith(".ts") && !rel.includes("/node_modules/"));
  const run = JSON.parse(execFileSync(process.execPath, [require.resolve("jest/bin/jest"), "--listTests", "--json", "--no-watchman"], { cwd: ROOT, encoding: "utf8" })) as string[];
  return [...new Set([...sources, ...run.map(relative)])].sort();
}

/** The syntax tree of `text`, named `file` (repository-relative). */
export function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

/** `file:line: text` of `node`, as the structure tests report what they find. */
export function where(source: ts.SourceFile, node: ts.Node): string {
  return `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source)}`;
}

/** `expression` without parentheses, type assertions and `!`. */
export function bare(expression: ts.Expression): ts.Expression {
  while (
    ts.isParenthesizedExpression(expression) ||
    ts.isAsExpression(expression) ||
    ts.isSatisfiesExpression(expression) ||
    ts.isNonNullExpression(expression) ||
    ts.isTypeAssertionExpression(expression)
  ) {
    expression = expression.expression;
  }
  return expression;
}
