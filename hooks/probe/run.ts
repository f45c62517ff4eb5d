/**
 * The probe's engine (`genv hooks probe`, a HookBundle's `probe`): every `pre_tool_execution` handler
 * of a config against the corpus calls of every tool its matcher matches, judged by the runtime
 * itself — each run's result goes through `runHooks`, so a finding is exactly a run the runtime would
 * have let through with a `failure` (fail open) — and classified by how it failed:
 *
 * - `crash`: non-zero exit, or killed for its output's size or its memory: the exit status and the
 *   tail of stderr (where a traceback ends);
 * - `timeout`: ran past the handler's `timeout`, which the sandbox enforces as for a live call;
 * - `unrecognized-output`: exited 0 but printed no decision: what it printed;
 * - `http-error` (HTTP handlers, probed only when a deliverer is given): non-2xx or not delivered.
 *
 * A command handler with `on_failure: "deny"` runs in its compiled form, the wrapper around it
 * (`hooks/on-failure.ts`), as the sandbox will run it: a failure the wrapper turned into a deny is no
 * finding, it is counted apart (`failsClosed`, by the same outcomes), so that a config whose handlers
 * are all `deny` reports no fail-open input unless the wrapper itself was killed.
 *
 * Where the runs happen is injected (`runCommands`: the sandbox, over a tree reused while unchanged,
 * `emulator/sandbox/policy-cases.ts`), so that this module imports nothing of the emulator.
 *
 * Payloads a handler cannot tell apart run once: a handler sees its command line, its timeout and its
 * stdin (the tree is the same fresh tree for all), so runs are keyed by those three, across groups and
 * rules that name the same command. Identical findings are grouped: one per group, handler, tool and
 * outcome, with the count of payloads and the smallest one (its JSON the shortest).
 */
import { performance } from "node:perf_hooks";
import type { ToolCall } from "../../client/schemas";
import { matches, SANDBOX_TOOLS, type SandboxTool } from "../matcher";
import { describeHandler, runHooks, type CommandRun, type HttpDeliverer, type HttpDelivery } from "../runtime";
import { failureClosed, wrappedCommand } from "../on-failure";
import type { Handler, HooksConfig, OnFailure } from "../schema";
import type { ProbeCall } from "./corpus";

// ── shapes (the JSON report's: docs/hooks-and-policies.md) ──────────────────────────────────────

export const PROBE_OUTCOMES = ["crash", "timeout", "unrecognized-output", "http-error"] as const;
export type ProbeOutcome = (typeof PROBE_OUTCOMES)[number];

/** How a run failed open: `text` for people, the rest for tools. */
export type ProbeDetail =
  | { text: string; exitStatus: number | null; stderrTail: string }
  | { text: string; timeoutSeconds: number }
  | { text: string; output: string }
  | { text: string };

export interface ProbeFinding {
  group: string;
  event: "pre_tool_execution";
  /** `command: …` or `http: …`, as the runtime's hook runs name it (for a wrapped handler, its own command). */
  handler: string;
  /** The handler's `on_failure`: with `deny`, a finding means the wrapper itself failed open. */
  onFailure: OnFailure;
  tool: SandboxTool;
  outcome: ProbeOutcome;
  /** The smallest payload's failure. */
  detail: ProbeDetail;
  /** The smallest payload that fails open this way: the `tool_call` object. */
  payload: ToolCall;
  /** The corpus class of that payload, e.g. `code: cjk`, or `recorded: line 3`. */
  input: string;
  /** Payloads that failed open this way. */
  count: number;
}

/** What accepts a reviewed finding (a GuardedEnvironment's `acknowledgedWarnings`), e.g. `fail-open:security-gate:code_execution:timeout`. */
export type FailOpenAcknowledgement = `fail-open:${string}`;

export function acknowledgementOf(finding: Pick<ProbeFinding, "group" | "tool" | "outcome">): FailOpenAcknowledgement {
  return `fail-open:${finding.group}:${finding.tool}:${finding.outcome}`;
}

export interface NotProbed {
  group: string;
  handler: string;
  why: string;
}

export interface ProbeError {
  group: string;
  handler: string;
  tool: SandboxTool;
  message: string;
  payload: ToolCall;
}

