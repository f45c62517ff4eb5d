/**
 * The hooks.json model of spec/HOOKS.md: the file's schema, the event payload a hook receives and the
 * decision it answers with.
 *
 * The file schema is strict (an unknown event name or field is an error naming it) so that a typo such
 * as `pre_tool_use` or `matchers` is caught by the linter instead of silently disabling a guardrail.
 * Defaults (`enabled: true`, `timeout: 30`) are applied on parse: `HooksConfigInput` is what a file or a
 * builder holds, `HooksConfig` what the runtime works with.
 */
import { z } from "zod";

// ---------------------------------------------------------------------------------------------
// Defaults
// ---------------------------------------------------------------------------------------------

/** Handler timeout when `timeout` is omitted: 30 s. */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** The two events a rule can hook. */
export const HOOK_EVENTS = ["pre_tool_execution", "post_tool_execution"] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];
export const HookEventName = z.enum(HOOK_EVENTS).meta({
  description: "The moment a rule's hooks run.",
  valueDescriptions: {
    pre_tool_execution: "Just before a tool runs: a handler may deny the call.",
    post_tool_execution: "Just after a tool finishes: handlers observe it and cannot block or undo it.",
  },
});

/** What a hook decides about a tool call. */
export const Decision = z.enum(["allow", "deny"], { error: 'must be "allow" or "deny"' }).meta({
  description: "What a hook decides about a tool call.",
  valueDescriptions: { allow: "The call goes ahead.", deny: "The call is refused, with the hook's reason." },
});

// ---------------------------------------------------------------------------------------------
// hooks.json
// ---------------------------------------------------------------------------------------------

const Timeout = z
  .number({ error: "must be a number of seconds, e.g. 10" })
  .int({ error: "must be a whole number of seconds" })
  .positive({ error: "must be greater than 0 seconds (omit it for the default of 30)" })
  .default(DEFAULT_TIMEOUT_SECONDS);

/**
 * What a handler's failure decides (crash, timeout, no decision). `allow` is the runtime's own rule
 * (spec "Decisions and failures"); `deny` is this project's: the held hooks.json cannot say it, so
 * a `deny` command handler is compiled into a wrapper that answers for it (on-failure.ts).
 */
export const OnFailure = z.enum(["allow", "deny"], { error: 'must be "allow" or "deny"' }).meta({
  description: "What the call gets when the handler fails: it crashes, runs past its timeout or prints no decision.",
  valueDescriptions: {
    allow: "The call goes ahead, as the runtime decides (the default).",
    deny: "The call is denied, the reason naming the failure: the handler is run by a wrapper that answers for it.",
  },
});
export type OnFailure = z.infer<typeof OnFailure>;

const NonEmpty = (what: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `is required: ${what}` : `must be a string: ${what}`) }).min(1, {
    error: `must not be empty: ${what}`,
  });

export const CommandHandler = z
  .strictObject({
    type: z.literal("command").meta({ description: "`command`." }),
    command: NonEmpty("the command line to run, e.g. python3 /.agents/hooks-scripts/gate.py").meta({
      description: "Command line run in the sandbox, e.g. `python3 /.agents/hooks-scripts/gate.py`.",
    }),
    timeout: Timeout.meta({ description: "Seconds before the handler is abandoned (and the call allowed). Default 30." }),
    on_failure: OnFailure.optional().meta({
      description:
        "`deny`: a crash, a timeout or output that is no decision denies the call instead of allowing it (the handler runs in a wrapper that answers before `timeout`). Default `allow`, the runtime's rule; the held hooks.json never carries this field.",
    }),
  })
  .meta({ description: "Runs a command line in the sandbox; the event JSON on stdin, the decision JSON on stdout." });
export type CommandHandler = z.infer<typeof CommandHandler>;

export const HttpHandler = z
  .strictObject({
    type: z.literal("http").meta({ description: "`http`." }),
    url: NonEmpty("the HTTPS endpoint that receives the event")
      .refine(isHttpUrl, { error: "must be an absolute http(s) URL, e.g. https://telemetry.example.com/api/v1/agent-events" })
      .meta({ description: "External HTTPS endpoint, e.g. `https://telemetry.example.com/api/v1/agent-events`." }),
    headers: z
      .record(z.string(), z.string({ error: "header values must be strings" }), { error: "must be an object of header names to string values" })
      .optional()
      .meta({ description: 'Non-sensitive headers, e.g. `{"X-Event-Source": "agent-sandbox"}`; credentials go on the network allowlist.' }),
    timeout: Timeout.meta({ description: "Seconds before the handler is abandoned (and the call allowed). Default 30." }),
    on_failure: OnFailure.optional().meta({
      description: "Only `allow`: the service makes the request, so nothing in the sandbox can answer for it. For `deny`, use a command handler that calls the URL.",
    }),
  })
  .meta({ description: "POSTs the event JSON to an external HTTPS endpoint; the response body is the decision JSON." });
