// Pulumi YAML through the plugin on the real engine: examples/yaml-security-gate (the gate's hooks.json
// and script read with fn::readFile, a network allowlist), credentials from stack config — up; a
// no-op preview with no API call; `preview --diff` after an edit of the script, naming the source
// that is uploaded in place; refresh, and a rewritten hook file restored; `pulumi import` of an environment created out of band,
// whose generated YAML, added to the program, previews no change; a Credential added without
// credentialId, made under the id the TypeScript classes would give it; a state without the key; destroy.
import * as fs from "node:fs";
import * as path from "node:path";

import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";

import { repoRoot } from "./engine";
import { defaultCredentialId } from "../../provider/credential/inputs";
import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, listIds, useE2E } from "./_workspace";

const EXAMPLE = path.join(repoRoot, "examples", "yaml-security-gate");
const OUT_OF_BAND = { sources: [{ type: "inline" as const, target: "notes/todo.md", content: "- review the gate\n- rotate tokens\n" }], network: "disabled" as const };

describe("Pulumi YAML through the plugin: examples/yaml-security-gate (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let dir: string;
  let environmentId: string;
  let handmadeId: string;

  beforeAll(async () => {
    dir = await e2e().workspace.addExample("yaml-security-gate");
    stack = await e2e().stack(dir, "yaml", { credentials: "config" });
  }, E2E_TEST_TIMEOUT_MS);

  test("up creates the environment with the gate's hooks.json and script, and the allowlist", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    expect(up.outputs.status.value).toBe("active");
    expect(up.outputs.fileCount.value).toBe(3);
    environmentId = up.outputs.environmentId.value;
    const environment = await e2e().client.get(environmentId);
    expect(environment.sources?.map((source) => source.target)).toEqual([".agents/hooks.json", ".agents/hooks-scripts/gate.py", "workspace/README.md"]);
    expect(environment.sources?.[0]).toMatchObject({ content: fs.readFileSync(path.join(EXAMPLE, "hooks.json"), "utf8") });
    expect(environment.network).toEqual({ allowlist: [{ domain: "api.github.com" }, { domain: "*.githubusercontent.com" }] });
  }, E2E_TEST_TIMEOUT_MS);

  test("a no-op preview shows no change and makes no API call", async () => {
    let preview: Awaited<ReturnType<Stack["preview"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    });
    expect(Object.keys(preview!.changeSummary)).toEqual(["same"]);
    expect(requests).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("a network YAML cannot bind fails the preview naming the type to write, EgressPolicy (NetworkAllowlist before 0.2.0)", async () => {
    const file = path.join(dir, "Pulumi.yaml");
    const program = await fs.promises.readFile(file, "utf8");
    const allowlist = '      network:\n        allowlist:\n          - domain: api.github.com\n          - domain: "*.githubusercontent.com"\n';
    expect(program).toContain(allowlist);
    await fs.promises.writeFile(file, program.replace(allowlist, "      network: disabled\n"));
    try {
      await expect(e2e().run(stack, (s, onOutput) => s.preview({ onOutput }))).rejects.toThrow(/EgressPolicy/);
    } finally {
      await fs.promises.writeFile(file, program);
    }
  }, E2E_TEST_TIMEOUT_MS);

  test("preview --diff after an edit of gate.py: the detailed diff names sources[1].content, an update; up uploads it and keeps the id", async () => {
    await fs.promises.appendFile(path.join(dir, "hooks-scripts", "gate.py"), "# reviewed\n");
    const events: EngineEvent[] = [];
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput, diff: true, onEvent: (event) => events.push(event) }));
    expect(preview.changeSummary).toMatchObject({ update: 1 });
    const update = events.find((event) => event.resourcePreEvent?.metadata.op === "update")?.resourcePreEvent?.metadata;
    expect(update?.detailedDiff).toEqual({ "sources[1].content": { diffKind: "update", inputDiff: true } });
    expect(preview.output).toMatch(/~ sources\s*: \[\s*~ \[1\]: {\s*~ content\s*:[\s\S]*\+ # reviewed/);

    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.outputs.environmentId.value).toBe(environmentId);
    const gate = await e2e().client.files.downloadBuffer(environmentId, ".agents/hooks-scripts/gate.py");
    expect(gate.data.toString()).toMatch(/# reviewed\n$/);
  }, E2E_TEST_TIMEOUT_MS);

  test("refresh makes one GET, and downloads the two declared hook files only", async () => {
    const requests = await e2e().requestsDuring(() => e2e().run(stack, (s, onOutput) => s.refresh({ onOutput })));
    const files = `GET /v1beta/environments/${environmentId}/files`;
    expect(requests.sort()).toEqual([`GET /v1beta/environments/${environmentId}`, `${files}/.agents/hooks-scripts/gate.py`, `${files}/.agents/hooks.json`]);
  }, E2E_TEST_TIMEOUT_MS);

  test("a hook file the agent rewrote: refresh records its path, the preview's detailed diff shows it, up restores it", async () => {
    const hooks = ".agents/hooks.json";
    const declared = (await e2e().client.files.downloadBuffer(environmentId, hooks)).data.toString();
    await e2e().client.executeTool(environmentId, { name: "code_execution", args: { code: `echo '{}' > /${hooks}`, language: "bash" } });
    await e2e().run(stack, (s, onOutput) => s.refresh({ onOutput }));
    const events: EngineEvent[] = [];
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput, onEvent: (event) => events.push(event) }));
    expect(preview.changeSummary).toMatchObject({ update: 1 });
    expect(events.find((event) => event.resourcePreEvent?.metadata.op === "update")?.resourcePreEvent?.metadata.detailedDiff).toEqual({
      driftedHookFiles: { diffKind: "update", inputDiff: false },
    });
    await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect((await e2e().client.files.downloadBuffer(environmentId, hooks)).data.toString()).toBe(declared);
  }, E2E_TEST_TIMEOUT_MS);

  test("pulumi import of an environment made out of band: its generated YAML, added to the program, previews no change", async () => {
    handmadeId = (await e2e().client.create(OUT_OF_BAND)).id;
    const generated = path.join(dir, "imported.yaml");
    await e2e().pulumi(["import", "gemini-environments:index:Environment", "handmade", handmadeId, "--yes", "--skip-preview", "--out", generated, "--stack", stack.name], dir);
    const code = await fs.promises.readFile(generated, "utf8");
    expect(code).toMatch(/^resources:\n  handmade:\n    type: gemini-environments:Environment\n/);
    expect(code).toContain("protect: true");

    const program = await fs.promises.readFile(path.join(dir, "Pulumi.yaml"), "utf8");
    await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), program.replace("\nresources:\n", `\nresources:\n${code.slice("resources:\n".length)}`));
    let preview: Awaited<ReturnType<Stack["preview"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    });
    expect(preview!.changeSummary).toEqual({ same: 3 });
    expect(requests).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("a Credential without credentialId is made under the id the TypeScript classes derive from project, stack and name", async () => {
    const file = path.join(dir, "Pulumi.yaml");
    const program = await fs.promises.readFile(file, "utf8");
    const unnamed = "  unnamed:\n    type: gemini-environments:index:Credential\n    properties:\n      type: bearer_token\n      token: ghp_yaml-0b7e44\n";
    await fs.promises.writeFile(file, program.replace("\nresources:\n", `\nresources:\n${unnamed}`).replace("\noutputs:\n", "\noutputs:\n  defaultCredentialId: ${unnamed.credentialId}\n"));
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toMatchObject({ create: 1 });
    expect(up.outputs.defaultCredentialId.value).toBe(defaultCredentialId("unnamed", "yaml-security-gate", stack.name));
  }, E2E_TEST_TIMEOUT_MS);

  test("the exported state holds no API key", async () => {
    const exported = await e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    expect(exported).toContain(environmentId);
    expect(exported).not.toContain(TEST_KEY);
  }, E2E_TEST_TIMEOUT_MS);

  test("destroy deletes both environments (the imported one once unprotected) and the credential", async () => {
    await e2e().pulumi(["state", "unprotect", "--all", "--yes", "--stack", stack.name], dir);
    const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(destroy.summary.resourceChanges).toMatchObject({ delete: 4 });
    expect(await listIds(e2e().client)).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);
});
