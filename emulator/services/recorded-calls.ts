/**
 * Emulator extension (not in the Environments API): the tool calls `:executeTool` executed, kept per
 * environment as hook payloads (spec/HOOKS.md) with the pre hooks' decision and reason and the time,
 * so that a hooks change can be replayed against real traffic (`genv hooks diff --calls`).
 * `GET /{v}/environments/{id}/toolCalls?since=<RFC 3339>&page_size=&page_token=` lists them, oldest
 * first, in pages as ListEnvironments pages.
 *
 * LIMITATIONS (decided here): an environment keeps its last `TOOL_CALL_BOUNDS.calls` calls and at most
 * `TOOL_CALL_BOUNDS.bytes` of them, the oldest dropped first; a call whose `args` are over
 * `MAX_RECORDED_ARGS_BYTES` is kept without them (`args_omitted`). The rows go with the environment
 * (a foreign key that cascades on delete). Calls refused before any hook ran (unknown tool, bad
 * arguments, an expired environment, no sandbox) are not recorded: no hook saw them.
 */
import type { ToolCallResult } from "../../hooks/runtime";
import type { RecordedToolCall, ToolCall } from "../../client/schemas";
import { invalidArgument } from "../errors";
import type { Store, ToolCallBounds, ToolCallRow } from "../store";
import { keysetPage } from "../store/paging";
import type { EnvironmentsService } from "./environments";

/**
 * 1,000 calls is days of one agent's work (a session makes tens to hundreds), enough for a replay of
 * last week's traffic; 4 MiB caps what one environment adds to the database, whatever its calls
 * carry (a write_to_file's content is in its args): 1,000 environments at most 4 GiB.
 */
export const TOOL_CALL_BOUNDS: ToolCallBounds = { calls: 1000, bytes: 4 * 1024 * 1024 };

/** Args larger than this are not kept (a sixteenth of an environment's bytes: one call never crowds out the rest). */
export const MAX_RECORDED_ARGS_BYTES = 256 * 1024;

export class RecordedCallsService {
  constructor(
    private readonly store: Store,
    private readonly environments: EnvironmentsService,
    private readonly now: () => number,
    private readonly bounds: ToolCallBounds = TOOL_CALL_BOUNDS,
  ) {}

  /** After a call the hooks saw: its payload and the pre hooks' verdict. */
  record(environmentId: string, call: ToolCall, result: ToolCallResult): void {
    const args = JSON.stringify(call.args);
    const argsOmitted = Buffer.byteLength(args) > MAX_RECORDED_ARGS_BYTES;
    const toolCall = argsOmitted ? JSON.stringify({ name: call.name }) : `{"name":${JSON.stringify(call.name)},"args":${args}}`;
    const reason = result.decision === "deny" ? (result.reason ?? null) : null;
    // The post payload's `error`: the tool ran and failed. A deny's `error` is its reason, not a tool's.
    const error = result.decision === "allow" ? (result.error ?? null) : null;
    this.store.recordToolCall(
      {
        environment_id: environmentId,
        time_ms: this.now(),
        tool_call: toolCall,
        decision: result.decision,
        reason,
        error,
        args_omitted: argsOmitted ? 1 : 0,
        bytes: Buffer.byteLength(toolCall) + Buffer.byteLength(reason ?? "") + Buffer.byteLength(error ?? ""),
      },
      this.bounds,
    );
  }

  /** One page of environment `id`'s recorded calls, oldest first, from `since` on. */
  list(owner: string, id: string, request: { since?: string; pageSize?: number; pageToken?: string }): { tool_calls: RecordedToolCall[]; next_page_token?: string } {
    const row = this.environments.row(owner, id);
    const sinceMs = request.since === undefined ? 0 : parseSince(request.since);
    const paging = { pageSize: request.pageSize, pageToken: request.pageToken };
    const page = keysetPage<ToolCallRow, RecordedToolCall>("toolCalls", paging, (after, limit) => this.store.toolCallPage(row.id, after, sinceMs, limit), (rows) => rows.map(toWire));
    return page.nextPageToken === undefined ? { tool_calls: page.items } : { tool_calls: page.items, next_page_token: page.nextPageToken };
  }
}

function parseSince(since: string): number {
  const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(since) ? Date.parse(since) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidArgument(`since: must be an RFC 3339 time such as 2026-12-01T00:00:00Z (got ${JSON.stringify(since)})`);
  return ms;
}

function toWire(row: ToolCallRow): RecordedToolCall {
  return {
    tool_call: JSON.parse(row.tool_call),
    environment_id: row.environment_id,
    decision: row.decision,
    ...(row.reason !== null && { reason: row.reason }),
    ...(row.error !== null && { error: row.error }),
    time: new Date(row.time_ms).toISOString(),
    ...(row.args_omitted === 1 && { args_omitted: true }),
  };
}