export type HttpHandler = z.infer<typeof HttpHandler>;

export const Handler = z.discriminatedUnion("type", [CommandHandler, HttpHandler], {
  error: (issue) => {
    const input = issue.input;
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return 'must be a handler object: {"type": "command", "command": …} or {"type": "http", "url": …}';
    }
    const type = (input as { type?: unknown }).type;
    return type === undefined ? 'is required: "command" or "http"' : `must be "command" or "http" (got ${JSON.stringify(type)})`;
  },
});
export type Handler = z.infer<typeof Handler>;

export const Rule = z
  .strictObject({
    matcher: z
      .string({ error: (issue) => (issue.input === undefined ? "is required: a tool name or RE2 pattern, e.g. code_execution" : "must be a string") })
      .meta({ description: 'RE2 regular expression over the tool name, e.g. `code_execution` or `view_file|write_to_file`; `*` or `""` for every tool.' }),
    hooks: z.array(Handler, { error: "must be an array of handlers" }).meta({ description: "Handlers run one after another, in declared order." }),
  })
  .meta({ description: "One rule: when `matcher` (RE2, full match, see matcher.ts) matches the tool name, run `hooks` in order." });
export type Rule = z.infer<typeof Rule>;

const Rules = z.array(Rule, { error: "must be an array of rules" }).optional();

export const HooksGroup = z
  .strictObject(
    {
      enabled: z.boolean({ error: "must be true or false" }).default(true).meta({ description: "`false` disables every rule of the group. Default `true`." }),
      pre_tool_execution: Rules.meta({ description: "Rules run just before a tool runs; a handler may deny the call." }),
      post_tool_execution: Rules.meta({ description: "Rules run just after a tool finishes; they cannot block or undo it." }),
    },
    { error: "must be an object with pre_tool_execution and/or post_tool_execution" },
  )
  .meta({ description: "A named group of rules that can be switched off on its own." });
export type HooksGroup = z.infer<typeof HooksGroup>;

export const HooksConfig = z
  .record(z.string(), HooksGroup, { error: 'must be an object of named groups, e.g. {"security-gate": {…}}' })
  .meta({ description: "The whole `.agents/hooks.json`: an object of named groups, in declared order." });
/** A parsed config: defaults applied. */
export type HooksConfig = z.infer<typeof HooksConfig>;
/** A config as written in hooks.json or built with builders.ts: defaults may be omitted. */
export type HooksConfigInput = z.input<typeof HooksConfig>;
export type HooksGroupInput = z.input<typeof HooksGroup>;
export type RuleInput = z.input<typeof Rule>;
export type HandlerInput = z.input<typeof Handler>;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname.length > 0;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Event payload and decision
// ---------------------------------------------------------------------------------------------

/** stdin of a command hook, body of an HTTP hook's POST. */
export const HookEvent = z.object({
  tool_call: z.object({
    /** Sandbox tool name, e.g. `code_execution`. */
    name: z.string(),
    args: z.record(z.string(), z.unknown()),
  }),
  environment_id: z.string(),
  /** post_tool_execution only: stderr of a shell command or a filesystem error; omitted on success. */
  error: z.string().optional(),
});
export type HookEvent = z.infer<typeof HookEvent>;

/** stdout of a command hook, body of an HTTP hook's response. */
export const HookDecision = z.object({
  decision: Decision,
  reason: z.string().optional(),
});
export type HookDecision = z.infer<typeof HookDecision>;

/**
 * Reads a hook's answer. Only a JSON object whose `decision` is exactly `"deny"` denies; anything else
 * — `{"decision": "allow"}`, `{}`, other JSON, plain text, an empty answer — counts as allow (fail
 * open, spec "Decisions and failures"). The whole output, trimmed, must be the JSON object: a script that
 * logs to stdout before its decision is not recognised; log to stderr. A non-string `reason` is dropped.
 */
export function parseDecision(stdoutOrBody: string): HookDecision {
  let value: unknown;
  try {
    value = JSON.parse(stdoutOrBody.trim());
  } catch {
    return { decision: "allow" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { decision: "allow" };
  const { decision, reason } = value as Record<string, unknown>;
  if (decision !== "deny") return { decision: "allow" };
  return typeof reason === "string" ? { decision: "deny", reason } : { decision: "deny" };
}
