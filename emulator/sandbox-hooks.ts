/**
 * The hooks runtime's injected functions for one environment: command hooks run in the same
 * bubblewrap sandbox as the tools, under the environment's egress policy; HTTP hooks are delivered
 * through the environment's egress proxy, policy and injection included (without a proxy, as in
 * `genv hooks test`, they are reported as not delivered and fail open).
 */
import { undeliveredHttp, type HooksRuntimeOptions } from "../hooks/runtime";
import type { SandboxEgress } from "./egress/sandbox";
import { runCommandHook, type SandboxLimits } from "./sandbox";

/** `limits`: overrides of the sandbox limits for command hooks, e.g. the call's `maxFileBytes`. */
export function sandboxHooks(root: string, egress?: SandboxEgress, readOnly: readonly string[] = [], limits?: Partial<SandboxLimits>): HooksRuntimeOptions {
  return {
    runCommand: ({ command, timeoutSeconds, stdin }) => runCommandHook({ root, command, stdinJson: stdin, timeoutSeconds, egress, readOnly, limits }),
    // Without an emulator's proxy (`genv hooks test`), HTTP hooks are reported as not delivered.
    deliverHttp: egress ? egress.proxy.httpHookDeliverer(egress) : undeliveredHttp,
  };
}
