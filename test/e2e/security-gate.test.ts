// examples/security-gate, the TypeScript program of the registry's overview (docs/_index.md) and of
// `npm run demo`, through the real engine: up creates the guarded environment with the gate's files
// and no network; destroy removes it.
import type { Stack } from "@pulumi/pulumi/automation";

import { E2E_TEST_TIMEOUT_MS, isGone, useE2E } from "./_workspace";

describe("examples/security-gate (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let id: string;

  beforeAll(async () => {
    const dir = await e2e().workspace.addExample("security-gate");
    stack = await e2e().stack(dir, "security-gate");
  }, E2E_TEST_TIMEOUT_MS);

  test("up creates the environment: the gate's hooks.json and script (wrapped to fail closed), the workspace note, no network", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    id = up.outputs.environmentId.value;
    expect(up.outputs.status.value).toBe("active");
    expect(up.outputs.fileCount.value).toBe(4);
    const environment = await e2e().client.get(id);
    expect(environment.sources?.map((source) => source.target).sort()).toEqual([".agents/hooks-scripts/gate.py", ".agents/hooks-scripts/genv-on-failure-deny.sh", ".agents/hooks.json", "workspace/README.md"]);
    // onFailure "deny": the gate's own decision still decides, through the wrapper.
    const denied = await e2e().client.executeTool(id, { name: "code_execution", args: { code: "rm -rf /workspace", language: "bash" } });
    expect(denied).toMatchObject({ decision: "deny", reason: "Destructive command blocked by security gate." });
    expect(environment.network).toBe("disabled"); // the wire form of NetworkPolicy.disabled()
  }, E2E_TEST_TIMEOUT_MS);

  test("destroy removes it", async () => {
    await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(await isGone(e2e().client, id)).toBe(true);
  }, E2E_TEST_TIMEOUT_MS);
});
