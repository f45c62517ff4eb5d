/**
 * Recorded tool calls as JSON lines: each line a hook payload as spec/HOOKS.md defines it,
 * `{"tool_call": {"name", "args"}, "environment_id"}`, as an HTTP audit hook receives it or `genv env
 * calls` prints it. Other fields are kept as they are (`event`, `error`, `decision`, `reason`, `time`,
 * …); a call recorded at `post_tool_execution` stands for the same call's pre payload, which is what a
 * replay decides on. The input of `genv hooks diff --calls`.
 */
import { z } from "zod";
import { describeIssues, validationIssues } from "../client/issues";
import { HOOK_EVENTS } from "./schema";

/** What a line must hold to be replayed; other fields are kept, not checked. */
const RecordedLine = z.looseObject({
  tool_call: z.looseObject({
    name: z.string({ error: "must be the tool's name, e.g. code_execution" }).min(1, { error: "must not be empty" }),
    args: z.record(z.string(), z.unknown(), { error: "must be an object of the tool's arguments" }).optional(),
  }, { error: 'is required: {"name": "code_execution", "args": {...}}' }),
  environment_id: z.string({ error: "must be a string such as env_abc123" }).optional(),
  event: z.enum(HOOK_EVENTS, { error: `must be one of ${HOOK_EVENTS.join(", ")}` }).optional(),
  error: z.string({ error: "must be a string: the post payload's error" }).optional(),
  args_omitted: z.boolean().optional(),
});

/** The pre payload a replay sends to the hooks. */
export interface PrePayload {
  tool_call: { name: string; args: Record<string, unknown> };
  environment_id: string;
}

export interface RecordedCall {
  /** 1-based line number in the file. */
  line: number;
  /** The line as recorded, every field kept. */
  record: Record<string, unknown>;
  /** What the pre hooks get; undefined when the call was recorded without its `args`. */
  payload?: PrePayload;
}

export interface MalformedLine {
  line: number;
  message: string;
}

/** The same pre payload: one replay stands for all its recorded calls. */
export interface DistinctCall {
  /** The payload's JSON text, which identifies it. */
  key: string;
  payload?: PrePayload;
  /** The first recorded line's fields. */
  record: Record<string, unknown>;
  lines: number[];
}

/** `environment_id` of a line that has none: the replay's, as for `genv hooks test` cases. */
export const REPLAY_ENVIRONMENT_ID = "env_hooks_diff";

/** Every line of `text`: the calls, and the lines that are not one (named by number, the rest kept). Blank lines are skipped. */
export function parseRecordedCalls(text: string): { calls: RecordedCall[]; malformed: MalformedLine[] } {
  const calls: RecordedCall[] = [];
  const malformed: MalformedLine[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      malformed.push({ line, message: `not JSON: ${(error as Error).message}` });
      return;
    }
    const parsed = RecordedLine.safeParse(json);
    if (!parsed.success) {
      const message = typeof json === "object" && json !== null && !Array.isArray(json) ? describeIssues(validationIssues(parsed.error)) : "not a JSON object: each line is a hook payload, {\"tool_call\": …, \"environment_id\": …}";
      malformed.push({ line, message });
      return;
    }
    const { tool_call: toolCall, environment_id: environmentId } = parsed.data;
    const record = json as Record<string, unknown>;
    if (toolCall.args === undefined) {
      if (parsed.data.args_omitted === true) {
        calls.push({ line, record });
        return;
      }
      malformed.push({ line, message: "tool_call.args: is required: an object of the tool's arguments" });
      return;
    }
    calls.push({ line, record, payload: { tool_call: { name: toolCall.name, args: toolCall.args }, environment_id: environmentId ?? REPLAY_ENVIRONMENT_ID } });
  });
  return { calls, malformed };
}

/** Calls with the same pre payload, together, in the order each first appears. */
export function distinctCalls(calls: readonly RecordedCall[]): DistinctCall[] {
  const byKey = new Map<string, DistinctCall>();
  for (const call of calls) {
    const key = call.payload ? JSON.stringify(call.payload) : `args omitted: ${JSON.stringify(call.record.tool_call)} ${JSON.stringify(call.record.environment_id)}`;
    const known = byKey.get(key);
    if (known) known.lines.push(call.line);
    else byKey.set(key, { key, payload: call.payload, record: call.record, lines: [call.line] });
  }
  return [...byKey.values()];
}
