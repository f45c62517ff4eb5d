/**
 * Long commands a test waits on (go build, pip, scripts/*) run with a deadline a little shorter than the
 * test's own, so that a hang fails naming the command (argv and cwd) and what it printed so far, rather
 * than with jest's bare "Exceeded timeout of N ms".
 *
 *   const left = timeLeftOf(TEST_TIMEOUT_MS); // first thing in the test or hook
 *   await runCommand(["go", "build", "."], { cwd: example, timeoutMs: left() });
 *
 * At the deadline the command's whole process group is killed (a script's children with it, which would
 * otherwise hold its output open), and the promise rejects at once. A command a library runs (the
 * Automation API's `pulumi`) is given a deadline through its abort signal instead: `withDeadline`.
 */
import { spawn } from "node:child_process";

/** What a command's deadline leaves of its test's: time for the error to reach jest before jest's own. */
export const COMMAND_MARGIN_MS = 15_000;
/** How long `withDeadline` waits for an interrupted operation to stop and say why, within the margin. */
const STOP_GRACE_MS = 10_000;
/** How much of each output an error quotes: its end. */
const QUOTED_CHARS = 4000;

export interface CommandOptions {
  /** Where it runs; the process's own directory by default. */
  cwd?: string;
  /** Its environment; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** How long to wait before it is killed and fails: less than the test's timeout (`timeLeftOf`). */
  timeoutMs: number;
}

export interface CommandOutput {
  stdout: string;
  stderr: string;
}

/** A command that exited non-zero, was killed, or ran past its deadline; with everything it printed. */
export class CommandError extends Error {
  override name = "CommandError";

  constructor(
    message: string,
    readonly argv: string[],
    readonly cwd: string,
    readonly stdout: string,
    readonly stderr: string,
    /** Whether it ran past its deadline (and was killed for it). */
    readonly timedOut: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** `argv` as a shell would take it, for messages. */
export function commandLine(argv: string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(" ");
}

/**
 * The timeouts of the commands a test (or hook) runs one after another: each call returns the time left
 * of the test's `testTimeoutMs`, counted from this call, less COMMAND_MARGIN_MS.
 */
export function timeLeftOf(testTimeoutMs: number): () => number {
  const until = Date.now() + testTimeoutMs - COMMAND_MARGIN_MS;
  return () => Math.max(until - Date.now(), 1);
}

/** The end of a command's output, as an error quotes it. */
function ending(output: string): string {
  return output.length > QUOTED_CHARS ? `[…]${output.slice(-QUOTED_CHARS)}` : output;
}

/** Runs `argv` to its end; resolves with its output if it exits 0, else rejects with a CommandError. */
export function runCommand(argv: string[], options: CommandOptions): Promise<CommandOutput> {
  const [file, ...args] = argv;
  const cwd = options.cwd ?? process.cwd();
  const child = spawn(file!, args, { cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const failure = (what: string, timedOut = false, errorOptions?: ErrorOptions) =>
    new CommandError(
      `\`${commandLine(argv)}\` in ${cwd} ${what}; its output${timedOut ? " so far" : ""}:\n--- stdout ---\n${ending(stdout)}\n--- stderr ---\n${ending(stderr)}`,
      argv,
      cwd,
      stdout,
      stderr,
      timedOut,
      errorOptions,
    );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
      child.stdout.destroy();
      child.stderr.destroy();
      reject(failure(`did not finish in ${Math.round(options.timeoutMs / 1000)} s and was killed`, true));
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(failure(`could not start (${error.message})`, false, { cause: error }));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(failure(code !== null ? `exited ${code}` : `was killed by ${signal}`));
    });
  });
}

/**
 * Waits for `operation`, whose command runs out of our hands but stops on `signal` (the Automation API's
 * `stack.up({ signal })` interrupts `pulumi` as Ctrl-C does). At `timeoutMs` the signal aborts and the
 * wait fails naming `what`, with the operation's own error (its output) if it stops within a few
 * seconds, and without it if it does not.
 *
 *   await withDeadline(`pulumi up in ${dir}`, left(), (signal) => e2e().run(stack, (s, onOutput) => s.up({ onOutput, signal })));
 */
export function withDeadline<T>(what: string, timeoutMs: number, operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const late = `${what} did not finish in ${Math.round(timeoutMs / 1000)} s and was interrupted`;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let grace: NodeJS.Timeout | undefined;
  const running = operation(controller.signal).catch((error: unknown) => {
    if (!controller.signal.aborted) throw error;
    throw new Error(`${late}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
  const stuck = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => {
      grace = setTimeout(() => reject(new Error(`${late}; it had not stopped ${STOP_GRACE_MS / 1000} s later`)), STOP_GRACE_MS);
    });
  });
  return Promise.race([running, stuck]).finally(() => {
    clearTimeout(timer);
    clearTimeout(grace);
  });
}
