/**
 * An environment's `.agents/hooks.json` as the rules see it: where it comes from (an inline source the
 * pack can read and lint, a copied source it cannot, or nowhere), and for an inline one its parse, the
 * hooks linter's findings against the environment's own network, and its HTTP handlers.
 */
import { jsonPointer, lintHooks, type Finding } from "../hooks/lint";
import { isCatchAll, matchedTools } from "../hooks/matcher";
import { HooksConfig } from "../hooks/schema";
import { copiedSourcesCovering, HOOKS_JSON_TARGET, inlineSourceAt, networkForLint, type EnvironmentView, type SourceView } from "./inputs";

export type HooksFile =
  /** Not known yet (preview), or binary: nothing to say. */
  | { from: "unknown" }
  | { from: "nowhere" }
  /** Copied in by repository, gcs or skill_registry sources: present, but its content is not visible here. */
  | { from: "copied"; sources: SourceView[] }
  | { from: "inline"; source: SourceView; parsed: ParsedHooks };

export type ParsedHooks =
  | { ok: false; problem: string }
  | {
      ok: true;
      findings: Finding[];
      /** pre_tool_execution rules of enabled groups whose matcher reaches at least one sandbox tool. */
      effectivePreRules: number;
      httpHandlers: Array<{ pointer: string; url: string }>;
    };

/** Where `view`'s hooks.json comes from, parsed and linted when inline. */
export function hooksFile(view: EnvironmentView): HooksFile {
  if (view.sources === "unknown") return { from: "unknown" };
  const inline = inlineSourceAt(view.sources, HOOKS_JSON_TARGET);
  if (inline) return inline.text === undefined ? { from: "unknown" } : { from: "inline", source: inline, parsed: parseHooks(inline.text, view) };
  const copied = copiedSourcesCovering(view.sources, HOOKS_JSON_TARGET);
  return copied.length > 0 ? { from: "copied", sources: copied } : { from: "nowhere" };
}

/** `sources[3] (.agents/hooks.json)`: how messages name a source. */
export function sourceLabel(source: SourceView): string {
  const what = source.type === "inline" ? source.target : `${source.type} ${source.source ?? ""}`.trim();
  return `sources[${source.index}] (${what ?? "the environment root"})`;
}

function parseHooks(text: string, view: EnvironmentView): ParsedHooks {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text around the error, which may hold a secret: keep only the position.
    const position = /position (\d+)/.exec(String((error as Error).message))?.[1];
    return { ok: false, problem: `is not valid JSON${position === undefined ? "" : ` at character ${position}`}` };
  }
  const findings = lintHooks(json, { network: networkForLint(view.network), held: true });
  const config = HooksConfig.safeParse(json);
  let effectivePreRules = 0;
  const httpHandlers: Array<{ pointer: string; url: string }> = [];
  for (const [name, group] of Object.entries(config.data ?? {})) {
    if (group.enabled) {
      effectivePreRules += (group.pre_tool_execution ?? []).filter((rule) => isCatchAll(rule.matcher) || matchedTools(rule.matcher).length > 0).length;
    }
    for (const event of ["pre_tool_execution", "post_tool_execution"] as const) {
      (group[event] ?? []).forEach((rule, r) =>
        rule.hooks.forEach((handler, h) => {
          if (handler.type === "http") httpHandlers.push({ pointer: jsonPointer([name, event, r, "hooks", h, "url"]), url: handler.url });
        }),
      );
    }
  }
  return { ok: true, findings, effectivePreRules, httpHandlers };
}
