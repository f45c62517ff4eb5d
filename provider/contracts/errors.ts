/**
 * The errors the provider's program-side classes throw for a value the program gave (`HookBundle`,
 * `NetworkPolicy`). Each carries the issues (client/issues.ts) that name the fields, and a `GENV_` code;
 * callers branch on the class or the code, never on the message.
 *
 *   InvalidInputError   GENV_INVALID_INPUT         a value that cannot work, e.g. `NetworkPolicy.allow("https://x")`
 *   └─ HookBundleError  GENV_INVALID_HOOK_BUNDLE   a hook bundle that cannot be built
 */
import { describeIssues, renderIssue, type Issue } from "../../client/issues";

export class InvalidInputError extends Error {
  override name = "InvalidInputError";
  readonly code: string = "GENV_INVALID_INPUT";
  /** The message is the issues rendered, after `what` when given (`NetworkPolicy.allow: domain: …`). */
  constructor(
    readonly issues: Issue[],
    { what, message }: { what?: string; message?: string } = {},
  ) {
    super(message ?? (what === undefined ? describeIssues(issues) : `${what}: ${describeIssues(issues)}`));
  }
}

/** A hook bundle that cannot be built; every problem at once, one a line. */
export class HookBundleError extends InvalidInputError {
  override name = "HookBundleError";
  override readonly code = "GENV_INVALID_HOOK_BUNDLE";
  constructor(issues: Issue[]) {
    super(issues, { message: `invalid hook bundle:\n${issues.map((issue) => `  - ${renderIssue(issue)}`).join("\n")}` });
  }

  /** Each issue rendered, e.g. `scripts["gone.py"]: cannot read …`. */
  get problems(): string[] {
    return this.issues.map(renderIssue);
  }
}
