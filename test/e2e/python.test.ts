// A Python program through the plugin on the real engine: examples/python-github-agent (a Credential
// from secret stack config, an Environment behind the security gate whose allowlist references it),
// run by the Python language host with the venv of scripts/python-venv first on PATH — up, a no-op
// preview with no API call, a state without the token or the key, destroy.
import type { Stack } from "@pulumi/pulumi/automation";

import { ownerOf } from "../../emulator/api";
import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, listIds, useE2E } from "./_workspace";

const TOKEN = "ghp_python-6d0b3e";

describe("Python through the plugin: examples/python-github-agent (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let dir: string;

  beforeAll(async () => {
    dir = await e2e().workspace.addExample("python-github-agent");
    stack = await e2e().stack(dir, "python", { python: true, credentials: "config", secrets: { githubToken: TOKEN } });
  }, E2E_TEST_TIMEOUT_MS);

  test("up creates the credential, then the environment whose allowlist references it", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    expect(up.outputs.status.value).toBe("active");
    expect(up.outputs.fileCount.value).toBe(3);
    expect(up.outputs.credentialId.value).toBe("github-agent-token");
    const environment = await e2e().client.get(up.outputs.environmentId.value);
    expect(environment.network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "github-agent-token" }] });
    expect(e2e().emulator.credentials.reveal(ownerOf(TEST_KEY), "github-agent-token")).toMatchObject({ token: TOKEN });
  }, E2E_TEST_TIMEOUT_MS);

  test("a no-op preview makes no API call; the state holds neither the token nor the key", async () => {
    const requests = await e2e().requestsDuring(() => e2e().run(stack, (s, onOutput) => s.preview({ onOutput })));
    expect(requests).toEqual([]);
    const exported = await e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    for (const plaintext of [TOKEN, TEST_KEY]) expect(exported).not.toContain(plaintext);
  }, E2E_TEST_TIMEOUT_MS);

  test("destroy leaves nothing", async () => {
    const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
    expect(await listIds(e2e().client)).toEqual([]);
    await expect(e2e().client.credentials.get("github-agent-token")).rejects.toMatchObject({ name: "EnvironmentsApiError", httpStatus: 404, status: "NOT_FOUND" });
  }, E2E_TEST_TIMEOUT_MS);
});
