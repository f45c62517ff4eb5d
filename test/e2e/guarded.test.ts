// The hooks linter stops a preview through the real engine, and the package schema passes the CLI's
// own checker.
import * as path from "node:path";

import { E2E_TEST_TIMEOUT_MS, program, useE2E } from "./_workspace";
import { repoRoot } from "./engine";

const PROGRAM = program(`
const hooks = new genv.HookBundle({
  hooks: { "file-gate": genv.group().before("*_file", genv.command("true")) },
});
const env = new genv.GuardedEnvironment("linted", { hooks, network: genv.NetworkPolicy.disabled() });
exports.environmentId = env.environmentId;
`);

describe("GuardedEnvironment and the schema (real engine)", () => {
  const e2e = useE2E();

  test("a lint error stops pulumi preview with the finding's path and code", async () => {
    const dir = await e2e().workspace.addProgram("guarded", PROGRAM);
    const stack = await e2e().stack(dir, "guarded");
    const requests = await e2e().requestsDuring(async () => {
      await expect(e2e().run(stack, (s, onOutput) => s.preview({ onOutput }))).rejects.toThrow(
        /sources\[0\]\.content: \/file-gate\/pre_tool_execution\/0\/matcher: glob-matcher: "\*_file"/,
      );
    });
    expect(requests).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("pulumi schema check passes on schema.json", async () => {
    const out = await e2e().pulumi(["schema", "check", path.join(repoRoot, "schema.json")], repoRoot);
    expect(out).not.toMatch(/error/i);
  }, E2E_TEST_TIMEOUT_MS);
});
