/**
 * The pieces of the environment limits on tool calls: which files an undo removes or cuts back, the
 * snapshot cache's bound, the message, and the host-side primitives refusing symlinks.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileSizeCap, limitMessage, SnapshotCache, undoPlan } from "../../../emulator/trees/budget";
import { removeFile, truncateFile, walkTree, type FileEntry, type TreeWalk } from "../../../emulator/trees/snapshot";

const files = (entries: Record<string, [number, number]>) =>
  new Map<string, FileEntry>(Object.entries(entries).map(([p, [ino, size]]) => [p, { ino: BigInt(ino), size }]));
const walkOf = (entries: Record<string, [number, number]>): TreeWalk => {
  const map = files(entries);
  return { files: map, fileCount: map.size, sizeBytes: [...map.values()].reduce((a, e) => a + e.size, 0), fingerprint: "" };
};

describe("undoPlan", () => {
  test("new files go, grown files are cut back, shrunk and unchanged ones stay", () => {
    const before = files({ a: [1, 10], b: [2, 10], c: [3, 10] });
    const after = files({ a: [1, 50], b: [2, 5], c: [3, 10], d: [4, 7] });
    expect(undoPlan(before, after)).toEqual({ remove: [{ path: "d", ino: 4n }], truncate: [{ path: "a", ino: 1n, size: 10 }] });
  });

  test("a file replaced at its path (another inode) is the call's; a renamed one is kept, cut back if grown", () => {
    const before = files({ a: [1, 10], b: [2, 10] });
    const after = files({ a: [9, 10], moved: [2, 30] });
    expect(undoPlan(before, after)).toEqual({ remove: [{ path: "a", ino: 9n }], truncate: [{ path: "moved", ino: 2n, size: 10 }] });
  });

  test("a hard link the call added to a file from before is removed; the file stays where it was", () => {
    const before = files({ a: [1, 10] });
    const after = files({ a: [1, 10], "x/link1": [1, 10], "x/link2": [1, 10] });
    expect(undoPlan(before, after).remove.map((entry) => entry.path)).toEqual(["x/link1", "x/link2"]);
  });

  test("after a rename, only the first path of the inode keeps it", () => {
    const before = files({ a: [1, 10] });
    const after = files({ b: [1, 10], c: [1, 10] });
    expect(undoPlan(before, after)).toEqual({ remove: [{ path: "c", ino: 1n }], truncate: [] });
  });
});

describe("SnapshotCache", () => {
  test("bounded by the files held across environments (each counts one more), least recently used out", () => {
    const cache = new SnapshotCache(10);
    cache.set("e1", 1, walkOf({ a: [1, 1], b: [2, 1] })); // 3
    cache.set("e2", 1, walkOf({ a: [1, 1], b: [2, 1] })); // 6
    expect(cache.get("e1", 1)).toBeDefined(); // e1 is now the most recent
    cache.set("e3", 1, walkOf({ a: [1, 1], b: [2, 1], c: [3, 1] })); // 10
    expect(cache.size).toBe(10);
    cache.set("e4", 1, walkOf({})); // 11 → e2 goes
    expect(cache.get("e2", 1)).toBeUndefined();
    expect(cache.get("e1", 1)).toBeDefined();
    expect(cache.size).toBe(8);
  });

  test("a stale stamp (the tree changed since) is a miss and drops the entry; a too large walk is not kept", () => {
    const cache = new SnapshotCache(10);
    cache.set("e1", 5, walkOf({ a: [1, 1] }));
    expect(cache.get("e1", 6)).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set("big", 1, walkOf(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, [i, 1]]))));
    expect(cache.size).toBe(0);
  });
});

describe("the message and the file cap", () => {
  test("the limit error says what the call would have left, the limits, and what was undone", () => {
    expect(limitMessage(walkOf({ a: [1, 1024 ** 3 + 400 * 1024 ** 2] }), { maxBytes: 1024 ** 3, maxFiles: 100_000 }, { removed: 1, truncated: 2, failed: 0 })).toMatchInlineSnapshot(
      `"environment limit exceeded: the call would leave 1.39 GiB in 1 file (limit 1 GiB and 100,000 files); the 1 file it created was removed and the 2 files it grew were cut back to their sizes before the call"`,
    );
  });

  test("RLIMIT_FSIZE: the remaining bytes in 512-byte blocks, at least 64 KiB, at most maxFileBytes", () => {
    const limits = { maxBytes: 8 * 1024 ** 2, maxFiles: 50 };
    expect(fileSizeCap(walkOf({ a: [1, 3] }), limits, 256 * 1024 ** 2)).toBe(8 * 1024 ** 2);
    expect(fileSizeCap(walkOf({ a: [1, 8 * 1024 ** 2] }), limits, 256 * 1024 ** 2)).toBe(64 * 1024);
    expect(fileSizeCap(walkOf({}), limits, 1024 ** 2)).toBe(1024 ** 2);
  });
});

describe("host-side primitives", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "genv-budget-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("never through a symlinked parent, never through a symlink, never another inode", async () => {
    const root = path.join(dir, "tree");
    const outside = path.join(dir, "outside");
    mkdirSync(root);
    mkdirSync(outside);
    writeFileSync(path.join(outside, "secret"), "host data");
    const ino = lstatSync(path.join(outside, "secret")).ino;
    symlinkSync(outside, path.join(root, "link"));
    symlinkSync(path.join(outside, "secret"), path.join(root, "file-link"));

    expect(await removeFile(root, "link/secret", BigInt(ino))).toBe(false);
    expect(await truncateFile(root, "link/secret", BigInt(ino), 0)).toBe(false);
    expect(await truncateFile(root, "file-link", BigInt(ino), 0)).toBe(false);
    expect(readFileSync(path.join(outside, "secret"), "utf8")).toBe("host data");

    writeFileSync(path.join(root, "mine"), "0123456789");
    const walk = await walkTree(root);
    expect([...walk.files.keys()]).toEqual(["mine"]); // symlinks are neither counted nor followed
    const mine = walk.files.get("mine")!;
    expect(await truncateFile(root, "mine", mine.ino + 1n, 4)).toBe(false);
    expect(await truncateFile(root, "mine", mine.ino, 4)).toBe(true);
    expect(readFileSync(path.join(root, "mine"), "utf8")).toBe("0123");
    expect(await removeFile(root, "mine", mine.ino)).toBe(true);
  });
});
