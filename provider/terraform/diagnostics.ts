/**
 * The cores' issues and paths as Terraform's diagnostics and attribute paths: `sources[0].target`
 * (the cores' names, contracts/property-diff.ts's notation) is the path `sources` → element 0 →
 * `target`, and `fromEnvironment` is `from_environment`, so that Terraform points at the attribute in
 * the configuration and the message names it as the configuration does.
 */
import { formatIssuePath } from "../../client/issues";
import type { CheckFailure } from "../contracts/resource-core";
import type { TerraformAttribute } from "./schema";

export type Severity = "ERROR" | "WARNING";

/** An AttributePath as the proto loader takes it. */
export interface AttributePath {
  steps: Array<{ attribute_name: string } | { element_key_int: number } | { element_key_string: string }>;
}

export interface Diagnostic {
  severity: Severity;
  summary: string;
  detail: string;
  attribute?: AttributePath;
}

type Segment = string | number;

/**
 * The segments of a path written as the cores write them (`sources[1].content`,
 * `network.allowlist[0].transform[0]["X-Key"]`), and the text after it (a failure's `: message`).
 */
export function parsePath(text: string): { path: Segment[]; rest: string } {
  const path: Segment[] = [];
  const first = /^([A-Za-z_][A-Za-z0-9_]*)/;
  const next = /^(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;
  let rest = text;
  for (let match = first.exec(rest); match !== null; match = next.exec(rest)) {
    if (match[1] !== undefined) path.push(match[1]);
    else if (match[2] !== undefined) path.push(Number(match[2]));
    else path.push(JSON.parse(match[3]) as string);
    rest = rest.slice(match[0].length);
  }
  return { path, rest };
}

/** Terraform's path (snake_case names) of a path in the core's names; a segment the schema lacks ends it. */
export function terraformPath(attributes: readonly TerraformAttribute[], path: readonly Segment[]): { segments: Segment[]; attribute: AttributePath } {
  const segments: Segment[] = [];
  const steps: AttributePath["steps"] = [];
  let current: readonly TerraformAttribute[] | undefined = attributes;
  let inCollection = false;
  for (const segment of path) {
    if (typeof segment === "number") {
      steps.push({ element_key_int: segment });
      segments.push(segment);
      inCollection = false;
      continue;
    }
    const attribute: TerraformAttribute | undefined = inCollection ? undefined : current?.find((candidate) => candidate.property === segment || candidate.name === segment);
    if (!attribute) {
      // A map's key (a header name, a script's name).
      if (current !== undefined && !inCollection) break;
      steps.push({ element_key_string: segment });
      segments.push(segment);
      inCollection = false;
      continue;
    }
    steps.push({ attribute_name: attribute.name });
    segments.push(attribute.name);
    current = attribute.nested?.attributes;
    inCollection = attribute.nested === undefined;
  }
  return { segments, attribute: { steps } };
}

/** A check failure (its reason starts with the full path) as a diagnostic at that attribute. */
export function failureDiagnostic(attributes: readonly TerraformAttribute[], failure: CheckFailure, severity: Severity = "ERROR"): Diagnostic {
  const { path, rest } = parsePath(failure.reason);
  if (path.length === 0 || !rest.startsWith(": ")) return { severity, summary: failure.reason, detail: "", ...(failure.property && { attribute: terraformPath(attributes, [failure.property]).attribute }) };
  const { segments, attribute } = terraformPath(attributes, path);
  return { severity, summary: `${formatIssuePath(segments)}: ${rest.slice(2)}`, detail: "", attribute: locatable(attribute) };
}

/**
 * The part of a path Terraform can find in the configuration's text: the attribute and the elements
 * of a list under it (`sources[0]`), but not an attribute of an object written in the expression
 * (`sources[0].target`), after which it would point at the whole resource block instead. The
 * summary names the full path.
 */
function locatable(path: AttributePath): AttributePath {
  const end = path.steps.findIndex((step, index) => index > 0 && "attribute_name" in step);
  return { steps: end < 0 ? path.steps : path.steps.slice(0, end) };
}

/** An error as a diagnostic: its message, and its causes' as the detail. */
export function errorDiagnostic(error: unknown, what = ""): Diagnostic {
  const message = error instanceof Error ? error.message : String(error);
  const causes: string[] = [];
  for (let cause = (error as Error | undefined)?.cause; cause instanceof Error && causes.length < 3; cause = cause.cause) causes.push(cause.message);
  return { severity: "ERROR", summary: what ? `${what}: ${message}` : message, detail: causes.join("\n") };
}
