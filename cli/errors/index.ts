import { describeIssues, type Issue } from "../../client/issues";

/**
 * An error meant for the person at the terminal: printed without a stack, exits with `exitCode`.
 * A refused input carries its `issues` (client/issues.ts), rendered after what was refused:
 * `cases file c.json: [0].expect: must be "allow" or "deny"`.
 */
export class CLIError extends Error {
  override name = "CLIError";
  readonly code = "GENV_CLI";
  constructor(
    message: string,
    readonly exitCode = 1,
    readonly issues: readonly Issue[] = [],
  ) {
    super(message);
  }

  /** `what: issue; issue`, exit code 2 (bad input). */
  static invalid(what: string, issues: readonly Issue[]): CLIError {
    return new CLIError(`${what}: ${describeIssues(issues)}`, 2, issues);
  }
}
