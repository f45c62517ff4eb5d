// `pulumi import` through the plugin on the real engine: an environment and a credential created
// outside Pulumi are adopted by id alone (the engine's ReadRequest has no properties), with their
// inputs in the state; a program then declaring the environment as imported previews no change,
// and destroy deletes what was imported. The Node.js language host built here (sdk v3.68) cannot
// generate code, hence --generate-code=false.
import type { Stack } from "@pulumi/pulumi/automation";

import { E2E_TEST_TIMEOUT_MS, isGone, pluginProject, useE2E } from "./_workspace";

const SOURCES = [
  { type: "inline" as const, target: "workspace/notes.md", content: "# made by hand\n" },
  { type: "inline" as const, target: ".agents/hooks.json", content: '{"gate": {"pre_tool_execution": []}}\n' },
];
const NETWORK = { allowlist: [{ domain: "api.github.com" }] };

interface StateResource {
  urn: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

const program = (declare: boolean) => `"use strict";
const pulumi = require("@pulumi/pulumi");
${
  declare
    ? `new pulumi.CustomResource("gemini-environments:index:Environment", "adopted", ${JSON.stringify({ sources: SOURCES, network: NETWORK })}, { protect: true });`
    : ""
}
`;

describe("pulumi import through the plugin (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let dir: string;
  let environmentId: string;

  const resources = async () => (await stack.exportStack()).deployment.resources as StateResource[];

  beforeAll(async () => {
    environmentId = (await e2e().client.create({ sources: SOURCES, network: NETWORK })).id;
    await e2e().client.credentials.create({ id: "made-by-hand", type: "bearer_token", token: "ghp_by-hand-51c2", header_name: "X-Token" });
    dir = await e2e().workspace.addProgram("import", { "index.js": program(false) }, pluginProject("import", e2e().pluginBinDir));
    stack = await e2e().stack(dir, "import");
    await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
  }, E2E_TEST_TIMEOUT_MS);

  test("an environment: one GET and its declared hook file, its inputs and outputs in the state", async () => {
    const requests = await e2e().requestsDuring(() =>
      e2e().pulumi(["import", "gemini-environments:index:Environment", "adopted", environmentId, "--yes", "--skip-preview", "--generate-code=false", "--stack", stack.name], dir, {
        GOOGLE_API_KEY: "test-key-1",
        GOOGLE_GEMINI_BASE_URL: e2e().emulator.url,
      }),
    );
    // The environment, and its one declared hook file, compared with what it holds (tamper detection).
    expect(requests).toEqual([`GET /v1beta/environments/${environmentId}`, `GET /v1beta/environments/${environmentId}/files/.agents/hooks.json`]);
    const adopted = (await resources()).find((r) => r.urn.endsWith("::adopted"));
    expect(adopted).toMatchObject({ id: environmentId, inputs: { sources: SOURCES, network: NETWORK }, outputs: { status: "active", fileCount: 2 } });
  }, E2E_TEST_TIMEOUT_MS);

  test("a credential: its id and type (the API never returns the token)", async () => {
    await e2e().pulumi(["import", "gemini-environments:index:Credential", "by-hand", "made-by-hand", "--yes", "--skip-preview", "--generate-code=false", "--stack", stack.name], dir, {
      GOOGLE_API_KEY: "test-key-1",
      GOOGLE_GEMINI_BASE_URL: e2e().emulator.url,
    });
    const credential = (await resources()).find((r) => r.urn.endsWith("::by-hand"));
    expect(credential).toMatchObject({ id: "made-by-hand", inputs: { credentialId: "made-by-hand", type: "bearer_token" }, outputs: { status: "active" } });
    expect(credential?.inputs).not.toHaveProperty("token");
  }, E2E_TEST_TIMEOUT_MS);

  test("a program declaring the imported environment previews no change and makes no API call", async () => {
    await e2e().workspace.addProgram("import", { "index.js": program(true) }, pluginProject("import", e2e().pluginBinDir));
    // The credential is left out of the program: the preview would delete it, but it is protected.
    let preview: Awaited<ReturnType<Stack["preview"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput, target: [`urn:pulumi:import::import::gemini-environments:index:Environment::adopted`] }));
    });
    expect(preview!.changeSummary).toEqual({ same: 3 }); // the stack, the provider and the environment
    expect(requests).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("once unprotected, destroy deletes what was imported", async () => {
    await e2e().pulumi(["state", "unprotect", "--all", "--yes", "--stack", stack.name], dir);
    await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(await isGone(e2e().client, environmentId)).toBe(true);
    await expect(e2e().client.credentials.get("made-by-hand")).rejects.toMatchObject({ name: "EnvironmentsApiError", httpStatus: 404, status: "NOT_FOUND" });
  }, E2E_TEST_TIMEOUT_MS);
});
