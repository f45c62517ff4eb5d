/**
 * The one per-tree queue: work that must not overlap on a tree runs in an exclusive section, each
 * starting once every earlier section on the same tree has settled, in call order; sections on other
 * trees go on meanwhile. A tree is named by its path (resolved), so the emulator's tool calls and
 * upload finalizes (`TreeStore.exclusive`, a whole call: hooks, tool, before/after view) and the
 * sandbox's runs (`runInSandbox`: bwrap's mount points in the tree, made and removed per run) share
 * one queue.
 *
 * Sections nest: a section on a tree opened inside a section on the same tree (the sandbox runs of a
 * tool call) runs in it at once, without waiting for the section it is part of; nested sections of
 * one section still run one after another. A nested section must be awaited before its outer
 * section ends. In this process only: two emulators on one data directory do not see each other's
 * sections.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";

/** Runs per key one after another, in call order; keys independent of each other. */
class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }
}

const outermost = new KeyedQueue();
/** The trees whose section this async context runs in, each with the queue of sections nested in it. */
const held = new AsyncLocalStorage<ReadonlyMap<string, KeyedQueue>>();

/** Runs `fn` in an exclusive section on the tree at `root` (see above). */
export function exclusive<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const key = path.resolve(root);
  const sections = held.getStore();
  const queue = sections?.get(key) ?? outermost;
  return queue.run(key, () => held.run(new Map(sections).set(key, new KeyedQueue()), fn));
}
