/**
 * Work that must not overlap per key (an environment, a tree): each run starts once every earlier
 * run with the same key has settled, in call order; runs with other keys go on meanwhile. In this
 * process only: two emulators on one data directory do not see each other's queues.
 */
export class KeyedQueue {
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
