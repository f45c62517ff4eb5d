/** The test tree as the structure tests read it: every .ts file under test/, and its syntax tree. */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

export const ROOT = path.resolve(__dirname, "../../..");

/** Every .ts file under test/, repository-relative with `/` separators. */
export function testFiles(): string[] {
  return (fs.readdirSync(path.join(ROOT, "test"), { recursive: true }) as string[])
    .map((rel) => path.posix.join("test", rel.split(path.sep).join("/")))
    .filter((rel) => rel.endsWith(".ts") && !rel.includes("/node_modules/"));
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
