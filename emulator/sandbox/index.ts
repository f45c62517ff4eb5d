/** The sandbox: bubblewrap isolation over an environment tree, the six tools, hooks; egress is injected (`SandboxEgress`). */
export { CONTAINER_HINT, DEFAULT_LIMITS, findBwrap, runInSandbox } from "./bwrap";
export { assertSandboxRunnable, sandboxReadiness } from "./_readiness";
export type { SandboxReadiness } from "./_readiness";
export type { RunInSandboxOptions, SandboxLimits, SandboxResult } from "./bwrap";
export type { EgressPort, SandboxEgress } from "./network";
export { runCommandHook, sandboxHooks } from "./hooks";
export type { CommandHookOptions } from "./hooks";
export { RESERVED_TOP_LEVEL, existingReadOnly } from "./_mounts";
export { memoryCgroupAvailable, pidsCgroupAvailable } from "./_cgroup";
export { giveToSandbox, sandboxOwner } from "./_identity";
export { removeHostView, sandboxEnterPath } from "./_host-view";
export {
  InvalidToolArgsError,
  ReservedPathError,
  SandboxError,
  SandboxNotRunnableError,
  SandboxUnavailableError,
  UnknownToolError,
} from "./errors";
export { TOOL_ARGS, TOOL_NAMES, ToolResult, parseToolCall, runTool } from "./tools";
export type { ToolArgs, ToolContext, ToolName } from "./tools";
