// The SDK's promise stacks formatted plainly while our resources register (provider/contracts/promise-stacks.ts):
// the real `debuggablePromise` of @pulumi/pulumi, a formatter standing in for the source-map-support that
// Pulumi's program runner installs, and plugin.Environment registered against the SDK's mocks.
import * as pulumi from "@pulumi/pulumi";
import { plainPromiseStacks } from "../../../provider/contracts/promise-stacks";
import { plugin } from "../../../index";

// Internal to the SDK (left out of its typings), the function whose stacks these are.
const { debuggablePromise } = require("@pulumi/pulumi/runtime/debuggable") as { debuggablePromise: (promise: Promise<unknown>, context: string) => Promise<unknown> };

const jestFormatter = Error.prepareStackTrace;
let mappedStacks = 0;
const mapped = (error: Error) => {
  mappedStacks += 1;
  return `mapped ${error}`;
};

beforeAll(() => {
  pulumi.runtime.setMocks({ newResource: (args) => ({ id: `${args.name}_id`, state: {} }), call: () => ({}) }, "project", "stack", true);
});
beforeEach(() => {
  Error.prepareStackTrace = mapped;
  mappedStacks = 0;
});
afterEach(() => {
  Error.prepareStackTrace = jestFormatter;
  delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
});

/** The stack the SDK keeps on a promise it tracks (read by its leak report). */
function keptStack(): string {
  const promise = Promise.resolve();
  void debuggablePromise(promise, "test");
  return (promise as unknown as { _debugStackTrace: string })._debugStackTrace;
}

describe("plainPromiseStacks", () => {
  test("formats the SDK's promise stacks plainly, and every other stack as the installed formatter does, until restored", () => {
    const restore = plainPromiseStacks();
    expect(keptStack()).toMatch(/^Error\n {4}at debuggablePromise \(.*[\\/]@pulumi[\\/]pulumi[\\/]runtime[\\/]debuggable\.js:\d+:\d+\)\n/);
    expect(new Error("mine").stack).toBe("mapped Error: mine");
    restore();
    expect(keptStack()).toBe("mapped Error");
    expect(Error.prepareStackTrace).toBe(mapped);
  });

  test("changes nothing when PULUMI_DEBUG_PROMISE_LEAKS asks for the leak report's stacks", () => {
    process.env.PULUMI_DEBUG_PROMISE_LEAKS = "1";
    const restore = plainPromiseStacks();
    expect(keptStack()).toBe("mapped Error");
    restore();
  });

  test("leaves a formatter set meanwhile in place", () => {
    const restore = plainPromiseStacks();
    const other = () => "other";
    Error.prepareStackTrace = other;
    restore();
    expect(Error.prepareStackTrace).toBe(other);
  });
});

describe("an Environment's registration", () => {
  test("sends one stack or two to the formatter, not four for each of its ten properties", async () => {
    const environment = new plugin.Environment("agent", { sources: [{ type: "inline", target: "a.txt", content: "a" }], network: { disabled: true } });
    expect(mappedStacks).toBeLessThanOrEqual(2); // the resource's source position
    expect(Error.prepareStackTrace).toBe(mapped);
    await expect(new Promise((resolve) => environment.urn.apply(resolve))).resolves.toContain("agent");
  });
});
