/** The plugin's compile cache stays bounded: what no plugin started from in a week goes, once a day at most. */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PRUNED_STAMP, pruneUnusedCaches, UNUSED_CACHE_MS } from "../../../provider/plugin/unused-caches";

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.parse("2026-12-02T12:00:00Z");

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "genv-compile-cache-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** An install's cache (a Node.js subdirectory with an entry) last started from `ageMs` before NOW. */
function versionCache(name: string, ageMs: number): string {
  const directory = path.join(root, name);
  mkdirSync(path.join(directory, "v22.23.5-x64-9ac5647c-0"), { recursive: true });
  writeFileSync(path.join(directory, "v22.23.5-x64-9ac5647c-0", "e3b0c442"), "compiled");
  const at = new Date(NOW - ageMs);
  utimesSync(directory, at, at);
  return directory;
}

function stampAged(ageMs: number): void {
  writeFileSync(path.join(root, PRUNED_STAMP), "");
  const at = new Date(NOW - ageMs);
  utimesSync(path.join(root, PRUNED_STAMP), at, at);
}

test("removes the installs unused for a week and a cache from before install directories, keeps the rest and its own", async () => {
  const unused = versionCache("0.1.0-3f1a2b4c5d6e", UNUSED_CACHE_MS + DAY_MS);
  const recent = versionCache("0.2.0-3f1a2b4c5d6e", UNUSED_CACHE_MS - DAY_MS);
  const own = versionCache("0.3.0-3f1a2b4c5d6e", 400 * DAY_MS); // started now, whatever its time says
  const beforeVersions = path.join(root, "v22.23.5-x64-9ac5647c-0"); // the layout before version directories
  mkdirSync(beforeVersions);
  utimesSync(beforeVersions, new Date(NOW - UNUSED_CACHE_MS), new Date(NOW - UNUSED_CACHE_MS));

  await pruneUnusedCaches({ root, keep: own, now: NOW });

  expect(existsSync(unused)).toBe(false);
  expect(existsSync(beforeVersions)).toBe(false);
  expect(existsSync(path.join(recent, "v22.23.5-x64-9ac5647c-0", "e3b0c442"))).toBe(true);
  expect(existsSync(path.join(own, "v22.23.5-x64-9ac5647c-0", "e3b0c442"))).toBe(true);
  expect(statSync(path.join(root, PRUNED_STAMP)).mtimeMs).toBe(NOW);
});

test("runs at most once a day: within a day of the last clean-up, nothing is removed", async () => {
  stampAged(23 * 60 * 60 * 1000);
  const unused = versionCache("0.1.0-3f1a2b4c5d6e", UNUSED_CACHE_MS + DAY_MS);
  await pruneUnusedCaches({ root, keep: path.join(root, "0.3.0-3f1a2b4c5d6e"), now: NOW });
  expect(existsSync(unused)).toBe(true);

  stampAged(DAY_MS + 1);
  await pruneUnusedCaches({ root, keep: path.join(root, "0.3.0-3f1a2b4c5d6e"), now: NOW });
  expect(existsSync(unused)).toBe(false);
});
