/**
 * The Node.js SDK's promise stacks, formatted plainly while one of our resources registers.
 *
 * `@pulumi/pulumi` keeps a stack on each promise it tracks (`debuggablePromise`, runtime/debuggable.ts),
 * formatted at once (`new Error().stack`): four for each declared property of a resource (its Output's
 * value, known-ness, secret-ness and dependencies; runtime/rpc.ts, `transferProperties`). Pulumi's
 * program runner installs source-map-support, which maps each frame of each such stack: ≈ 170 µs a
 * stack, and an Environment declares ten properties (its inputs and the computed outputs the engine
 * fills in) where a bare resource of the same inputs declares two. At 1,000 environments that was
 * 5 s more program CPU on a no-op preview than the bare resource's, more than the engine and the
 * plugin spend together. The stacks are read by one thing only: the leak report that
 * `PULUMI_DEBUG_PROMISE_LEAKS` turns on.
 *
 * So, during the synchronous part of our resources' constructors, a stack whose top frame is
 * `debuggablePromise` is V8's own text of its frames, unmapped (positions in the JavaScript that runs);
 * every other stack goes to the installed formatter as before: the resource's source position, the
 * error a failed registration reports, the program's own. With `PULUMI_DEBUG_PROMISE_LEAKS` set, or no
 * formatter installed, nothing changes.
 *
 * ```ts
 * const restore = plainPromiseStacks();
 * try {
 *   super(type, name, props, opts);
 * } finally {
 *   restore();
 * }
 * ```
 */

type PrepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => unknown;

/** Installs the plain formatting of the SDK's promise stacks; returns what puts the formatter back. */
export function plainPromiseStacks(): () => void {
  const installed = Error.prepareStackTrace as PrepareStackTrace | undefined;
  if (typeof installed !== "function" || process.env.PULUMI_DEBUG_PROMISE_LEAKS) return () => undefined;
  const plainForPromises: PrepareStackTrace = (error, frames) => (isPromiseStack(frames) ? plainStack(error, frames) : installed(error, frames));
  Error.prepareStackTrace = plainForPromises;
  return () => {
    // Whatever set its own formatter meanwhile keeps it.
    if (Error.prepareStackTrace === plainForPromises) Error.prepareStackTrace = installed;
  };
}

function isPromiseStack(frames: NodeJS.CallSite[]): boolean {
  const top = frames[0];
  return top?.getFunctionName() === "debuggablePromise" && /[\\/]@pulumi[\\/]pulumi[\\/]/.test(top.getFileName() ?? "");
}

/** What V8 writes without a formatter: the error, then a line per frame. */
function plainStack(error: Error, frames: NodeJS.CallSite[]): string {
  return [String(error), ...frames.map((frame) => `    at ${frame}`)].join("\n");
}
