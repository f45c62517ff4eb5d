/**
 * Typed builders for hooks configs, so that a Pulumi program reads like the policy it declares:
 *
 * ```ts
 * const hooks = hooksConfig({
 *   "security-gate": group().before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })),
 *   "audit-logging": group().after("view_file|write_to_file|replace_file_content",
 *     http("https://telemetry.example.com/api/v1/agent-events", { timeout: 10 })),
 * });
 * ```
 *
 * Builders only assemble data; `hooksConfig` validates it against the schema and throws on a structural
 * error. Policy checks (globs, unknown tools, egress, secrets) are the linter's: run `lintHooks`.
 */
import { ValidationError } from "../client/errors";
import { validationIssues } from "../client/issues";
import type { HandlerInput, HooksConfigInput, HooksGroupInput, OnFailure, RuleInput } from "./schema";
import { HooksConfig } from "./schema";

type CommandInput = Extract<HandlerInput, { type: "command" }>;
type HttpInput = Extract<HandlerInput, { type: "http" }>;

/**
 * A command handler: `commandLine` runs in the sandbox, reads the event on stdin, prints the decision.
 * `onFailure: "deny"` denies the call when the handler crashes, times out or prints no decision
 * (compiled into a wrapper where the config becomes sources: hooks/on-failure.ts).
 */
export function command(
  commandLine: string,
  options: {
    /** seconds, default 30 */
    timeout?: number;
    /** What a failure of the handler decides: `"allow"` (default, the runtime's rule) or `"deny"`. */
    onFailure?: OnFailure;
  } = {},
): CommandInput {
  const handler: CommandInput = { type: "command", command: commandLine };
  if (options.timeout !== undefined) handler.timeout = options.timeout;
  if (options.onFailure !== undefined) handler.on_failure = options.onFailure;
  return handler;
}

/** An HTTP handler: the event is POSTed to `url`; the response body is the decision. */
export function http(
  url: string,
  options: {
    /** Non-sensitive headers only, e.g. `{"X-Event-Source": "agent-sandbox"}`; credentials go on the allowlist. */
    headers?: Record<string, string>;
    /** seconds, default 30 */
    timeout?: number;
  } = {},
): HttpInput {
  const handler: HttpInput = { type: "http", url };
  if (options.headers !== undefined) handler.headers = { ...options.headers };
  if (options.timeout !== undefined) handler.timeout = options.timeout;
  return handler;
}

/** An immutable group under construction: each call returns a new builder. */
export class GroupBuilder {
  constructor(private readonly value: HooksGroupInput = {}) {}

  /** Adds a pre_tool_execution rule: `handlers` run, in order, before every tool `matcher` selects. */
  before(matcher: string, ...handlers: HandlerInput[]): GroupBuilder {
    return this.add("pre_tool_execution", { matcher, hooks: handlers });
  }

  /** Adds a post_tool_execution rule: `handlers` run, in order, after every tool `matcher` selects. */
  after(matcher: string, ...handlers: HandlerInput[]): GroupBuilder {
    return this.add("post_tool_execution", { matcher, hooks: handlers });
  }

  /** Switches the group on or off (`enabled` is written only when set). */
  enabled(on: boolean): GroupBuilder {
    return new GroupBuilder({ ...this.value, enabled: on });
  }

  /** The group as plain hooks.json data. */
  build(): HooksGroupInput {
    return structuredClone(this.value);
  }

  private add(event: "pre_tool_execution" | "post_tool_execution", rule: RuleInput): GroupBuilder {
    return new GroupBuilder({ ...this.value, [event]: [...(this.value[event] ?? []), rule] });
  }
}

/** Starts a group; `{enabled: false}` switches it off. */
export function group(options: { enabled?: boolean } = {}): GroupBuilder {
  return options.enabled === undefined ? new GroupBuilder() : new GroupBuilder({ enabled: options.enabled });
}

/**
 * A whole hooks config from named groups (builders or plain data), in the order given.
 * Throws a `ValidationError` whose issues name every structural problem (e.g. a timeout of 0).
 */
export function hooksConfig(groups: Record<string, GroupBuilder | HooksGroupInput>): HooksConfigInput {
  const config: HooksConfigInput = {};
  for (const [name, value] of Object.entries(groups)) {
    config[name] = value instanceof GroupBuilder ? value.build() : structuredClone(value);
  }
  const result = HooksConfig.safeParse(config);
  if (!result.success) throw new ValidationError("hooks config", validationIssues(result.error));
  return config;
}
