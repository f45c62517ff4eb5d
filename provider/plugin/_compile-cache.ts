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
 *
 * Node.js never removes an entry, and keys each by the module's path and text, so every plugin version
 * and every place it is installed at adds a set of a few hundred files (about 360, 3 MB). In our
 * default directory each has its own subdirectory (`<version>-<hash of the install path>`), and
 * `pruneCompileCache` removes those no plugin has started from in a week: a plugin installed afresh
 * for each CI job leaves no more than a week's worth. A directory named by `NODE_COMPILE_CACHE` is the
 * user's to manage, and is left alone.
 */
import { createHash } from "node:crypto";
import { mkdirSync, utimesSync } from "node:fs";
import * as nodeModule from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { aroundCalls } from "./_around-calls";
import { inSingleExecutable, packageRoot, packageVersion } from "../contracts/package-identity";
import { pruneUnusedCaches } from "./unused-caches";

const { enableCompileCache, flushCompileCache } = nodeModule as {
  enableCompileCache?: (directory?: string) => unknown;
  flushCompileCache?: () => void;
};

// A single executable's code is one injected script, which Node.js's compile cache does not cover.
const enabled = enableCompileCache !== undefined && !process.env.NODE_DISABLE_COMPILE_CACHE && !inSingleExecutable();
/** Our default directory of per-version caches; undefined when the cache is off or the user named one. */
const ownRoot = enabled && !process.env.NODE_COMPILE_CACHE ? path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-gemini-environments", "compile-cache") : undefined;
const ownDirectory = ownRoot && path.join(ownRoot, installationName());
if (enabled) {
  if (ownDirectory) markInUse(ownDirectory);
  enableCompileCache(process.env.NODE_COMPILE_CACHE || ownDirectory);
}

/** `<version>-<hash of the install path>` of this plugin. */
function installationName(): string {
  let version = "unknown";
  try {
    const declared: unknown = packageVersion();
    if (typeof declared === "string" && /^[\w.+-]+$/.test(declared)) version = declared;
  } catch {
    // a version is only part of the name
  }
  return `${version}-${createHash("sha256").update(packageRoot()).digest("hex").slice(0, 12)}`;
}

/** A started plugin's mark on its version's directory: its time is when a plugin last started from it. */
function markInUse(directory: string): void {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const now = new Date();
    utimesSync(directory, now, now);
  } catch {
    // Node.js reports a cache it cannot use by itself, and runs without it
  }
}

/** Removes, at most once a day, the directories of our cache no plugin has started from in a week. */
export async function pruneCompileCache(): Promise<void> {
  if (ownRoot && ownDirectory) await pruneUnusedCaches({ root: ownRoot, keep: ownDirectory });
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
