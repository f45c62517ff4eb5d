/**
 * One way to run something around each method call of an object, for the plugin's two wrappers: the
 * compile cache's save after each call (_compile-cache.ts) and the profile's timings (_profile.ts).
 */

/**
 * `target` with each of `methods` (default: every function it has, own or inherited) wrapped: `onCall`
 * runs when a call starts and returns what runs when it ends, an async call's when its promise settles.
 */
export function aroundCalls<T extends object>(target: T, onCall: (method: string) => () => void, methods?: readonly string[]): T {
  const wrapped = Object.create(target) as Record<string, unknown>;
  for (const name of methods ?? functionNames(target)) {
    const method = (target as Record<string, unknown>)[name];
    if (typeof method !== "function") continue;
    wrapped[name] = (...args: unknown[]) => {
      const ended = onCall(name);
      const result = (method as (...a: unknown[]) => unknown).apply(target, args);
      if (result instanceof Promise) return result.finally(ended);
      ended();
      return result;
    };
  }
  return wrapped as T;
}

function functionNames(target: object): string[] {
  const names: string[] = [];
  // for…in: an object already wrapped inherits its methods.
  for (const name in target) if (typeof (target as Record<string, unknown>)[name] === "function") names.push(name);
  return names;
}
