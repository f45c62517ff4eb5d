/**
 * Errors of the sandbox module. Each carries a stable `code` (`GENV_…`, client/issues.ts) and the
 * canonical Google `status` the HTTP layer renders it with (`INVALID_ARGUMENT` → 400, …), so the
 * mapping is a lookup, never a match on message text. A refused tool call carries `issues` whose
 * paths start at the tool call (`["name"]`, `["args", "path"]`): a caller adds its own prefix
 * (`tool_call`) and renders them.
 */
import { describeIssues, issueAt, type Issue } from "../../client/issues";

export class SandboxError extends Error {
  override name = "SandboxError";
  /** Stable machine-readable code. */
  readonly code: string;
  /** Canonical Google status name for the HTTP layer. */
  readonly status: "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "INTERNAL" | "UNAVAILABLE";
  /** The fields at fault, from the tool call; empty when the error is not about its input. */
  readonly issues: readonly Issue[];
  constructor(
    message: string,
    options: { code: string; status: SandboxError["status"]; cause?: unknown; issues?: readonly Issue[] },
  ) {
    super(message, { cause: options.cause });
    this.code = options.code;
    this.status = options.status;
    this.issues = options.issues ?? [];
  }
}

/** The tool name is not one of the six container tools. */
export class UnknownToolError extends SandboxError {
  override name = "UnknownToolError";
  constructor(readonly tool: string, known: readonly string[]) {
    const issues = [issueAt(["name"], "unknown-tool", `unknown tool ${JSON.stringify(tool)}; expected one of ${known.join(", ")}`)];
    super(describeIssues(issues), { code: "GENV_UNKNOWN_TOOL", status: "INVALID_ARGUMENT", issues });
  }
}

/** The tool's arguments failed validation; `issues` name each field (`["args", "path"]`). */
export class InvalidToolArgsError extends SandboxError {
  override name = "InvalidToolArgsError";
  constructor(readonly tool: string, issues: readonly Issue[]) {
    super(describeIssues(issues), { code: "GENV_INVALID_TOOL_ARGS", status: "INVALID_ARGUMENT", issues });
  }
}

/** bubblewrap is missing or cannot create namespaces on this machine. */
export class SandboxUnavailableError extends SandboxError {
  override name = "SandboxUnavailableError";
  constructor(message: string, cause?: unknown) {
    super(message, { code: "GENV_SANDBOX_UNAVAILABLE", status: "UNAVAILABLE", cause });
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
    super(message, { code: "GENV_SANDBOX_NOT_RUNNABLE", status: "FAILED_PRECONDITION", cause });
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
      code: "GENV_RESERVED_PATH",
      status: "FAILED_PRECONDITION",
    });
  }
}
