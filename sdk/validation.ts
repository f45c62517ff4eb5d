/**
 * Turning zod issues into messages a person can act on: `sources[2].target: "../x" escapes the
 * environment root`. Used by the client, the provider's check and the emulator alike.
 */
import type { z } from "zod";

/** `sources[2].target` from `["sources", 2, "target"]`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

export interface ValidationIssue {
  /** Property path from the root of the validated value, e.g. `sources[2].target`. */
  path: string;
  message: string;
}

/** One issue per problem, unknown keys split so that each names its field. */
export function validationIssues(error: z.core.$ZodError, prefix: ReadonlyArray<PropertyKey> = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        issues.push({ path: formatPath([...prefix, ...issue.path, key]), message: "is not a known field: remove it or check its spelling" });
      }
      continue;
    }
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // Report the branch that got furthest rather than "invalid input".
      const best = [...issue.errors].sort((a, b) => deepest(b) - deepest(a))[0];
      if (best.length > 0 && deepest(best) >= 1) {
        for (const inner of best) issues.push(...validationIssues({ issues: [inner] } as z.core.$ZodError, [...prefix, ...issue.path]));
        continue;
      }
    }
    issues.push({ path: formatPath([...prefix, ...issue.path]), message: issue.message });
  }
  return issues;
}

function deepest(issues: ReadonlyArray<z.core.$ZodIssue>): number {
  return Math.max(0, ...issues.map((issue) => issue.path.length));
}

/** `sources[2].target: "../x" escapes the environment root; network: …` */
export function describeIssues(issues: ReadonlyArray<ValidationIssue>): string {
  return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join("; ");
}
