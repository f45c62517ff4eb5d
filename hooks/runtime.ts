/**
 * The hooks runtime of spec/HOOKS.md: discovers `.agents/hooks.json` in an environment tree, runs the
 * `pre_tool_execution` handlers that match a tool call, runs the tool unless one denied it, then runs
 * the `post_tool_execution` handlers. Shared by the emulator's `:executeTool` and `genv hooks test`,
 * so it imports nothing of the emulator: the sandbox (command hooks), the HTTP delivery and the tool
 * itself are injected functions.
 *
 * Decisions (spec rules first, then where the spec is silent):
 * - Every enabled group (`enabled` defaults to true) runs, in declared order; inside a group, every
 *   rule whose matcher matches (RE2 full match, `matcher.ts`) runs, in declared order; a rule's
 *   handlers run one after another, in declared order. An invalid matcher skips only its own rule.
 * - A pre handler denies only with a recognised `{"decision": "deny"}` (`parseDecision`) from a run
 *   that succeeded. A crash or non-zero exit, a timeout (the sandbox kills the process tree at the
 *   handler's `timeout`), a non-2xx or undelivered HTTP hook, or unrecognised output allows: the
 *   failure is recorded in the handler's `failure`, and the next handler runs (fail open).
 * - The first deny cancels the call at once ("le runtime annule immédiatement l'appel d'outil"): the
 *   remaining pre handlers do not run and are reported with decision `skipped`; the tool does not
 *   run; no post hooks run (there was no tool execution to follow up). The tool's error result — what
 *   the model sees — is the deny's reason (`DEFAULT_DENY_REASON` when it gave none).
 * - Post handlers get the pre payload plus `error` when the tool failed (stderr written, filesystem
 *   error, killed); on success the field is absent. Their output is ignored: decision `ignored`.
 * - hooks.json is read once per tool call (before the pre hooks) and that snapshot serves both
 *   events, so a tool call that rewrites it takes effect from the next call. A missing file means no
 *   hooks. An unreadable file, a symlink leading out of the tree, invalid JSON or a schema error
 *   means no hooks run, reported as one `failure` entry (handler `.agents/hooks.json`): fail open.
 *   So does an `on_failure` field: this project's, compiled away before a config becomes sources
 *   (on-failure.ts); the runtime, as the seed's, knows no such field.
 * - Group order is the JSON object's key order as JavaScript keeps it: integer-like group names
 *   (`"1"`, `"42"`) come first. Name groups with words.
 */
import { performance } from "node:perf_hooks";
import { describeIssues, validationIssues } from "../client/issues";
import type { ExecuteToolResponse, HookRun, ToolCall } from "../client/schemas";
import { HOOKS_FILE, readTreeFile } from "./_config-file";

export { HOOKS_FILE };
import { lintHooks } from "./lint";
import { matches } from "./matcher";
import { type Handler, HOOK_EVENTS, type HookEventName, HookDecision, HooksConfig, parseDecision } from "./schema";

// ── result shapes (the wire's: client/schemas.ts, "Emulator extension") ─────────────────────────

export type { ToolCall };
/** The pre or post hooks' verdict on a call. */
export type HooksVerdict = Pick<ExecuteToolResponse, "decision" | "reason" | "hooks">;
/** The whole call: verdict, then the tool's result when it ran (`exit_code` for code_execution). */
export type ToolCallResult = ExecuteToolResponse;

// ── injected functions ──────────────────────────────────────────────────────────────────────────

/** What a command handler's run gave; the emulator passes its sandbox's `SandboxResult`. */
export interface CommandRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated?: boolean;
  /** The call's processes together passed the sandbox's memory limit and were killed. */
  memoryExceeded?: boolean;
}

/** Runs a command handler in the environment's sandbox (bash -c), the event JSON on stdin. */
export type CommandRunner = (request: { command: string; timeoutSeconds: number; stdin: string }) => Promise<CommandRun>;

/** An HTTP handler's answer, or why it was not delivered. */
export type HttpDelivery = { status: number; body: string } | { failure: string };

/** POSTs the event to an HTTP handler's URL (through the egress proxy, once there is one). */
export type HttpDeliverer = (request: { url: string; headers: Readonly<Record<string, string>>; timeoutSeconds: number; body: string }) => Promise<HttpDelivery>;

/** The tool itself; the emulator passes the sandbox's `runTool`. */
export type ToolRunner = (call: ToolCall) => Promise<{ output?: string; error?: string; exitCode?: number; failed: boolean }>;

