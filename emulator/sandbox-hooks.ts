/**
 * The hooks runtime's injected functions for one environment tree: command hooks run in the same
 * bubblewrap sandbox as the tools; HTTP hooks are not delivered until the egress proxy exists (a
 * later implementation replaces `deliverHttp` here, nothing else changes).
 */
import { type HooksRuntimeOptions, undeliveredHttp } from "../hooks/runtime";
import { runCommandHook } from "./sandbox";

export function sandboxHooks(root: string): HooksRuntimeOptions {
  return {
    runCommand: ({ command, timeoutSeconds, stdin }) => runCommandHook({ root, command, stdinJson: stdin, timeoutSeconds }),
    deliverHttp: undeliveredHttp,
  };
}
