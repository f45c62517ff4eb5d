// A Go program with the generated SDK on the real engine: examples/go-environment, unchanged but for
// its go.mod's `replace`, pointed at this checkout's sdk/go — a Credential from secret stack config, an
// Environment whose allowlist references it, a GuardedEnvironment whose policy case runs at preview —
// run by the Go language host of scripts/pulumi-engine (it compiles the program with `go build`), the
// plugin found through a plugin path the test adds: up; a no-op preview with no API call and a state
// without the token or the key; destroy.
import * as fs from "node:fs";
import * as path from "node:path";

import type { Stack } from "@pulumi/pulumi/automation";

import { ownerOf } from "../../emulator/api";
import { TEST_KEY } from "../support/emulator";
import { goToolchainNeeds, replaceGoSdk } from "../support/go";
import { describeNeeding } from "../support/prerequisites";
import { E2E_TEST_TIMEOUT_MS, listIds, useE2E } from "./_workspace";
import { repoRoot } from "./engine";

const TOKEN = "ghp_go-41c9a7";
// The first run compiles the program and github.com/pulumi/pulumi/sdk/v3 (minutes on a busy 2-core
// machine; seconds once Go's build cache holds them).
const FIRST_RUN_TIMEOUT_MS = 20 * 60_000;

describeNeeding(goToolchainNeeds())("Go with the generated SDK: examples/go-environment (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let dir: string;

  beforeAll(async () => {
    dir = await e2e().workspace.addExample("go-environment");
    await replaceGoSdk(dir, path.join(repoRoot, "sdk", "go"));
    // The example gets the plugin by download or `pulumi plugin install`; here, the package's launcher.
    await fs.promises.appendFile(path.join(dir, "Pulumi.yaml"), `plugins:\n  providers:\n    - name: gemini-environments\n      path: ${e2e().pluginBinDir}\n`);
    stack = await e2e().stack(dir, "go", { credentials: "config", secrets: { githubToken: TOKEN } });
  }, E2E_TEST_TIMEOUT_MS);

  test("up creates the credential, the environment whose allowlist references it, and the guarded environment with its gate", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    // The stack, the credential, the environment, the component and its environment.
    expect(up.summary.resourceChanges).toEqual({ create: 5 });
    expect(up.outputs.agentStatus.value).toBe("active");
    expect(up.outputs.policyTests.value).toBe("1 passed");
    const agent = await e2e().client.get(up.outputs.agentId.value);
    expect(agent.sources).toEqual([{ type: "inline", target: "workspace/TASK.md", content: "Triage the open issues.\n" }]);
    expect(agent.network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "github-agent-token" }] });
    const guarded = await e2e().client.get(up.outputs.guardedId.value);
    expect(guarded.network).toBe("disabled");
    const hooks = guarded.sources?.find((source) => source.target === ".agents/hooks.json") as { content?: string } | undefined;
    expect(JSON.parse(hooks?.content ?? "{}")).toEqual({
      "security-gate": { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] },
    });
    expect(e2e().emulator.credentials.reveal(ownerOf(TEST_KEY), "github-agent-token")).toMatchObject({ token: TOKEN });
  }, FIRST_RUN_TIMEOUT_MS);

  test("a no-op preview makes no API call; the state holds neither the token nor the key", async () => {
    let preview: Awaited<ReturnType<Stack["preview"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    });
    expect(preview!.changeSummary).toEqual({ same: 5 });
    expect(requests).toEqual([]);
    const exported = await e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    for (const plaintext of [TOKEN, TEST_KEY]) expect(exported).not.toContain(plaintext);
  }, FIRST_RUN_TIMEOUT_MS);

  test("destroy leaves nothing", async () => {
    const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
    expect(await listIds(e2e().client)).toEqual([]);
    await expect(e2e().client.credentials.get("github-agent-token")).rejects.toMatchObject({ name: "EnvironmentsApiError", httpStatus: 404, status: "NOT_FOUND" });
  }, E2E_TEST_TIMEOUT_MS);
});
