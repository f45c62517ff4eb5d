// The native plugin through the real engine, from a JavaScript program that declares an explicit
// provider (its apiKey a plain string, nothing in the environment or the stack config) and an
// Environment and a Credential it serves: up; a preview whose engine events carry the detailed diff
// (the moved source replaces, the rotated token updates in place) and whose text names the path;
// a state that holds neither the key nor the token in plain text; destroy. A second Credential omits
// credentialId: the plugin gives it the id the TypeScript classes would. On Node.js 22+, the code
// the plugin compiled is in the user's cache dir afterwards.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";

import { defaultCredentialId } from "../../provider/credential/inputs";
import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, listIds, pluginProject, useE2E } from "./_workspace";

const TOKEN = "ghp_plugin-3c9e11";
const ROTATED = "ghp_rotated-8a07d4";

const PROGRAM = `"use strict";
const fs = require("node:fs");
const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config();
const read = (file) => fs.readFileSync(require("node:path").join(__dirname, file), "utf8").trim();
const provider = new pulumi.ProviderResource("gemini-environments", "explicit", { apiKey: read("key.txt"), baseUrl: config.require("url") });
const env = new pulumi.CustomResource("gemini-environments:index:Environment", "env", {
  sources: [{ type: "inline", target: config.get("target") || "workspace/a.txt", content: "one\\n" }],
  network: "disabled",
  status: undefined,
  fileCount: undefined,
}, { provider });
const credential = new pulumi.CustomResource("gemini-environments:index:Credential", "token", {
  credentialId: "plugin-e2e", type: "bearer_token", token: read("token.txt"), status: undefined,
}, { provider });
const unnamed = new pulumi.CustomResource("gemini-environments:index:Credential", "unnamed", {
  type: "bearer_token", token: "ghp_unnamed-5e0d2f", credentialId: undefined,
}, { provider });
exports.environmentId = env.id;
exports.defaultCredentialId = unnamed.credentialId;
exports.fileCount = env.fileCount;
exports.credentialStatus = credential.status;
`;

describe("the plugin through the real engine (explicit provider)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let dir: string;
  /** The user's cache dir as the plugin sees it (XDG_CACHE_HOME). */
  let cacheHome: string;

  beforeAll(async () => {
    cacheHome = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-plugin-cache-"));
    dir = await e2e().workspace.addProgram(
      "plugin",
      { "index.js": PROGRAM, "key.txt": `${TEST_KEY}\n`, "token.txt": `${TOKEN}\n` },
      pluginProject("plugin", e2e().pluginBinDir),
    );
    stack = await e2e().stack(dir, "plugin", { credentials: "none", config: { url: e2e().emulator.url }, env: { XDG_CACHE_HOME: cacheHome } });
  }, E2E_TEST_TIMEOUT_MS);
  afterAll(() => fs.promises.rm(cacheHome, { recursive: true, force: true }));

  test("up creates the environment and the credential through the explicit provider", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ create: 5 });
    expect(up.outputs.defaultCredentialId.value).toBe(defaultCredentialId("unnamed", "plugin", stack.name));
    expect(up.outputs.fileCount.value).toBe(1);
    expect(up.outputs.credentialStatus.value).toBe("active");
    expect((await e2e().client.get(up.outputs.environmentId.value)).status).toBe("active");
  }, E2E_TEST_TIMEOUT_MS);

  test("on Node.js 22+, what the plugin compiled is kept in the user's cache dir, though the engine ends it with SIGINT", async () => {
    // The `node` the launcher runs: the first on the engine's PATH.
    const { stdout } = await promisify(execFile)("node", ["-p", "typeof require('node:module').flushCompileCache"], { env: e2e().engine.env });
    const cache = path.join(cacheHome, "pulumi-gemini-environments", "compile-cache");
    if (stdout.trim() !== "function") {
      expect(fs.existsSync(cache)).toBe(false); // Node.js 20: no compile cache
      return;
    }
    const files = (await fs.promises.readdir(cache, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    // The cores, zod, undici and @pulumi/pulumi's modules: far more than a handful.
    expect(files.length).toBeGreaterThan(50);
  }, E2E_TEST_TIMEOUT_MS);

  test("a no-op preview makes no API call", async () => {
    const requests = await e2e().requestsDuring(() => e2e().run(stack, (s, onOutput) => s.preview({ onOutput })));
    expect(requests).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("preview --diff: the detailed diff says the source replaces and the token updates in place", async () => {
    await stack.setConfig("target", { value: "workspace/b.txt" });
    await fs.promises.writeFile(path.join(dir, "token.txt"), `${ROTATED}\n`);
    const events: EngineEvent[] = [];
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput, diff: true, onEvent: (event) => events.push(event) }));
    expect(preview.changeSummary).toEqual({ replace: 1, update: 1, same: 3 });
    // The step that carries the diff: "replace" (not its create-replacement/delete-replaced halves) and "update".
    const detailed = Object.fromEntries(
      events.flatMap(({ resourcePreEvent }) =>
        resourcePreEvent && ["replace", "update"].includes(resourcePreEvent.metadata.op)
          ? [[resourcePreEvent.metadata.urn.split("::").pop(), resourcePreEvent.metadata.detailedDiff]]
          : [],
      ),
    );
    expect(detailed.env).toEqual({ "sources[0].target": { diffKind: "update-replace", inputDiff: true } });
    expect(detailed.token).toEqual({ token: { diffKind: "update", inputDiff: true } });
    expect(preview.output).toMatch(/~ sources\s*: \[\s*~ \[0\]: {\s*~ target\s*:/);
    expect(preview.output).not.toContain(ROTATED);
  }, E2E_TEST_TIMEOUT_MS);

  test("up applies it: one replacement, one PATCH", async () => {
    let up: Awaited<ReturnType<Stack["up"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    });
    expect(up!.summary.resourceChanges).toEqual({ replace: 1, update: 1, same: 3 });
    const writes = requests.filter((request) => !request.startsWith("GET"));
    expect(writes).toHaveLength(3);
    expect(writes).toEqual(
      expect.arrayContaining(["POST /v1beta/environments", expect.stringMatching(/^DELETE \/v1beta\/environments\/env_/), "PATCH /v1beta/credentials/plugin-e2e"]),
    );
  }, E2E_TEST_TIMEOUT_MS);

  test("the exported state holds neither the key nor a token in plain text", async () => {
    const exported = await e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    expect(exported).toContain('"plugin-e2e"');
    for (const plaintext of [TEST_KEY, TOKEN, ROTATED]) expect(exported).not.toContain(plaintext);
  }, E2E_TEST_TIMEOUT_MS);

  test("destroy deletes both", async () => {
    const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
    expect(await listIds(e2e().client)).toEqual([]);
    await expect(e2e().client.credentials.get("plugin-e2e")).rejects.toMatchObject({ name: "EnvironmentsApiError", httpStatus: 404, status: "NOT_FOUND" });
  }, E2E_TEST_TIMEOUT_MS);
});
