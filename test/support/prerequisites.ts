/**
 * Tests that need something of the machine (root, a cgroup, a tool) and cannot run without it. A
 * skip is reported by jest as skipped and warned with its reason; under GENV_TESTS_REQUIRE_ALL=1 (set
 * by .ci/run) it fails instead, naming what is missing, so that a green CI run never hides a skipped
 * boundary test.
 *
 *   describeNeeding({ "root (uid 0)": process.getuid?.() === 0 })("as root", () => { ... });
 *
 * `needs` maps each prerequisite, named as a reader would install or provide it, to whether this
 * machine has it. Every environment-dependent skip of the suite goes through here.
 */
export const REQUIRE_ALL_VARIABLE = "GENV_TESTS_REQUIRE_ALL";

type Needs = Record<string, boolean>;

/** The prerequisites `needs` lacks, or an empty list. */
export function missingOf(needs: Needs): string[] {
  return Object.entries(needs)
    .filter(([, present]) => !present)
    .map(([name]) => name);
}

const requireAll = () => process.env[REQUIRE_ALL_VARIABLE] === "1";

function failureFor(title: string, missing: string[]): Error {
  return new Error(`"${title}" cannot run here: missing ${missing.join("; ")}. ${REQUIRE_ALL_VARIABLE}=1 makes a skip a failure (unset it to skip).`);
}

/** `describe` when every prerequisite is present; otherwise a skipped describe, or a failing one under the switch. */
export function describeNeeding(needs: Needs): (title: string, body: () => void) => void {
  const missing = missingOf(needs);
  if (missing.length === 0) return describe;
  return (title, body) => {
    if (requireAll()) {
      describe(title, () => test(`needs ${missing.join("; ")}`, () => {
        throw failureFor(title, missing);
      }));
      return;
    }
    console.warn(`skipped "${title}": missing ${missing.join("; ")}`);
    describe.skip(title, body);
  };
}

/** `test` when every prerequisite is present; otherwise a skipped test, or a failing one under the switch. */
export function testNeeding(needs: Needs): (title: string, fn: jest.ProvidesCallback, timeoutMs?: number) => void {
  const missing = missingOf(needs);
  if (missing.length === 0) return test;
  return (title, fn, timeoutMs) => {
    if (requireAll()) {
      test(title, () => {
        throw failureFor(title, missing);
      });
      return;
    }
    console.warn(`skipped "${title}": missing ${missing.join("; ")}`);
    test.skip(title, fn, timeoutMs);
  };
}
