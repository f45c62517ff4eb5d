/**
 * The hooks linter in the Environment's `check`: an inline source at `.agents/hooks.json` (the path the
 * hook runtime discovers, spec/HOOKS.md) is parsed and linted against the environment's own network,
 * and every error-severity finding becomes an issue at the source's `content` (its message starts with
 * the linter's JSON pointer into the file and code), so a glob matcher, an HTTP hook to a host the
 * allowlist blocks or a credential in a header stops the preview:
 *
 * ```
 * sources[3].content: /security-gate/pre_tool_execution/0/matcher: glob-matcher: "*_file" is a shell glob, …
 * ```
 *
 * Warnings cannot leave a dynamic provider's check; `GuardedEnvironment` reports them at program time.
 * Messages never echo hooks.json text beyond what the linter quotes (matchers, hosts): the linter names
 * a credential in a header without its value, and a JSON syntax error is reported by position only.
 */
import { lintHooks } from "../../hooks/lint";
import { issueAt, type Issue } from "../../client/issues";
import { Network } from "../../client/schemas";
import { containsUnknown } from "./inputs";

/** Where the hook runtime looks for hooks.json, relative to the environment root. */
export const HOOKS_JSON_TARGET = ".agents/hooks.json";

/**
 * Issues (paths from `sources`: `[3, "content"]`) for the hooks.json among `sources`. Sources or a
 * network not yet known (preview) are skipped: an unknown network is linted as "all egress allowed",
 * so that no egress error is reported before the allowlist is known.
 */
export function hooksCheckIssues(sources: unknown, network: unknown): Issue[] {
  if (!Array.isArray(sources)) return [];
  const knownNetwork = containsUnknown(network) ? undefined : Network.safeParse(network).data;
  const issues: Issue[] = [];
  sources.forEach((source: unknown, index) => {
    if (!isHooksJsonSource(source) || containsUnknown(source)) return;
    for (const { code, message } of hooksJsonErrors(source, knownNetwork)) issues.push(issueAt([index, "content"], code, message));
  });
  return issues;
}

/**
 * The hooks.json errors most recently found, by the text and the network they were found for: the
 * environments of a fleet share one hooks.json, and a preview checks each of them, so the linter
 * runs once for it (≈ half of a check's time otherwise, bench fleet). A few entries, so that
 * fleets of a few hooks configs interleaved still hit; the oldest goes first.
 */
const RECENT_ERRORS = new Map<string, HooksJsonError[]>();
const RECENT_ERRORS_KEPT = 16;

interface HooksJsonError {
  code: string;
  message: string;
}

function hooksJsonErrors(source: InlineSource, network: Network | undefined): HooksJsonError[] {
  const key = JSON.stringify([source.content, source.encoding ?? null, network ?? null]);
  const recent = RECENT_ERRORS.get(key);
  if (recent) return recent;
  const errors = lintedErrors(source, network);
  if (RECENT_ERRORS.size >= RECENT_ERRORS_KEPT) RECENT_ERRORS.delete(RECENT_ERRORS.keys().next().value!);
  RECENT_ERRORS.set(key, errors);
  return errors;
}

function lintedErrors(source: InlineSource, network: Network | undefined): HooksJsonError[] {
  const parsed = parseContent(source.content, source.encoding);
  if ("problem" in parsed) return [{ code: "invalid-json", message: parsed.problem }];
  return lintHooks(parsed.json, { network, inlineSourced: true, held: true })
    .filter((finding) => finding.severity === "error")
    .map((finding) => ({ code: finding.code, message: `${finding.path ? `${finding.path}: ` : ""}${finding.code}: ${finding.message}` }));
}

interface InlineSource {
  type: "inline";
  target: string;
  content: string;
  encoding?: unknown;
}

function isHooksJsonSource(source: unknown): source is InlineSource {
  if (typeof source !== "object" || source === null) return false;
  const { type, target, content } = source as Record<string, unknown>;
  return type === "inline" && target === HOOKS_JSON_TARGET && typeof content === "string";
}

function parseContent(content: string, encoding: unknown): { json: unknown } | { problem: string } {
  const text = encoding === "base64" ? Buffer.from(content, "base64").toString("utf8") : content;
  try {
    return { json: JSON.parse(text) };
  } catch (error) {
    // V8's message quotes the text around the error, which may hold a secret: keep only the position.
    const position = /position (\d+)/.exec(String((error as Error).message))?.[1];
    const where = position === undefined ? "" : ` at character ${position}`;
    return { problem: `is not valid JSON${where}: hooks.json must be a JSON object of named groups, e.g. {"security-gate": {…}}` };
  }
}