export interface ProbeSummary {
  seed: number;
  /** Handlers probed (a group and handler: the same command in two groups counts twice). */
  handlers: number;
  /** Corpus calls (with the recorded ones added). */
  calls: number;
  /** Of them, recorded calls (`--calls`). */
  recorded: number;
  /** Handler × payload pairs judged. */
  payloads: number;
  /** Runs made: pairs a handler cannot tell apart ran once. */
  runs: number;
  /**
   * Runs left out: once a handler has timed out on `TIMEOUT_CAP` payloads of a tool, its larger
   * payloads of that tool are not run (each would cost the whole timeout); that finding's `count` is
   * then a lower bound.
   */
  skipped: number;
  /** Payloads that failed open, per outcome. */
  findings: Record<ProbeOutcome, number>;
  /** Payloads on which an `on_failure: "deny"` handler failed and its wrapper denied the call instead, per outcome. */
  failsClosed: Record<ClosedOutcome, number>;
  errors: number;
  notProbed: NotProbed[];
  durationMs: number;
}

/** How a wrapped handler failed: the outcomes a command handler can have. */
export type ClosedOutcome = Exclude<ProbeOutcome, "http-error">;

export interface ProbeReport {
  summary: ProbeSummary;
  findings: ProbeFinding[];
  /** The failures that denied instead, grouped as findings are (`detail.text` is the wrapper's). */
  failsClosed: ProbeFinding[];
  errors: ProbeError[];
}

/** A command handler's run as the probe asks for it. */
export interface CommandRunRequest {
  command: string;
  timeoutSeconds: number;
  stdin: string;
}

export interface RunControl {
  skip(index: number): boolean;
  done(index: number, result: CommandRun | { error: string }): void;
}

export interface ProbeOptions {
  seed: number;
  calls: readonly ProbeCall[];
  /** How many of `calls` are recorded ones (for the summary). */
  recorded?: number;
  /**
   * Runs each request (in the sandbox), in order as far as running several at once allows; a run that
   * could not happen is `{error}`. `control.skip(i)`, asked when request i's turn comes, says to leave
   * it out (`{skipped: true}`); `control.done(i, result)` is told each result as it comes.
   */
  runCommands: (requests: readonly CommandRunRequest[], control: RunControl) => Promise<Array<CommandRun | { error: string } | { skipped: true }>>;
  /** Delivers HTTP handlers (`--http live`); without it they are listed as not probed. */
  deliverHttp?: HttpDeliverer;
  /** `environment_id` in the payloads. */
  environmentId?: string;
}

// ── defaults ────────────────────────────────────────────────────────────────────────────────────

export const PROBE_ENVIRONMENT_ID = "env_hooks_probe";
const TAIL_CHARS = 300; // of stderr or output kept in a finding
const HTTP_AT_ONCE = 8;
/** Timeouts of one handler on one tool after which its other payloads of that tool are left out. */
export const TIMEOUT_CAP = 3;

// ── implementation ──────────────────────────────────────────────────────────────────────────────

interface Target {
  group: string;
  /** As the runtime runs it: for `on_failure: "deny"`, the wrapper around the handler's command. */
  handler: Handler;
  label: string;
  onFailure: OnFailure;
  tools: Set<SandboxTool>;
}

