/**
 * Errors of the sandbox module. Each carries a stable `code` and the canonical Google `status` the
 * HTTP layer renders it with (`INVALID_ARGUMENT` → 400, …), so the mapping is a lookup, never a
 * match on message text.
 */
import type { ValidationIssue } from "../../sdk/validation";

export class SandboxError extends Error {
  override name = "SandboxError";
  /** Stable machine-readable code. */
  readonly code: string;
  /** Canonical Google status name for the HTTP layer. */
  readonly status: "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "INTERNAL" | "UNAVAILABLE";
  constructor(
    message: string,
    options: { code: string; status: SandboxError["status"]; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.code = options.code;
    this.status = options.status;
  }
}

/** The tool name is not one of the six container tools. */
export class UnknownToolError extends SandboxError {
  override name = "UnknownToolError";
  constructor(readonly tool: string, known: readonly string[]) {
    super(`tool_call.name: unknown tool ${JSON.stringify(tool)}; expected one of ${known.join(", ")}`, {
      code: "UNKNOWN_TOOL",
      status: "INVALID_ARGUMENT",
    });
  }
}

/** The tool's arguments failed validation; `issues` name each field (`tool_call.args.path`). */
export class InvalidToolArgsError extends SandboxError {
  override name = "InvalidToolArgsError";
  constructor(readonly tool: string, readonly issues: readonly ValidationIssue[]) {
    super(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "), {
      code: "INVALID_TOOL_ARGS",
      status: "INVALID_ARGUMENT",
    });
  }
}

/** bubblewrap is missing or cannot create namespaces on this machine. */
export class SandboxUnavailableError extends SandboxError {
  override name = "SandboxUnavailableError";
  constructor(message: string, cause?: unknown) {
    super(message, { code: "SANDBOX_UNAVAILABLE", status: "UNAVAILABLE", cause });
  }
}

/**
 * This machine cannot run the sandbox at all — no bubblewrap, not Linux, no user namespaces, or root
 * without the privilege of the sandbox's host view — and nothing will run until its operator changes
 * that. A precondition, not a transient failure: clients must not retry it. The message says what to do.
 */
export class SandboxNotRunnableError extends SandboxError {
  override name = "SandboxNotRunnableError";
  constructor(message: string, cause?: unknown) {
    super(message, { code: "SANDBOX_NOT_RUNNABLE", status: "FAILED_PRECONDITION", cause });
  }
}

/**
 * The environment tree holds a non-directory (file or symlink) at a name the sandbox mounts over
 * (`/usr`, `/proc`, …); see `RESERVED_TOP_LEVEL`.
 */
export class ReservedPathError extends SandboxError {
  override name = "ReservedPathError";
  constructor(readonly entry: string) {
    super(`/${entry} is reserved by the sandbox and must be absent or a directory in the environment tree`, {
      code: "RESERVED_PATH",
      status: "FAILED_PRECONDITION",
    });
  }
}
