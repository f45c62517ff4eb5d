// A Credential through the real engine: an environment whose allowlist references it, a rotated token
// that the engine applies as an in-place update (a PATCH with update_mask=token, not a replacement),
// a state that holds neither token in plain text although the program passes plain strings, and a
// destroy that deletes the credential.
import * as fs from "node:fs";
import * as path from "node:path";

import type { Stack } from "@pulumi/pulumi/automation";

import { ownerOf } from "../../emulator/api";
import { isNotFound } from "../../client/errors";
import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, program, useE2E } from "./_workspace";

const ORIGINAL = "ghp_original-5e1b7a";
const ROTATED = "ghp_rotated-c04d92";

// The token is a plain string read from a file (not secret config, which the engine would record in
// the state in plain text itself): the Credential is what makes it a secret.
const PROGRAM = program(`
const github = new genv.Credential("github", {
  credentialId: "gh-token",
  type: "bearer_token",
  token: require("node:fs").readFileSync(require("node:path").join(__dirname, "token.txt"), "utf8").trim(),
  prefix: "token",
});
const env = new genv.Environment("agent", {
  network: genv.NetworkPolicy.allowlist().allow("api.github.com", { credential: github }).toNetworkArgs(),
});
exports.credentialId = github.credentialId;
exports.credentialStatus = github.status;
exports.environmentId = env.id;
`);

describe("Credential (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let dir: string;
  let environmentId: string;

  beforeAll(async () => {
    dir = await e2e().workspace.addProgram("credential", { ...PROGRAM, "token.txt": `${ORIGINAL}\n` });
    stack = await e2e().stack(dir, "credential");
  }, E2E_TEST_TIMEOUT_MS);

  test("up creates the credential, then the environment that references it", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    expect(up.outputs.credentialId.value).toBe("gh-token");
    expect(up.outputs.credentialStatus.value).toBe("active");
    environmentId = up.outputs.environmentId.value;

    const environment = await e2e().client.get(environmentId);
    expect(environment.network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "gh-token" }] });
    expect(e2e().emulator.credentials.reveal(ownerOf(TEST_KEY), "gh-token")).toMatchObject({ token: ORIGINAL, prefix: "token" });
  }, E2E_TEST_TIMEOUT_MS);

  test("a rotated token is an in-place update: one PATCH with update_mask=token, the environment untouched", async () => {
    await fs.promises.writeFile(path.join(dir, "token.txt"), `${ROTATED}\n`);
    const before = e2e().emulator.requests.length;
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ same: 2, update: 1 });
    expect(up.outputs.environmentId.value).toBe(environmentId);

    const writes = e2e().emulator.requests.slice(before).filter((entry) => entry.method !== "GET");
    expect(writes.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual(["PATCH /v1beta/credentials/gh-token?update_mask=token 200"]);
    expect(e2e().emulator.credentials.reveal(ownerOf(TEST_KEY), "gh-token")).toMatchObject({ token: ROTATED, prefix: "token" });
  }, E2E_TEST_TIMEOUT_MS);

  test("the exported state holds neither the original nor the rotated token in plain text", async () => {
    // The CLI itself: the Automation API's exportStack passes --show-secrets.
    const exported = await e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    expect(exported).toContain('"gh-token"');
    expect(exported).toContain('"ciphertext"');
    for (const plaintext of [ORIGINAL, ROTATED, TEST_KEY]) expect(exported).not.toContain(plaintext);

    const state = await stack.exportStack();
    const credential = (state.deployment.resources as Array<{ type: string; inputs?: Record<string, unknown> }>).find(
      (r) => r.type === "pulumi-nodejs:dynamic/gemini-environments:Credential",
    );
    expect(String(credential?.inputs?.__provider)).toContain('require("pulumi-gemini-environments/dist/provider/credential/dynamic-provider.js")');
  }, E2E_TEST_TIMEOUT_MS);

  test("destroy deletes the environment and the credential", async () => {
    const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
    const error = await e2e().client.credentials.get("gh-token").catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
  }, E2E_TEST_TIMEOUT_MS);
});
