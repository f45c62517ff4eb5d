/**
 * The one issue model of every part — the client's validation, the sandbox, the provider's check,
 * `HookBundle` and the CLI: `{path, code, message}`, collected as data and rendered once, at the edge
 * that shows it to a person (`sources[2].target: "../x" escapes the environment root`).
 *
 * Each boundary that hands issues on puts its own prefix in front of the path (`atPath`); nothing
 * parses or edits a message to move it or rename a field.
 *
 * Codes, one convention for each kind:
 * - `code` of an Error class is `GENV_<UPPER_SNAKE>`: `GENV_VALIDATION`, `GENV_UNKNOWN_TOOL`,
 *   `GENV_INVALID_HOOK_BUNDLE`. Callers branch on it.
 * - `code` of an issue is kebab-case: `unknown-field`, `invalid-type`, the hooks linter's
 *   `loopback-url`. Zod's codes are taken over as they are, in kebab-case (`too_small` → `too-small`);
 *   a refinement may name its own with `params: {code}`.
 */
import type { z } from "zod";

export interface Issue {
  /** Where, from the root of the value the boundary checked, e.g. `["sources", 2, "target"]`; `[]` is the value itself. */
  path: (string | number)[];
  /** Kebab-case kind of problem, stable: `unknown-field`, `invalid-type`, `custom`. */
  code: string;
  /** What is wrong and what to do, without the path: `"../x" escapes the environment root`. */
  message: string;
}

/** An issue at `path`. */
export function issueAt(path: Issue["path"], code: string, message: string): Issue {
  return { path, code, message };
}

/** `issues` as seen from one level up: `prefix` in front of each path. */
export function atPath(prefix: Issue["path"], issues: ReadonlyArray<Issue>): Issue[] {
  return issues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] }));
}

/** `sources[2].target` from `["sources", 2, "target"]`. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** `sources[2].target: "../x" escapes the environment root`; the message alone for the value itself. */
export function renderIssue(issue: Issue): string {
  return issue.path.length > 0 ? `${formatIssuePath(issue.path)}: ${issue.message}` : issue.message;
}

/** `sources[2].target: …; network: …` */
export function describeIssues(issues: ReadonlyArray<Issue>): string {
  return issues.map(renderIssue).join("; ");
}

// ---------------------------------------------------------------------------------------------
// From zod
// ---------------------------------------------------------------------------------------------

/** One issue per problem, unknown keys split so that each names its field. */
export function validationIssues(error: z.core.$ZodError, prefix: Issue["path"] = []): Issue[] {
  const issues: Issue[] = [];
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path.map(pathKey)];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) issues.push(issueAt([...path, key], "unknown-field", "is not a known field: remove it or check its spelling"));
      continue;
    }
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // Report the branch that got furthest rather than "invalid input".
      const best = [...issue.errors].sort((a, b) => deepest(b) - deepest(a))[0];
      if (best.length > 0 && deepest(best) >= 1) {
        issues.push(...validationIssues({ issues: best } as z.core.$ZodError, path));
        continue;
      }
    }
    issues.push(issueAt(path, zodCode(issue), issue.message));
  }
  return issues;
}

function zodCode(issue: z.core.$ZodIssue): string {
  const own = issue.code === "custom" ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  return typeof own === "string" ? own : issue.code.split("_").join("-");
}

function pathKey(key: PropertyKey): string | number {
  return typeof key === "number" ? key : String(key);
}

function deepest(issues: ReadonlyArray<z.core.$ZodIssue>): number {
  return Math.max(0, ...issues.map((issue) => issue.path.length));
}
