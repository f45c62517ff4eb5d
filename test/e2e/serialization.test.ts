// The dynamic provider as Pulumi serializes it from the installed package (not from the repo's
// sources, which the closure serializer would try to capture by value): in a child process under the
// packed workspace, an Environment is constructed under mocks with GOOGLE_API_KEY set, its `__provider`
// text is taken from the registered inputs, then loaded with require-from-string `.handler()` exactly as
// @pulumi/pulumi/cmd/dynamic-provider does, configured, and driven through check, create, read and
// delete against the emulator.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";

import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, isGone, useE2E } from "./_workspace";

const execFileAsync = promisify(execFile);

// Runs with cwd = a program dir under the workspace; prints one JSON line.
const SCRIPT = `"use strict";
const path = require("node:path");
const pulumi = require("@pulumi/pulumi");
const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const requireFromString = require(require.resolve("require-from-string", { paths: [pulumiDir] }));
const { Config } = require("@pulumi/pulumi/cmd/dynamic-provider/config");

async function serialized() {
  let resolveText;
  const text = new Promise((resolve) => (resolveText = resolve));
  await pulumi.runtime.setMocks({
    newResource(args) {
      resolveText(args.inputs.__provider);
      return { id: "mock", state: args.inputs };
    },
    call: () => ({}),
  }, "serialize", "test");
  const { Environment } = require("pulumi-gemini-environments");
  new Environment("probe", { sources: [{ type: "inline", target: "a.txt", content: "a" }] });
  return text;
}

async function main() {
  const text = await serialized();
  // As cmd/dynamic-provider/index.js getProvider does:
  const provider = requireFromString(text).handler();
  await provider.configure({ config: new Config({ "gemini-environments:baseUrl": process.argv[2] }, "serialize") });
  const inputs = { sources: [{ type: "inline", target: "hello.txt", content: "hello\\n" }], network: "disabled" };
  const checked = await provider.check({}, inputs);
  const created = await provider.create(checked.inputs);
  const read = await provider.read(created.id, created.outs);
  await provider.delete(created.id, created.outs);
  const readAfterDelete = await provider.read(created.id, created.outs);
  console.log(JSON.stringify({ text, checked, created, read, readAfterDelete }));
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

describe("the serialized dynamic provider from the packed package", () => {
  const e2e = useE2E();

  test("holds no key, is small, and runs configure, check, create, read and delete", async () => {
    const dir = path.join(e2e().workspace.root, "programs", "serialize");
    await fs.promises.mkdir(dir, { recursive: true });
    await fs.promises.writeFile(path.join(dir, "serialize.js"), SCRIPT);
    const env = { ...e2e().engine.env, GOOGLE_API_KEY: TEST_KEY };
    // `node` from the engine's PATH, as the language host and the provider launcher run it
    // (scripts/e2e-node22 puts Node.js 22 first there).
    const { stdout } = await execFileAsync("node", ["serialize.js", e2e().emulator.url], { cwd: dir, env });
    const result = JSON.parse(stdout.trim().split("\n").pop()!);

    expect(result.text).toContain('require("pulumi-gemini-environments/dist/provider/environment/dynamic-provider.js")');
    expect(result.text).not.toContain(TEST_KEY);
    expect(result.text.length).toBeLessThan(1024); // one require: it is stored twice per resource and rewritten at every checkpoint

    expect(result.checked.failures).toEqual([]);
    expect(result.created.id).toMatch(/^env_[0-9a-f]{20}$/);
    expect(result.created.outs).toMatchObject({ status: "active", fileCount: 1, network: "disabled" });
    expect(result.read).toEqual({ id: result.created.id, props: { ...result.created.outs, lastAccessed: expect.any(String) } });
    expect(result.readAfterDelete).toEqual({ id: "" });
    expect(await isGone(e2e().client, result.created.id)).toBe(true);
  }, E2E_TEST_TIMEOUT_MS);
});
