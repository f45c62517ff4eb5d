/** Trees with a hooks.json and the sandbox-bound runtime options, for the runtime tests. */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { sandboxHooks } from "../../../emulator/sandbox";
import { executeWithHooks, type ToolCall, type ToolCallResult } from "../../../hooks/runtime";
import { runTool } from "../../../emulator/sandbox";
import type { HooksConfigInput } from "../../../hooks/schema";
import { makeTree } from "../../support/trees";

export const REPO = path.resolve(__dirname, "../../..");
export const SECURITY_GATE = path.join(REPO, "examples/security-gate/hooks-scripts/gate.py");
export const PRIVACY_GATE = path.join(REPO, "examples/privacy-gate/hooks-scripts/check_privacy.py");

/** A tree holding `.agents/hooks.json` (when given; a string is written as is) and `files`. */
export function hooksTree(hooks: HooksConfigInput | string | undefined, files: Record<string, string> = {}): string {
  return makeTree(hooks === undefined ? files : { ...files, ".agents/hooks.json": typeof hooks === "string" ? hooks : JSON.stringify(hooks) });
}

/**
 * A command handler that appends `tag` to /order.log (proof it ran, and when) and prints `stdout`.
 * `extra` runs after, e.g. `exit 3`.
 */
export function tagged(tag: string, stdout = '{"decision": "allow"}', options: { extra?: string; timeout?: number } = {}) {
  const command = `echo ${tag} >> /order.log; printf '%s' '${stdout}'${options.extra ? `; ${options.extra}` : ""}`;
  return { type: "command" as const, command, timeout: options.timeout ?? 10 };
}

export function order(root: string): string[] {
  try {
    return readFileSync(path.join(root, "order.log"), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

/** One tool call through the runtime with the real sandbox; `tool` replaces the real tool when given. */
export async function execute(
  root: string,
  toolCall: ToolCall,
  tool?: (call: ToolCall) => Promise<{ output?: string; error?: string; exitCode?: number; failed: boolean }>,
): Promise<ToolCallResult> {
  return executeWithHooks(
    { root, environmentId: "env_test", toolCall, runTool: tool ?? ((call) => runTool(call.name, call.args, { root })) },
    sandboxHooks(root),
  );
}
