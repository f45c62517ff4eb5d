/**
 * A hooks config as every language declares it (schema.json's HooksGroup, HooksRule, HookHandler):
 * hooks.json's own shape (hooks/schema.ts) but for its handlers. A handler there is a union told
 * apart by `type` (`{"type": "command", "command": …}`), which Go cannot type (a union is an
 * `interface{}` there); here it is one object with a field per kind, `{command: {command: …}}` or
 * `{http: {url: …}}`, that Go and Python type-check, and `type` is set by the SDK (a const), not written.
 * hooks.json's form stays accepted (YAML programs written for 0.1.0). `hooksConfigToWire` makes the
 * hooks.json form of either.
 */
import { z } from "zod";
import { CommandHandler, Handler, HooksGroup, HttpHandler, Rule, type HandlerInput, type HooksConfigInput as HooksJsonConfig } from "../../hooks/schema";
import { bindableOr } from "../contracts/resource-schema";

const HANDLER_KINDS = ["command", "http"] as const;
type HandlerKind = (typeof HANDLER_KINDS)[number];

/** `type`, a const the SDK sets (its default): the field the handler is declared in says it already. */
const kind = <Kind extends HandlerKind>(name: Kind) => z.literal(name).default(name).meta({ description: `\`${name}\`, set by the SDK: leave it out.` });

export const CommandHandlerInput = CommandHandler.extend({ type: kind("command") }).meta(CommandHandler.meta()!);
export const HttpHandlerInput = HttpHandler.extend({ type: kind("http") }).meta(HttpHandler.meta()!);

export const HookHandlerInput = z
  .strictObject({
    command: CommandHandlerInput.optional().meta({ description: "Run a command line in the sandbox: the event JSON on stdin, the decision JSON on stdout." }),
    http: HttpHandlerInput.optional().meta({ description: "POST the event JSON to an HTTPS endpoint, whose response body is the decision JSON." }),
  })
  .superRefine((handler, ctx) => {
    const set = HANDLER_KINDS.filter((name) => handler[name] !== undefined);
    if (set.length !== 1) ctx.addIssue({ code: "custom", message: `must set exactly one of command and http (${set.length === 0 ? "none is set" : "both are set"})` });
  })
  .meta({ description: "One handler of a rule: `command` or `http`, exactly one." });

/** A handler as declared: `{command: {…}}` or `{http: {…}}`, or hooks.json's `{type: "command", …}`. */
const HandlerDeclared = bindableOr(HookHandlerInput, Handler, {
  error: 'must be {command: {command: "…"}} or {http: {url: "…"}} (hooks.json\'s {"type": "command", …} is accepted too)',
});

export const RuleInput = Rule.extend({ hooks: z.array(HandlerDeclared, { error: "must be an array of handlers" }).meta(Rule.shape.hooks.meta()!) }).meta(Rule.meta()!);

const Rules = z.array(RuleInput, { error: "must be an array of rules" }).optional();

export const HooksGroupInput = HooksGroup.extend({
  pre_tool_execution: Rules.meta(HooksGroup.shape.pre_tool_execution.meta()!),
  post_tool_execution: Rules.meta(HooksGroup.shape.post_tool_execution.meta()!),
}).meta(HooksGroup.meta()!);

export const HooksConfigInput = z
  .record(z.string(), HooksGroupInput, { error: 'must be an object of named groups, e.g. {"security-gate": {…}}' })
  .meta({ description: "The whole `.agents/hooks.json`: an object of named groups, in declared order." });
export type HooksConfigInput = z.input<typeof HooksConfigInput>;

/** The hooks.json form of a declared config (hook file names kept): each `{command: {…}}` is `{type: "command", …}`. */
export function hooksConfigToWire(config: HooksConfigInput): HooksJsonConfig {
  const group = (rules: Array<z.input<typeof RuleInput>> | undefined) => rules?.map((rule) => ({ ...rule, hooks: rule.hooks.map(handlerToWire) }));
  return Object.fromEntries(
    Object.entries(config).map(([name, { pre_tool_execution, post_tool_execution, ...rest }]) => [
      name,
      { ...rest, ...(pre_tool_execution && { pre_tool_execution: group(pre_tool_execution) }), ...(post_tool_execution && { post_tool_execution: group(post_tool_execution) }) },
    ]),
  );
}

function handlerToWire(handler: z.input<typeof HandlerDeclared>): HandlerInput {
  if ("type" in handler) return handler;
  const name = HANDLER_KINDS.find((kind) => handler[kind] !== undefined);
  return (name === undefined ? handler : { type: name, ...handler[name] }) as HandlerInput;
}
