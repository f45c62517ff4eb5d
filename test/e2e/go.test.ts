// A Go program with the generated SDK on the real engine: examples/go-environment, unchanged but for
// its go.mod's `replace`, pointed at this checkout's sdk/go — a Credential from secret stack config, a
// base environment made outside Pulumi and looked up (getEnvironment), an Environment copied from it
// whose allowlist references the credential, a GuardedEnvironment whose policy case runs at preview —
// run by the Go language host of scripts/pulumi-engine (it compiles the program with `go build`), the
// plugin found through a plugin path the test adds: up (and a second Credential the test adds
// without CredentialId, made under the id the TypeScript classes would give it); a no-op preview whose only API call is the
// lookup, and a state without the token or the key; destroy, which leaves the base.
import * as fs from "node:fs";
import * as path from "node:path";

import type { Stack } from "@pulumi/pulumi/automation";

import { ownerOf } from "../../emulator/api";
import { defaultCredentialId } from "../../provider/credential/inputs";
import { timeLeftOf, withDeadline } from "../support/commands";
import { TEST_KEY } from "../support/emulator";
import { goToolchainNeeds, replaceGoSdk } from "../support/go";
import { describeNeeding } from "../support/prerequisites";
import { E2E_TEST_TIMEOUT_MS, listIds, useE2E } from "./_workspace";
import { repoRoot } from "./engine";

const TOKEN = "ghp_go-41c9a7";
// The team's base environment, made outside Pulumi.
const BASE_SOURCES = [
  { type: "inline" as const, target: "workspace/CONTRIBUTING.md", content: "Small pull requests.\n" },
  { type: "inline" as const, target: "workspace/tools/lint.sh", content: "#!/bin/sh\nexit 0\n" },
];
// The first run compiles the program and github.com/pulumi/pulumi/sdk/v3 (minutes on a busy 2-core
// machine; seconds once Go's build cache holds them). The engine's run is interrupted a little before,
// so that a hang fails naming it, with the engine's output.
const FIRST_RUN_TIMEOUT_MS = 10 * 60_000;

describeNeeding(goToolchainNeeds())("Go with the generated SDK: examples/go-environment (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let dir: string;
  let baseId: string;

  beforeAll(async () => {
    dir = await e2e().workspace.addExample("go-environment");
    await replaceGoSdk(dir, path.join(repoRoot, "sdk", "go"));
    // A Credential without CredentialId: the plugin derives it from the URN.
    const program = path.join(dir, "main.go");
    const exports = '\t\tctx.Export("baseStatus", base.Status())';
    const source = await fs.promises.readFile(program, "utf8");
    expect(source).toContain(exports);
    const unnamed = [
      '\t\tunnamed, err := genv.NewCredential(ctx, "unnamed", &genv.CredentialArgs{Type: genv.CredentialTypeBearerToken, Token: cfg.RequireSecret("githubToken")})',
      "\t\tif err != nil {\n\t\t\treturn err\n\t\t}",
      '\t\tctx.Export("defaultCredentialId", unnamed.CredentialId)',
    ];
    await fs.promises.writeFile(program, source.replace(exports, [...unnamed, exports].join("\n")));
    // The example gets the plugin by download or `pulumi plugin install`; here, the package's launcher.
    await fs.promises.appendFile(path.join(dir, "Pulumi.yaml"), `plugins:\n  providers:\n    - name: gemini-environments\n      path: ${e2e().pluginBinDir}\n`);
    baseId = (await e2e().client.create({ sources: BASE_SOURCES })).id;
    stack = await e2e().stack(dir, "go", { credentials: "config", secrets: { githubToken: TOKEN }, config: { baseEnvironmentId: baseId } });
  }, E2E_TEST_TIMEOUT_MS);

  test("up looks up the base, creates the credential, the environment copied from the base whose allowlist references it, and the guarded environment with its gate", async () => {
    const left = timeLeftOf(FIRST_RUN_TIMEOUT_MS);
    const up = await withDeadline(`pulumi up of ${dir} (the Go language host builds the program)`, left(), (signal) => e2e().run(stack, (s, onOutput) => s.up({ onOutput, signal })));
    // The stack, the two credentials, the environment, the component and its environment.
    expect(up.summary.resourceChanges).toEqual({ create: 6 });
    expect(up.outputs.defaultCredentialId.value).toBe(defaultCredentialId("unnamed", "go-environment", stack.name));
    expect(up.outputs.baseStatus.value).toBe("active");
    expect(up.outputs.baseFileCount.value).toBe(2);
    expect(up.outputs.agentStatus.value).toBe("active");
    expect(up.outputs.policyTests.value).toBe("1 passed");
    const agent = await e2e().client.get(up.outputs.agentId.value);
    // A copy of the base: its files, as many as the lookup counted.
    expect(agent.file_count).toBe(String(up.outputs.baseFileCount.value));
    expect(agent.network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "github-agent-token" }] });
    const guarded = await e2e().client.get(up.outputs.guardedId.value);
    expect(guarded.network).toBe("disabled");
    const hooks = guarded.sources?.find((source) => source.target === ".agents/hooks.json") as { content?: string } | undefined;
    expect(JSON.parse(hooks?.content ?? "{}")).toEqual({
      "security-gate": { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] },
    });
    expect(e2e().emulator.credentials.reveal(ownerOf(TEST_KEY), "github-agent-token")).toMatchObject({ token: TOKEN });
  }, FIRST_RUN_TIMEOUT_MS);

  test("a no-op preview makes one API call, the lookup of the base; the state holds neither the token nor the key", async () => {
    const left = timeLeftOf(FIRST_RUN_TIMEOUT_MS);
    let preview: Awaited<ReturnType<Stack["preview"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      preview = await withDeadline(`pulumi preview of ${dir} (the Go language host builds the program)`, left(), (signal) => e2e().run(stack, (s, onOutput) => s.preview({ onOutput, signal })));
    });
    expect(preview!.changeSummary).toEqual({ same: 6 });
    expect(requests).toEqual([`GET /v1beta/environments/${baseId}`]);
    const exported = await e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    for (const plaintext of [TOKEN, TEST_KEY]) expect(exported).not.toContain(plaintext);
  }, FIRST_RUN_TIMEOUT_MS);

  test("destroy leaves only the base", async () => {
    const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
    expect(await listIds(e2e().client)).toEqual([baseId]);
    await expect(e2e().client.credentials.get("github-agent-token")).rejects.toMatchObject({ name: "EnvironmentsApiError", httpStatus: 404, status: "NOT_FOUND" });
  }, E2E_TEST_TIMEOUT_MS);
});
