/**
 * Host-side operations on a tree that untrusted code can write: an environment's files, which the
 * agent changes from inside its sandbox while the emulator (often root) reads, lists, copies and
 * deletes them from outside.
 *
 * The rule: the kernel never resolves a path of ours through the tree. Every name is looked up one
 * component at a time in a directory we hold open, through `/proc/self/fd/<dir>/<name>` — the
 * `openat(dir, name)` of a language without `openat`: the magic link is the very directory the
 * descriptor holds, wherever it has been moved since — and every open adds `O_NOFOLLOW`, so a symlink
 * is never followed by the kernel. Symlinks are followed by us, when the operation wants it, as the
 * sandbox sees them (the tree is `/`: an absolute target starts again at the tree's root, `..` stops
 * there). A check-then-use race therefore has nothing to win: swapping a directory for a symlink
 * between two of our steps makes the next step fail or stay inside the tree.
 *
 * Regular files are opened with `O_NONBLOCK` and checked with `fstat` before any byte is read, so a
 * FIFO never blocks a thread and a socket, FIFO or device is refused (`SpecialFileError`).
 */
export { Directory, withTree, type Owner } from "./_directory";
export { ConfineError, SpecialFileError, specialKind, type ConfineErrorCode } from "./_errors";
export { inParent, readFile, release, resolve, type Resolved, type ResolveOptions } from "./_read";
export { removeTree } from "./_remove";
export { countFiles, kindOf, walk, type EntryKind, type WalkEntry, type WalkOptions } from "./_walk";
export { chownTree, copyContents, ensureDirectories, symlinkStaysInside, type CopyResult } from "./_write";
export { exclusive } from "./exclusive";
