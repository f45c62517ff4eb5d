import { compileMatcher, matchedTools, matcherError, matches, SANDBOX_TOOLS } from "../../../hooks/matcher";

const ALL = [...SANDBOX_TOOLS];

describe("matches: full-match RE2 over the tool name (spec examples)", () => {
  test.each<[string, string[]]>([
    ["code_execution", ["code_execution"]],
    ["write_to_file", ["write_to_file"]],
    ["view_file|write_to_file", ["view_file", "write_to_file"]],
    [".*_file", ["view_file", "write_to_file", "delete_file"]],
    [".*", ALL],
    ["*", ALL],
    ["", ALL],
    ["view_file|write_to_file|replace_file_content", ["view_file", "write_to_file", "replace_file_content"]],
    ["_file", []], // anchored: no substring match
    ["code", []],
    ["*_file", []], // a shell glob is invalid RE2 and matches nothing
    ["(", []],
  ])("%j selects %j", (matcher, expected) => {
    expect(matchedTools(matcher)).toEqual(expected);
  });

  test(".*_file does not select replace_file_content nor list_dir", () => {
    expect(matches(".*_file", "replace_file_content")).toBe(false);
    expect(matches(".*_file", "list_dir")).toBe(false);
  });

  test("an exact name does not match a longer name", () => {
    expect(matches("code_execution", "code_execution_v2")).toBe(false);
  });

  test("invalid patterns never throw and match nothing; the error is reported", () => {
    expect(() => matches("a{1001}", "view_file")).not.toThrow();
    expect(matches("*_file", "view_file")).toBe(false);
    expect(matcherError("*_file")).toMatch(/missing argument to repetition operator/);
    expect(matcherError("view_file")).toBeUndefined();
    expect(matcherError("*")).toBeUndefined();
  });

  test("compiled matchers are cached", () => {
    expect(compileMatcher("view_file|list_dir")).toBe(compileMatcher("view_file|list_dir"));
  });

  test("RE2 syntax, not JS RegExp: lookahead is rejected", () => {
    expect(matcherError("(?=view)view_file")).toBeDefined();
  });
});
