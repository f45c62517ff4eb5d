/**
 * Shell globs written where a regex is expected, and top-level alternatives of a pattern.
 */
import { compileMatcher, isCatchAll, matchedTools } from "./matcher";

/**
 * The regex the author of a glob-style matcher meant (`*_file` → `.*_file`, `view_*` → `view_.*`), or
 * undefined when `matcher` is not a glob. A `*` is glob-style when it opens the pattern, follows `|` or
 * `(`, or follows a plain name character; it counts as a mistake when the pattern is invalid RE2 or
 * when reading it as a glob selects more sandbox tools than reading it as a regex (`view_*` as RE2 is
 * "view" followed by underscores and selects nothing). Bare `*` is the allowed catch-all.
 */
export function globSuggestion(matcher: string): string | undefined {
  if (isCatchAll(matcher)) return undefined;
  let suggestion = "";
  let globStars = 0;
  let inClass = false;
  let previous: "start" | "name" | "open" | "other" = "start";
  for (let i = 0; i < matcher.length; i++) {
    const c = matcher[i] as string;
    if (c === "\\") {
      suggestion += matcher.slice(i, i + 2);
      i += 1;
      previous = "other";
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      suggestion += c;
      continue;
    }
    if (c === "[") inClass = true;
    if (c === "*" && previous !== "other") {
      suggestion += ".*";
      globStars += 1;
      previous = "other";
      continue;
    }
    suggestion += c;
    previous = /[A-Za-z0-9_-]/.test(c) ? "name" : c === "|" || c === "(" ? "open" : "other";
  }
  if (globStars === 0 || !compileMatcher(suggestion).ok) return undefined;
  if (!compileMatcher(matcher).ok) return suggestion;
  return matchedTools(suggestion).length > matchedTools(matcher).length ? suggestion : undefined;
}

/** The alternatives of `a|b|c` at nesting depth 0 (outside groups and classes); one element when none. */
export function topLevelAlternatives(matcher: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < matcher.length; i++) {
    const c = matcher[i];
    if (c === "\\") {
      i += 1;
    } else if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
    } else if (c === "(") {
      depth += 1;
    } else if (c === ")") {
      depth -= 1;
    } else if (c === "|" && depth === 0) {
      parts.push(matcher.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(matcher.slice(start));
  return parts;
}