/** Probes `config`: the runs, then the judgement, then the grouped findings. */
export async function probeHooks(config: HooksConfig, options: ProbeOptions): Promise<ProbeReport> {
  const started = performance.now();
  const environmentId = options.environmentId ?? PROBE_ENVIRONMENT_ID;
  const { targets, notProbed } = targetsOf(config, options.deliverHttp !== undefined);

  // Every (target, call) pair, and the distinct runs behind them.
  const runKeys = new Map<string, number>();
  const commandRequests: CommandRunRequest[] = [];
  const commandTools: SandboxTool[] = [];
  const httpRequests: Array<{ handler: Extract<Handler, { type: "http" }>; body: string }> = [];
  const pairs: Array<{ target: Target; call: ProbeCall; body: string; run: string }> = [];
  for (const target of targets) {
    for (const call of options.calls) {
      if (!target.tools.has(call.tool)) continue;
      const body = JSON.stringify({ tool_call: { name: call.tool, args: call.args }, environment_id: environmentId });
      const { handler } = target;
      const run = handler.type === "command" ? `command\0${handler.command}\0${handler.timeout}\0${body}` : `http\0${handler.url}\0${JSON.stringify(handler.headers ?? {})}\0${handler.timeout}\0${body}`;
      if (!runKeys.has(run)) {
        if (handler.type === "command") {
          runKeys.set(run, commandRequests.length);
          commandRequests.push({ command: handler.command, timeoutSeconds: handler.timeout, stdin: body });
          commandTools.push(call.tool);
        } else {
          runKeys.set(run, httpRequests.length);
          httpRequests.push({ handler, body });
        }
      }
      pairs.push({ target, call, body, run });
    }
  }

  const commandResults = await runCapped(commandRequests, commandTools, options.runCommands);
  const httpResults = await deliverAll(httpRequests, options.deliverHttp);

  const grouped = new Map<string, ProbeFinding & { size: number }>();
  const closedGroups = new Map<string, ProbeFinding & { size: number }>();
  const counts: Record<ProbeOutcome, number> = { crash: 0, timeout: 0, "unrecognized-output": 0, "http-error": 0 };
  const closedCounts: Record<ClosedOutcome, number> = { crash: 0, timeout: 0, "unrecognized-output": 0 };
  const add = (into: Map<string, ProbeFinding & { size: number }>, target: Target, call: ProbeCall, toolCall: ToolCall, outcome: ProbeOutcome, detail: ProbeDetail) => {
    const key = JSON.stringify([target.group, target.label, call.tool, outcome]);
    const size = JSON.stringify(toolCall).length;
    const known = into.get(key);
    if (known === undefined) {
      into.set(key, { group: target.group, event: "pre_tool_execution", handler: target.label, onFailure: target.onFailure, tool: call.tool, outcome, detail, payload: toolCall, input: call.label, count: 1, size });
    } else {
      known.count += 1;
      if (size < known.size) Object.assign(known, { detail, payload: toolCall, input: call.label, size });
    }
  };
  const errors: ProbeError[] = [];
  for (const pair of pairs) {
    const { target, call } = pair;
    const index = runKeys.get(pair.run)!;
    const result = target.handler.type === "command" ? commandResults[index] : httpResults[index];
    const toolCall: ToolCall = { name: call.tool, args: call.args };
    if ("skipped" in result) continue;
    if ("error" in result) {
      errors.push({ group: target.group, handler: target.label, tool: call.tool, message: result.error, payload: toolCall });
      continue;
    }
    const failed = await failsOpen(target, pair.body, result);
    if (!failed) {
      const closed = target.onFailure === "deny" && "stderr" in result ? failureClosed(result.stderr) : undefined;
      if (closed === undefined) continue;
      const outcome = closedOutcome(closed);
      closedCounts[outcome] += 1;
      add(closedGroups, target, call, toolCall, outcome, { text: closed });
      continue;
    }
    const { outcome, detail } = classify(target.handler, result, failed);
    counts[outcome] += 1;
    add(grouped, target, call, toolCall, outcome, detail);
  }
  const findings = [...grouped.values()].map(({ size: _size, ...finding }) => finding);
  const failsClosed = [...closedGroups.values()].map(({ size: _size, ...finding }) => finding);
  return {
    summary: {
      seed: options.seed,
      handlers: targets.length,
      calls: options.calls.length,
      recorded: options.recorded ?? 0,
      payloads: pairs.length,
      runs: commandResults.filter((result) => !("skipped" in result)).length + httpRequests.length,
      skipped: commandResults.filter((result) => "skipped" in result).length,
      findings: counts,
      failsClosed: closedCounts,
      errors: errors.length,
      notProbed,
      durationMs: Math.round(performance.now() - started),
    },
    findings,
    failsClosed,
    errors,
  };
}

/** The outcome a wrapper's failure text names: `crashed …`, `ran past its deadline …`, `printed no decision`. */
function closedOutcome(failure: string): ClosedOutcome {
  if (failure.startsWith("ran past")) return "timeout";
  if (failure === "printed no decision") return "unrecognized-output";
  return "crash";
}

/**
 * The command runs, smallest stdin first (so that the payload a finding reports is the smallest even
 * when runs are left out), each handler's larger payloads of a tool left out once it has timed out on
 * `TIMEOUT_CAP` of them. Results in the order of `requests`.
 */
async function runCapped(requests: readonly CommandRunRequest[], tools: readonly SandboxTool[], runCommands: ProbeOptions["runCommands"]): Promise<Array<CommandRun | { error: string } | { skipped: true }>> {
  if (requests.length === 0) return [];
  const order = requests.map((_, index) => index).sort((a, b) => requests[a].stdin.length - requests[b].stdin.length || a - b);
  const capKey = (index: number) => `${requests[index].command}\0${requests[index].timeoutSeconds}\0${tools[index]}`;
  const timeouts = new Map<string, number>();
  const sorted = await runCommands(order.map((index) => requests[index]), {
    skip: (at) => (timeouts.get(capKey(order[at])) ?? 0) >= TIMEOUT_CAP,
    done: (at, result) => {
      // A wrapped handler's deadline counts as its timeout: each such payload costs as much.
      const overran = "timedOut" in result && (result.timedOut || failureClosed(result.stderr)?.startsWith("ran past") === true);
      if (overran) timeouts.set(capKey(order[at]), (timeouts.get(capKey(order[at])) ?? 0) + 1);
    },
  });
  const results: Array<CommandRun | { error: string } | { skipped: true }> = new Array(requests.length);
  order.forEach((index, at) => (results[index] = sorted[at]));
  return results;
}

