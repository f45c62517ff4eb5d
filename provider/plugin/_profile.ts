/**
 * The plugin's per-phase timings, off unless `GENV_PROVIDER_PROFILE` names a file: then every gRPC
 * call (`grpc.<method>`: from the handler's start to its answer, the server's marshalling included)
 * and every core call inside it (`core.<method>`: check, diff, create, read, update, delete) appends a
 * line `{"phase": …, "ms": …}` to that file. A call's marshalling is its gRPC time less its core
 * time; `npm run bench fleet` prints each phase per resource.
 *
 * Decided once at start-up: when off, nothing is wrapped and the calls run exactly as without it.
 * The file is appended synchronously, line by line, because the engine ends a plugin with a signal,
 * which leaves no chance to flush a buffer.
 */
import { appendFileSync } from "node:fs";
import { aroundCalls } from "./_around-calls";

const file = process.env.GENV_PROVIDER_PROFILE || undefined;

/** Whether this process records its timings. */
export const profiling = file !== undefined;

function record(phase: string, started: number): void {
  appendFileSync(file!, `${JSON.stringify({ phase, ms: performance.now() - started })}\n`);
}

/** `target` with its methods (all, or `methods`) timed as `<prefix>.<method>`: an async one until its promise settles. */
export function timedMethods<T extends object>(target: T, prefix: string, methods?: readonly string[]): T {
  return aroundCalls(
    target,
    (name) => {
      const started = performance.now();
      return () => record(`${prefix}.${name}`, started);
    },
    methods,
  );
}

type UnaryHandler = (this: unknown, call: unknown, callback: (error: unknown, value?: unknown) => void) => void;

/** The gRPC service `implementation` with each of `methods` timed as `grpc.<method>`, from its start to its callback. */
export function timedHandlers(implementation: Record<string, unknown>, methods: readonly string[]): Record<string, unknown> {
  const timed = Object.create(implementation) as Record<string, unknown>;
  for (const name of methods) {
    const handler = implementation[name];
    if (typeof handler !== "function") continue;
    timed[name] = function (this: unknown, call: unknown, callback: (error: unknown, value?: unknown) => void) {
      const started = performance.now();
      return (handler as UnaryHandler).call(this, call, (error, value) => {
        record(`grpc.${name}`, started);
        callback(error, value);
      });
    };
  }
  return timed;
}
