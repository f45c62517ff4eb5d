/**
 * Matcher semantics: the ONE implementation used by the linter, the hook runtime and `genv hooks test`.
 *
 * A matcher is an RE2 regular expression (re2js, never JS RegExp: linear time, RE2 syntax) that must
 * match the WHOLE tool name — full-match anchoring, as if written `^(?:matcher)$`. The spec's examples
 * decide it: `"code_execution"` is an "exact match", and `".*_file"` matches `view_file`,
 * `write_to_file` and `delete_file` but NOT `replace_file_content` (which an unanchored search would
 * match, since it contains `_file`).
 *
 * `"*"` and `""` are catch-alls matching every tool (spec: `".*"`, `"*"` or `""`), although `*` alone
 * is not valid RE2 and `""` as a full-match regex would only match the empty name.
 *
 * An invalid pattern (e.g. the shell glob `*_file`) matches nothing: the spec says such a glob "will
 * not match". Only its own rule is skipped; other rules and groups still run — one typo never disables
 * every guardrail, and `matches` never throws into the runtime. The linter reports it (`invalid-regex`
 * or `glob-matcher`) so it never reaches an environment unnoticed.
 */
import { RE2JS } from "re2js";

/** The built-in sandbox tools hooks can intercept (spec "Limits"). */
export const SANDBOX_TOOLS = ["code_execution", "view_file", "write_to_file", "replace_file_content", "list_dir", "delete_file"] as const;
export type SandboxTool = (typeof SANDBOX_TOOLS)[number];

/** A compiled matcher, or why RE2 rejects it. */
export type CompiledMatcher = { ok: true; test: (toolName: string) => boolean } | { ok: false; error: string };

const MATCH_ALL: CompiledMatcher = { ok: true, test: () => true };
const cache = new Map<string, CompiledMatcher>();
const CACHE_LIMIT = 1024; // patterns; a config holds a handful, this only bounds pathological inputs

/** True for the catch-alls `"*"` and `""`. (`".*"` also matches everything, as a regex.) */
export function isCatchAll(matcher: string): boolean {
  return matcher === "*" || matcher === "";
}

/** Compiles (once, cached) a matcher; never throws. */
export function compileMatcher(matcher: string): CompiledMatcher {
  if (isCatchAll(matcher)) return MATCH_ALL;
  const cached = cache.get(matcher);
  if (cached) return cached;
  let compiled: CompiledMatcher;
  try {
    const re = RE2JS.compile(matcher);
    compiled = { ok: true, test: (toolName) => re.matches(toolName) };
  } catch (error) {
    compiled = { ok: false, error: re2Message(error) };
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(matcher, compiled);
  return compiled;
}

/** Does `matcher` select the tool `toolName`? Full match; an invalid matcher selects nothing. */
export function matches(matcher: string, toolName: string): boolean {
  const compiled = compileMatcher(matcher);
  return compiled.ok && compiled.test(toolName);
}

/** Why RE2 rejects `matcher`, or undefined when it is valid. */
export function matcherError(matcher: string): string | undefined {
  const compiled = compileMatcher(matcher);
  return compiled.ok ? undefined : compiled.error;
}

/** The sandbox tools a matcher selects, in SANDBOX_TOOLS order. */
export function matchedTools(matcher: string): SandboxTool[] {
  return SANDBOX_TOOLS.filter((tool) => matches(matcher, tool));
}

function re2Message(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error parsing regexp:\s*/, "");
}