export interface HooksRuntimeOptions {
  /** Runs command handlers (in the same sandbox as the tools). */
  runCommand: CommandRunner;
  /** Delivers HTTP handlers; default `undeliveredHttp` (reported as not delivered, failing open). */
  deliverHttp?: HttpDeliverer;
}

// ── defaults ────────────────────────────────────────────────────────────────────────────────────

/** The tool's error when a deny gave no reason. */
export const DEFAULT_DENY_REASON = "The tool call was denied by a pre_tool_execution hook.";
const FAILURE_TEXT_CHARS = 300; // of stderr or output quoted in a failure

/** The deliverer where no egress proxy runs (`genv hooks test`): nothing is sent, the hook fails open. */
export const undeliveredHttp: HttpDeliverer = async ({ url }) => ({
  failure: `http hooks are not delivered here: no egress proxy runs (POST ${url} not sent)`,
});

// ── discovery ───────────────────────────────────────────────────────────────────────────────────

/** The tree's hooks: a parsed config (`{}` when there is no file), or why none can be used. */
export type DiscoveredHooks = { config: HooksConfig } | { config: undefined; failure: string };

/** Reads and validates `.agents/hooks.json` of the tree at `root`; never throws. */
export async function discoverHooks(root: string): Promise<DiscoveredHooks> {
  let text: string | undefined;
  try {
    text = await readTreeFile(root, HOOKS_FILE);
  } catch (error) {
    return { config: undefined, failure: `hooks.json not used: ${(error as Error).message}` };
  }
  if (text === undefined) return { config: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { config: undefined, failure: `hooks.json not used: invalid JSON: ${(error as Error).message}` };
  }
  const parsed = HooksConfig.safeParse(json);
  if (!parsed.success) {
    // The linter's schema findings name the place (JSON pointer) and the fix, e.g. an unknown event.
    const problems = lintHooks(json).filter((finding) => finding.code === "schema");
    const text = problems.map((finding) => `${finding.path || "(root)"}: ${finding.message}`).join("; ");
    return { config: undefined, failure: `hooks.json not used: ${text || describeIssues(validationIssues(parsed.error))}` };
  }
  // on_failure is compiled away before a config becomes sources; the runtime itself has no such field.
  const uncompiled = onFailureField(parsed.data);
  if (uncompiled !== undefined) {
    const finding = lintHooks(json, { held: true }).find((each) => each.code === "on-failure-not-compiled");
    return { config: undefined, failure: `hooks.json not used: ${finding?.path ?? uncompiled}: ${finding?.message ?? "on_failure is not a field of the runtime's hooks.json"}` };
  }
  return { config: parsed.data };
}

/** The group of the first handler that carries `on_failure`, if any. */
function onFailureField(config: HooksConfig): string | undefined {
  for (const [name, group] of Object.entries(config)) {
    for (const event of HOOK_EVENTS) if ((group[event] ?? []).some((rule) => rule.hooks.some((handler) => handler.on_failure !== undefined))) return `/${name}`;
  }
  return undefined;
}

// ── running hooks ───────────────────────────────────────────────────────────────────────────────

/**
 * Runs the handlers of `event` that match `payload.tool_call.name`, in order. For pre hooks the
 * verdict is the first deny (the rest are `skipped`), else allow; for post hooks it is always allow.
 */
export async function runHooks(
  config: HooksConfig,
  event: HookEventName,
  payload: { tool_call: ToolCall; environment_id: string; error?: string },
  options: HooksRuntimeOptions,
): Promise<HooksVerdict> {
  const body = JSON.stringify(payload);
  const hooks: HookRun[] = [];
  let denied: { reason?: string } | undefined;
  for (const [group, definition] of Object.entries(config)) {
    if (!definition.enabled) continue;
    for (const rule of definition[event] ?? []) {
      if (!matches(rule.matcher, payload.tool_call.name)) continue;
      for (const handler of rule.hooks) {
        const label = describeHandler(handler);
        if (denied) {
          hooks.push({ group, event, handler: label, decision: "skipped", duration_ms: 0 });
          continue;
        }
        const run = await runHandler(handler, event, body, options);
        const decision = event === "post_tool_execution" ? "ignored" : run.decision.decision;
        hooks.push({ group, event, handler: label, decision, duration_ms: run.durationMs, ...(run.failure !== undefined && { failure: run.failure }) });
        if (decision === "deny") denied = { reason: run.decision.reason };
      }
    }
  }
  if (!denied) return { decision: "allow", hooks };
  return denied.reason !== undefined ? { decision: "deny", reason: denied.reason, hooks } : { decision: "deny", hooks };
}

/**
 * One tool call with the hooks of the tree at `root` in front and behind: discovery, pre hooks, the
 * tool (unless denied), post hooks. Throws only what `runTool` throws.
 */
