/**
 * What 0.2.0 renamed stays readable: programs and states written for 0.1.0 keep working. `updateStrategy`
 * `inPlace` is now `in_place` (every enum value is snake_case, as the API's are).
 */
import { environmentCore } from "../../../provider/environment/core";
import type { EnvironmentArgs, EnvironmentInputs, EnvironmentOutputs } from "../../../provider/environment/inputs";

const SOURCES = [{ type: "inline" as const, target: "workspace/a.txt", content: "a\n" }];
/** A TypeScript program of 0.1.0 still compiles: an Environment's arguments take the former name. */
const DECLARED_IN_0_1_0: EnvironmentArgs = { sources: SOURCES, updateStrategy: "inPlace" };

describe("updateStrategy inPlace, its name before 0.2.0", () => {
  test("check accepts it and keeps it by its current name, in_place", () => {
    const { inputs, failures } = environmentCore.check({}, DECLARED_IN_0_1_0 as EnvironmentInputs);
    expect(failures).toEqual([]);
    expect(inputs.updateStrategy).toBe("in_place");
  });

  test("a state that holds it and a program that says in_place (or nothing) differ in nothing", () => {
    const olds = { sources: SOURCES, updateStrategy: "inPlace", status: "active" } as unknown as EnvironmentOutputs;
    expect([...environmentCore.diff(olds, { sources: SOURCES, updateStrategy: "in_place" } as EnvironmentInputs).changes.keys()]).toEqual([]);
    expect([...environmentCore.diff(olds, { sources: SOURCES } as EnvironmentInputs).changes.keys()]).toEqual([]);
  });

  test("it still means in place: an edited inline file is uploaded, the environment kept", () => {
    const olds = { sources: SOURCES, updateStrategy: "inPlace", status: "active" } as unknown as EnvironmentOutputs;
    const edited = [{ ...SOURCES[0]!, content: "b\n" }];
    const diff = environmentCore.diff(olds, { sources: edited, updateStrategy: "inPlace" } as unknown as EnvironmentInputs);
    expect([...diff.changes.values()].some((change) => change.replace)).toBe(false);
  });

  test("any other value fails naming both", () => {
    const { failures } = environmentCore.check({}, { sources: SOURCES, updateStrategy: "in-place" } as unknown as EnvironmentInputs);
    expect(failures).toEqual([expect.objectContaining({ property: "updateStrategy", reason: expect.stringContaining('must be "in_place"') })]);
  });
});
