/**
 * Hooks (spec/HOOKS.md) in the sandbox: a `command` handler runs as `bash -c <command>` in the
 * environment's sandbox with the event JSON on stdin, e.g. `python3 /.agents/hooks-scripts/gate.py`;
 * the hooks runtime interprets the result (decision JSON on stdout; crash, timeout or junk = allow).
 * `sandboxHooks` gives the runtime its functions for one environment: command hooks run in the same
 * sandbox as the tools, under the environment's egress policy; HTTP hooks are delivered through the
 * environment's egress proxy, policy and injection included (without a proxy, as in `genv hooks
 * test`, they are reported as not delivered and fail open).
 */
import { undeliveredHttp, type HooksRuntimeOptions } from "../../hooks/runtime";
import { type SandboxLimits, type SandboxResult, runInSandbox } from "./bwrap";
import type { SandboxEgress } from "./network";

export interface CommandHookOptions {
  /** The environment tree on the host (the sandbox's `/`). */
  root: string;
  /** The handler's command line, run by bash inside the sandbox. */
  command: string;
  /** The event payload: a JSON text, or a value serialised with JSON.stringify. */
  stdinJson: string | object;
  /** The handler's `timeout` in seconds (spec default 30). */
  timeoutSeconds?: number;
  /** Overrides of the sandbox limits. */
  limits?: Partial<SandboxLimits>;
  /** Extra environment variables for the sandbox. */
  env?: Readonly<Record<string, string>>;
  /** Network egress under the environment's policy; omitted: no network. */
  egress?: SandboxEgress;
  /** Paths of the tree mounted read-only (see `RunInSandboxOptions.readOnly`). */
  readOnly?: readonly string[];
}

const HOOK_TIMEOUT_SECONDS = 30; // spec/HOOKS.md default

/** Runs one command hook; never throws for the command's own failure (see `SandboxResult`). */
export function runCommandHook(options: CommandHookOptions): Promise<SandboxResult> {
  const timeoutSeconds = options.timeoutSeconds ?? HOOK_TIMEOUT_SECONDS;
  return runInSandbox({
    root: options.root,
    argv: ["/bin/bash", "-c", options.command],
    stdin: typeof options.stdinJson === "string" ? options.stdinJson : JSON.stringify(options.stdinJson),
    env: options.env,
    egress: options.egress,
    readOnly: options.readOnly,
    timeoutMs: timeoutSeconds * 1000,
    limits: options.limits,
  });
}

/** `limits`: overrides of the sandbox limits for command hooks, e.g. the call's `maxFileBytes`. */
export function sandboxHooks(root: string, egress?: SandboxEgress, readOnly: readonly string[] = [], limits?: Partial<SandboxLimits>): HooksRuntimeOptions {
  return {
    runCommand: ({ command, timeoutSeconds, stdin }) => runCommandHook({ root, command, stdinJson: stdin, timeoutSeconds, egress, readOnly, limits }),
    // Without an emulator's proxy (`genv hooks test`), HTTP hooks are reported as not delivered.
    deliverHttp: egress ? egress.proxy.httpHookDeliverer(egress) : undeliveredHttp,
  };
}
