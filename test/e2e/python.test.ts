// A Python program with the generated SDK on the real engine: examples/python-github-agent (a
// Credential from secret stack config; a GuardedEnvironment — the security gate as a HookBundle with
// policy cases, an allowlist that references the credential — whose Environment the plugin's
// construct makes), run by the Python language host with a venv holding only `pulumi` and our wheel
// (scripts/python-sdk-venv) first on PATH, the plugin found through a plugin path the test adds —
// up (and a second Credential the test adds without credentialId, made under the id the TypeScript
// classes would give it), a no-op preview with no API call, a state without the token or the key; a
// policy case that no longer holds fails the preview, naming it; destroy.
import * as fs from "node:fs";
import * as path from "node:path";

import type { Stack } from "@pulumi/pulumi/automation";

import { ownerOf } from "../../emulator/api";
import { defaultCredentialId } from "../../provider/credential/inputs";
import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, listIds, useE2E } from "./_workspace";

const TOKEN = "ghp_python-6d0b3e";

describe("Python with the generated SDK: examples/python-github-agent (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let dir: string;

  beforeAll(async () => {
    dir = await e2e().workspace.addExample("python-github-agent");
    // The example gets the plugin by download or `pulumi plugin install`; here, the package's launcher.
    // A Credential without credentialId: the plugin derives it from the URN.
    await fs.promises.appendFile(
      path.join(dir, "__main__.py"),
      '\nunnamed = genv.Credential("unnamed", type=genv.CredentialType.BEARER_TOKEN, token=config.require_secret("githubToken"))\npulumi.export("defaultCredentialId", unnamed.credential_id)\n',
    );
    await fs.promises.appendFile(path.join(dir, "Pulumi.yaml"), `plugins:\n  providers:\n    - name: gemini-environments\n      path: ${e2e().pluginBinDir}\n`);
    stack = await e2e().stack(dir, "python", { python: "sdk", credentials: "config", secrets: { githubToken: TOKEN } });
  }, E2E_TEST_TIMEOUT_MS);

  test("up creates the credential, then the guarded environment: the gate's files, the task, the allowlist that references the credential", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    // The stack, the two credentials, the component and its environment.
    expect(up.summary.resourceChanges).toEqual({ create: 5 });
    expect(up.outputs.credentialId.value).toBe("github-agent-token");
    expect(up.outputs.defaultCredentialId.value).toBe(defaultCredentialId("unnamed", "python-github-agent", stack.name));
    expect(up.outputs.credentialStatus.value).toBe("active");
    expect(up.outputs.fileCount.value).toBe(3);
    const environment = await e2e().client.get(up.outputs.environmentId.value);
    expect(environment.status).toBe("active");
    expect(environment.sources?.map((source) => source.target).sort()).toEqual([".agents/hooks-scripts/gate.py", ".agents/hooks.json", "workspace/TASK.md"]);
    const hooks = environment.sources?.find((source) => source.target === ".agents/hooks.json") as { content?: string } | undefined;
    expect(JSON.parse(hooks?.content ?? "{}")).toEqual({
      "security-gate": { enabled: true, pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] },
    });
    expect(environment.network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "github-agent-token" }] });
    expect(e2e().emulator.credentials.reveal(ownerOf(TEST_KEY), "github-agent-token")).toMatchObject({ token: TOKEN });
  }, E2E_TEST_TIMEOUT_MS);

  test("a no-op preview makes no API call; the state holds neither the token nor the key", async () => {
    let preview: Awaited<ReturnType<Stack["preview"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    });
    expect(preview!.changeSummary).toEqual({ same: 5 });
    expect(requests).toEqual([]);
    const exported = await e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    for (const plaintext of [TOKEN, TEST_KEY]) expect(exported).not.toContain(plaintext);
  }, E2E_TEST_TIMEOUT_MS);

  test("a policy case that the gate no longer meets fails the preview, naming the case, expected and actual", async () => {
    const program = path.join(dir, "__main__.py");
    const source = await fs.promises.readFile(program, "utf8");
    const allowed = 'tool_call={"name": "code_execution", "args": {"code": "curl -s https://api.github.com/repos/o/r/issues"}},\n            expect=genv.HookDecision.ALLOW';
    expect(source).toContain(allowed);
    await fs.promises.writeFile(program, source.replace(allowed, allowed.replace("HookDecision.ALLOW", "HookDecision.DENY")));
    try {
      await expect(e2e().run(stack, (s, onOutput) => s.preview({ onOutput }))).rejects.toThrow(
        /policy tests failed \(1 of 2\):\s+- listing the issues is allowed: expected deny, got allow/,
      );
    } finally {
      await fs.promises.writeFile(program, source);
    }
  }, E2E_TEST_TIMEOUT_MS);

  test("destroy leaves nothing", async () => {
    const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
    expect(await listIds(e2e().client)).toEqual([]);
    await expect(e2e().client.credentials.get("github-agent-token")).rejects.toMatchObject({ name: "EnvironmentsApiError", httpStatus: 404, status: "NOT_FOUND" });
  }, E2E_TEST_TIMEOUT_MS);
});
