// Credentials and secrets through the real engine: the provider configured by stack config
// (`gemini-environments:apiKey` as a secret, `:baseUrl`), nothing in the environment; an inline source
// and an allowlist header transform passed as Pulumi secrets. The exported state (without
// --show-secrets) holds none of these values in plain text, and the serialized provider holds no key.
import type { Stack } from "@pulumi/pulumi/automation";

import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, program, useE2E } from "./_workspace";

const INLINE_SECRET = "inline-secret-4f1c9a";
const HEADER_SECRET = "Bearer header-secret-77d2e0";

const PROGRAM = program(`
const env = new genv.Environment("secretive", {
  sources: [
    { type: "inline", target: "public.txt", content: "nothing to hide\\n" },
    { type: "inline", target: "private/token.txt", content: pulumi.secret(${JSON.stringify(INLINE_SECRET)}) },
  ],
  network: { allowlist: [{ domain: "api.example.com", transform: { Authorization: pulumi.secret(${JSON.stringify(HEADER_SECRET)}) } }] },
});
exports.environmentId = env.id;
exports.fileCount = env.fileCount;
`);

describe("secrets stay out of the state (real engine, credentials from stack config)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let environmentId: string;
  let dir: string;

  beforeAll(async () => {
    dir = await e2e().workspace.addProgram("secrets", PROGRAM);
    stack = await e2e().stack(dir, "secrets", { credentials: "config" });
  }, E2E_TEST_TIMEOUT_MS);

  test("up works with the key and base URL from stack config only", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    environmentId = up.outputs.environmentId.value;
    expect(up.outputs.fileCount.value).toBe(2);
    const environment = await e2e().client.get(environmentId);
    expect(environment.sources?.find((s) => s.target === "private/token.txt")).toMatchObject({ content: INLINE_SECRET });
  }, E2E_TEST_TIMEOUT_MS);

  test("the exported state holds neither the API key nor the secret values", async () => {
    // The CLI itself: the Automation API's exportStack passes --show-secrets.
    const exported = { text: await e2e().pulumi(["stack", "export", "--stack", stack.name], dir) };
    expect(exported.text).toContain(environmentId);
    for (const plaintext of [TEST_KEY, INLINE_SECRET, HEADER_SECRET, "header-secret-77d2e0"]) expect(exported.text).not.toContain(plaintext);
    expect(exported.text).toContain('"ciphertext"'); // the values are there, encrypted
  }, E2E_TEST_TIMEOUT_MS);

  test("the serialized provider is small, requires the package and holds no key", async () => {
    const state = await stack.exportStack();
    const environment = (state.deployment.resources as Array<{ type: string; inputs?: Record<string, unknown> }>).find(
      (r) => r.type === "pulumi-nodejs:dynamic/gemini-environments:Environment",
    );
    const serialized = String(environment?.inputs?.__provider);
    expect(serialized).toContain('require("pulumi-gemini-environments/dist/provider/environment/dynamic-provider.js")');
    expect(serialized).not.toContain(TEST_KEY);
    expect(serialized.length).toBeLessThan(1024); // one require: it is stored twice per resource and rewritten at every checkpoint
  }, E2E_TEST_TIMEOUT_MS);
});
