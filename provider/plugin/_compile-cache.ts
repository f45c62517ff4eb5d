/**
 * Node.js's on-disk compile cache (Node.js 22.1+) for the plugin's modules: a plugin process lives for
 * one `pulumi` command, and compiling the modules its first calls load (the resource cores, zod, the
 * HTTP client) was most of its own cost on a fleet. Imported first by main.ts, before anything loads.
 *
 * The cache is the user's (`$XDG_CACHE_HOME` or `~/.cache`, `pulumi-gemini-environments/compile-cache`),
 * never a shared temp dir, where another user could plant compiled code; `NODE_COMPILE_CACHE` names
 * another directory, `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Node.js writes the cache when a
 * process exits, but the engine ends a plugin with SIGINT (then SIGKILL): so the plugin writes what it
 * compiled after each call instead (`savingCompiledCode`), which costs nothing once the cache is warm.
 */
import * as nodeModule from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { aroundCalls } from "./_around-calls";

const { enableCompileCache, flushCompileCache } = nodeModule as {
  enableCompileCache?: (directory?: string) => unknown;
  flushCompileCache?: () => void;
};

const enabled = enableCompileCache !== undefined && !process.env.NODE_DISABLE_COMPILE_CACHE;
if (enabled) {
  enableCompileCache(process.env.NODE_COMPILE_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-gemini-environments", "compile-cache"));
}

let scheduled = false;
/** Writes what was compiled since the last write, after the current call's answer has gone out. */
function saveCompiledCode(): void {
  if (!enabled || !flushCompileCache || scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    flushCompileCache();
  });
}

/** `provider` with the compiled code saved after each of its calls settles. */
export function savingCompiledCode<T extends object>(provider: T): T {
  if (!enabled || !flushCompileCache) return provider;
  return aroundCalls(provider, () => saveCompiledCode);
}
