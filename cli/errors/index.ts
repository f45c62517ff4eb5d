/** An error meant for the person at the terminal: printed without a stack, exits with `exitCode`. */
export class CLIError extends Error {
  override name = "CLIError";
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
