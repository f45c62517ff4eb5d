/**
 * The compile cache's clean-up (`_compile-cache.ts`), apart from the module that turns the cache on
 * when it loads: a directory per installed plugin, whose time is when a plugin last started from it.
 * What is removed costs one start of about 0.1 s more, compiling again.
 */
import { lstatSync, promises as fs, utimesSync, writeFileSync } from "node:fs";
import * as path from "node:path";

const DAY_MS = 24 * 60 * 60 * 1000;
/** An installed plugin's cache unused this long is removed; its next start compiles again. */
export const UNUSED_CACHE_MS = 7 * DAY_MS;
/** Its time is the last clean-up's. */
export const PRUNED_STAMP = ".pruned";

/**
 * At most once a day (the time of `<root>/.pruned`), removes what in `root` was last used
 * `UNUSED_CACHE_MS` ago or more: directories no plugin has started from since, and anything else as
 * old (the cache of a plugin before installs had directories). `keep` is never removed.
 */
export async function pruneUnusedCaches({ root, keep, now = Date.now() }: { root: string; keep: string; now?: number }): Promise<void> {
  const stamp = path.join(root, PRUNED_STAMP);
  const pruned = lstatSync(stamp, { throwIfNoEntry: false });
  if (pruned && now - pruned.mtimeMs < DAY_MS) return;
  writeFileSync(stamp, "");
  utimesSync(stamp, new Date(now), new Date(now));
  for (const name of await fs.readdir(root)) {
    const entry = path.join(root, name);
    if (name === PRUNED_STAMP || entry === path.resolve(keep)) continue;
    const stat = await fs.lstat(entry).catch(() => undefined);
    if (stat && now - stat.mtimeMs >= UNUSED_CACHE_MS) await fs.rm(entry, { recursive: true, force: true });
  }
}
