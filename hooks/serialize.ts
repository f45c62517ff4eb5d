/**
 * Deterministic hooks.json text, so that a change to a hooks config shows up in a PR as a minimal diff.
 *
 * - Groups keep their declared order: it is the order in which matching groups run, so it carries
 *   meaning and is the author's to choose.
 * - Inside a group, rule and handler the keys have a fixed order, whatever the input's order:
 *   group `enabled`, `pre_tool_execution`, `post_tool_execution`; rule `matcher`, `hooks`;
 *   command `type`, `command`, `timeout`, `on_failure`; http `type`, `url`, `headers`, `timeout`,
 *   `on_failure` (an environment's hooks.json never holds `on_failure`: on-failure.ts compiles it away).
 * - HTTP headers are sorted by name (case-insensitively): their order carries no meaning.
 * - Omitted optional fields stay omitted (no defaults written), unknown fields are dropped.
 * - 2-space indent, trailing newline.
 */
import type { HandlerInput, HooksConfigInput, HooksGroupInput, RuleInput } from "./schema";
import { HOOK_EVENTS } from "./schema";

/** The hooks.json text of `config`. */
export function serializeHooks(config: HooksConfigInput): string {
  const groups: Record<string, unknown> = {};
  for (const [name, group] of Object.entries(config)) groups[name] = orderGroup(group);
  return `${JSON.stringify(groups, null, 2)}\n`;
}

function orderGroup(group: HooksGroupInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (group.enabled !== undefined) out.enabled = group.enabled;
  for (const event of HOOK_EVENTS) {
    const rules = group[event];
    if (rules !== undefined) out[event] = rules.map(orderRule);
  }
  return out;
}

function orderRule(rule: RuleInput): Record<string, unknown> {
  return { matcher: rule.matcher, hooks: rule.hooks.map(orderHandler) };
}

function orderHandler(handler: HandlerInput): Record<string, unknown> {
  const out: Record<string, unknown> = handler.type === "command" ? { type: "command", command: handler.command } : { type: "http", url: handler.url };
  if (handler.type === "http" && handler.headers !== undefined) out.headers = sortedHeaders(handler.headers);
  if (handler.timeout !== undefined) out.timeout = handler.timeout;
  if (handler.on_failure !== undefined) out.on_failure = handler.on_failure;
  return out;
}

function sortedHeaders(headers: Record<string, string>): Record<string, string> {
  const names = Object.keys(headers).sort((a, b) => {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
  });
  const out: Record<string, string> = {};
  for (const name of names) out[name] = headers[name] as string;
  return out;
}