export async function executeWithHooks(
  request: { root: string; environmentId: string; toolCall: ToolCall; runTool: ToolRunner },
  options: HooksRuntimeOptions,
): Promise<ToolCallResult> {
  const { toolCall, environmentId } = request;
  const discovered = await discoverHooks(request.root);
  const configRuns: HookRun[] = discovered.config
    ? []
    : [{ group: "", event: "pre_tool_execution", handler: HOOKS_FILE, decision: "allow", duration_ms: 0, failure: discovered.failure }];
  const config = discovered.config ?? {};
  const payload = { tool_call: toolCall, environment_id: environmentId };

  const pre = await runHooks(config, "pre_tool_execution", payload, options);
  if (pre.decision === "deny") {
    return { ...pre, hooks: [...configRuns, ...pre.hooks], error: pre.reason ?? DEFAULT_DENY_REASON };
  }
  const result = await request.runTool(toolCall);
  const post = await runHooks(
    config,
    "post_tool_execution",
    result.failed ? { ...payload, error: result.error ?? "the tool failed" } : payload,
    options,
  );
  return {
    decision: "allow",
    hooks: [...configRuns, ...pre.hooks, ...post.hooks],
    ...(result.output !== undefined && { output: result.output }),
    ...(result.error !== undefined && { error: result.error }),
    ...(result.exitCode !== undefined && { exit_code: result.exitCode }),
  };
}

/** `command: python3 /.agents/hooks-scripts/gate.py` or `http: https://…`. */
export function describeHandler(handler: Handler): string {
  return handler.type === "command" ? `command: ${handler.command}` : `http: ${handler.url}`;
}

// ── one handler ─────────────────────────────────────────────────────────────────────────────────

interface HandlerOutcome {
  decision: HookDecision;
  durationMs: number;
  failure?: string;
}

async function runHandler(handler: Handler, event: HookEventName, body: string, options: HooksRuntimeOptions): Promise<HandlerOutcome> {
  const started = performance.now();
  const answer = await (handler.type === "command" ? commandAnswer(handler, body, options) : httpAnswer(handler, body, options));
  const durationMs = Math.round((performance.now() - started) * 10) / 10;
  if ("failure" in answer) return { decision: { decision: "allow" }, durationMs, failure: answer.failure };
  const decision = parseDecision(answer.text);
  // A post hook's output is ignored (it prints `{}`); a pre hook's that is no decision is worth a note.
  if (event === "post_tool_execution" || HookDecision.safeParse(safeJson(answer.text)).success) return { decision, durationMs };
  return { decision, durationMs, failure: `unrecognised output, counted as allow: ${quote(answer.text) || "(empty)"}` };
}

async function commandAnswer(
  handler: Extract<Handler, { type: "command" }>,
  body: string,
  options: HooksRuntimeOptions,
): Promise<{ text: string } | { failure: string }> {
  let run: CommandRun;
  try {
    run = await options.runCommand({ command: handler.command, timeoutSeconds: handler.timeout, stdin: body });
  } catch (error) {
    return { failure: `could not run: ${(error as Error).message}` };
  }
  if (run.timedOut) return { failure: `timed out after ${handler.timeout} s; the process tree was killed` };
  if (run.truncated) return { failure: "output exceeded the size limit; the process tree was killed" };
  if (run.memoryExceeded) return { failure: "used more memory than the sandbox allows (all its processes together); the process tree was killed" };
  if (run.exitCode !== 0) {
    const stderr = quote(run.stderr);
    return { failure: `exited with status ${run.exitCode}${stderr ? `: ${stderr}` : ""}` };
  }
  return { text: run.stdout };
}

async function httpAnswer(
  handler: Extract<Handler, { type: "http" }>,
  body: string,
  options: HooksRuntimeOptions,
): Promise<{ text: string } | { failure: string }> {
  const deliver = options.deliverHttp ?? undeliveredHttp;
  let delivery: HttpDelivery;
  try {
    delivery = await deliver({ url: handler.url, headers: handler.headers ?? {}, timeoutSeconds: handler.timeout, body });
  } catch (error) {
    return { failure: `not delivered: ${(error as Error).message}` };
  }
  if ("failure" in delivery) return { failure: delivery.failure };
  if (delivery.status < 200 || delivery.status > 299) return { failure: `answered HTTP ${delivery.status}` };
  return { text: delivery.body };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text.trim());
  } catch {
    return undefined;
  }
}

function quote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > FAILURE_TEXT_CHARS ? `${trimmed.slice(0, FAILURE_TEXT_CHARS)}…` : trimmed;
}
