import { exclusive } from "../../../confine";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("exclusive: the one per-tree queue", () => {
  test("sections on one tree run one after another, in call order; a failure does not block the next", async () => {
    const log: string[] = [];
    const section = (name: string, fail = false) =>
      exclusive("/trees/a", async () => {
        log.push(`${name} in`);
        await tick();
        log.push(`${name} out`);
        if (fail) throw new Error(name);
      });
    const results = await Promise.allSettled([section("1"), section("2", true), section("3")]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(log).toEqual(["1 in", "1 out", "2 in", "2 out", "3 in", "3 out"]);
  });

  test("a tree is named by its resolved path; other trees go on meanwhile", async () => {
    const log: string[] = [];
    const section = (root: string, name: string) =>
      exclusive(root, async () => {
        log.push(`${name} in`);
        await tick();
        log.push(`${name} out`);
      });
    await Promise.all([section("/trees/b", "b"), section("/trees/c", "c"), section("/trees/x/../b", "b again")]);
    expect(log.slice(0, 3)).toEqual(["b in", "c in", "b out"]); // c began while b ran
    expect(log.indexOf("b again in")).toBeGreaterThan(log.indexOf("b out"));
    expect(log).toHaveLength(6);
  });

  test("sections nested in a section of the same tree run in it at once, one after another; a later section waits for all", async () => {
    const log: string[] = [];
    const outer = exclusive("/trees/d", async () => {
      log.push("outer in");
      await Promise.all(
        ["n1", "n2"].map((name) =>
          exclusive("/trees/d", async () => {
            log.push(`${name} in`);
            await tick();
            log.push(`${name} out`);
          }),
        ),
      );
      log.push("outer out");
    });
    const later = exclusive("/trees/d", async () => {
      log.push("later");
    });
    await Promise.all([outer, later]);
    expect(log).toEqual(["outer in", "n1 in", "n1 out", "n2 in", "n2 out", "outer out", "later"]);
  });
});
