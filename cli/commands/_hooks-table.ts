/** The hooks table printed by `genv exec` and `genv hooks test`: one line per handler run. */
import type { HookRun } from "../../client/schemas";

const EVENT_LABEL = { pre_tool_execution: "pre", post_tool_execution: "post" } as const;

/** Aligned lines `event  group  handler  decision  ms  failure`, each prefixed with `indent`. */
export function formatHooks(hooks: readonly HookRun[], indent = "  "): string {
  if (hooks.length === 0) return `${indent}(no hooks matched)\n`;
  const rows = hooks.map((hook) => [
    EVENT_LABEL[hook.event],
    hook.group || "-",
    hook.handler,
    hook.decision,
    `${Math.round(hook.duration_ms)} ms`,
    hook.failure ? `failed open: ${hook.failure}` : "",
  ]);
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) => `${indent}${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join("  ").trimEnd()}\n`)
    .join("");
}