/** The pre handlers to probe, each with the tools its rules match; the others, and why not. */
function targetsOf(config: HooksConfig, http: boolean): { targets: Target[]; notProbed: NotProbed[] } {
  const byKey = new Map<string, Target>();
  const notProbed: NotProbed[] = [];
  for (const [group, definition] of Object.entries(config)) {
    for (const rule of definition.pre_tool_execution ?? []) {
      const tools = SANDBOX_TOOLS.filter((tool) => matches(rule.matcher, tool));
      for (const handler of rule.hooks) {
        const label = describeHandler(handler);
        const why = !definition.enabled ? "the group is disabled" : tools.length === 0 ? `its matcher ${JSON.stringify(rule.matcher)} matches no sandbox tool` : handler.type === "http" && !http ? "HTTP handlers are probed only with --http live (the calls leave this machine)" : undefined;
        if (why !== undefined) {
          if (!notProbed.some((entry) => entry.group === group && entry.handler === label && entry.why === why)) notProbed.push({ group, handler: label, why });
          continue;
        }
        const onFailure = handler.on_failure ?? "allow";
        const key = JSON.stringify([group, label, handler.timeout, onFailure, handler.type === "http" ? handler.headers ?? {} : null]);
        const known = byKey.get(key);
        if (known) for (const tool of tools) known.tools.add(tool);
        else byKey.set(key, { group, handler: asRun(handler), label, onFailure, tools: new Set(tools) });
      }
    }
  }
  return { targets: [...byKey.values()], notProbed };
}

/** A handler as the runtime runs it: a command handler with `on_failure: "deny"` in its wrapper (hooks/on-failure.ts). */
function asRun(handler: Handler): Handler {
  if (handler.type !== "command" || handler.on_failure !== "deny") return handler;
  return { type: "command", command: wrappedCommand(handler.command, handler.timeout), timeout: handler.timeout };
}

/** The runtime's judgement of one run: its `failure` when it let the call through failing open. */
async function failsOpen(target: Target, body: string, result: CommandRun | HttpDelivery): Promise<string | undefined> {
  const config: HooksConfig = { [target.group]: { enabled: true, pre_tool_execution: [{ matcher: ".*", hooks: [target.handler] }] } };
  const payload = JSON.parse(body) as Parameters<typeof runHooks>[2];
  const verdict = await runHooks(config, "pre_tool_execution", payload, {
    runCommand: async () => result as CommandRun,
    deliverHttp: async () => result as HttpDelivery,
  });
  return verdict.hooks[0]?.failure;
}

function classify(handler: Handler, result: CommandRun | HttpDelivery, failure: string): { outcome: ProbeOutcome; detail: ProbeDetail } {
  if (handler.type === "http") {
    if ("status" in result && result.status >= 200 && result.status <= 299) return { outcome: "unrecognized-output", detail: { text: failure, output: tail(result.body) } };
    return { outcome: "http-error", detail: { text: failure } };
  }
  const run = result as CommandRun;
  if (run.timedOut) return { outcome: "timeout", detail: { text: failure, timeoutSeconds: handler.timeout } };
  if (run.exitCode !== 0 || run.truncated || run.memoryExceeded) return { outcome: "crash", detail: { text: failure, exitStatus: run.exitCode, stderrTail: tail(run.stderr) } };
  return { outcome: "unrecognized-output", detail: { text: failure, output: tail(run.stdout) } };
}

async function deliverAll(requests: ReadonlyArray<{ handler: Extract<Handler, { type: "http" }>; body: string }>, deliver: HttpDeliverer | undefined): Promise<Array<HttpDelivery | { error: string }>> {
  if (requests.length === 0 || deliver === undefined) return [];
  const results: Array<HttpDelivery | { error: string }> = new Array(requests.length);
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const index = next++;
      const { handler, body } = requests[index];
      results[index] = await deliver({ url: handler.url, headers: handler.headers ?? {}, timeoutSeconds: handler.timeout, body }).catch((error: unknown) => ({ failure: `not delivered: ${(error as Error).message}` }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(HTTP_AT_ONCE, requests.length) }, worker));
  return results;
}

/** The last `TAIL_CHARS` of `text`, trimmed: the end of a traceback says what broke. */
function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > TAIL_CHARS ? `…${trimmed.slice(-TAIL_CHARS)}` : trimmed;
}
