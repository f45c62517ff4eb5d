// Guardrails as a lifecycle through the real engine (dynamic provider): an edited hook script previews
// as an update and `up` uploads it, keeping the environment's id and the file the agent wrote; a hook
// script the agent rewrites shows in `refresh` and `up` restores it; an update that fails part-way
// leaves a state that says what was uploaded (a secret still encrypted), and the next `up` finishes.
import type { Stack } from "@pulumi/pulumi/automation";

import { E2E_TEST_TIMEOUT_MS, program, useE2E } from "./_workspace";

const GATE = ".agents/hooks-scripts/gate.py";
const SECRET_NOTE = "s3cret-note-7f1c";

const PROGRAM = program(`
const config = new pulumi.Config();
const hooks = { gate: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /${GATE}" }] }] } };
const env = new genv.Environment("agent", {
  sources: [
    { type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooks) },
    { type: "inline", target: "${GATE}", content: config.get("gate") ?? 'print("{\\\\"decision\\\\": \\\\"allow\\\\"}")\\n' },
    { type: "inline", target: "workspace/a.txt", content: config.getSecret("a") ?? pulumi.secret("a1\\n") },
    { type: "inline", target: "workspace/b.txt", content: config.get("b") ?? "b1\\n" },
  ],
  network: "disabled",
});
exports.environmentId = env.id;
`);

describe("hooks as a lifecycle (real engine, dynamic provider)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let environmentId: string;
  let dir: string;

  const fileText = async (path: string) => (await e2e().client.files.downloadBuffer(environmentId, path)).data.toString("utf8");
  const agent = async (code: string) => {
    expect(await e2e().client.executeTool(environmentId, { name: "code_execution", args: { code, language: "bash" } })).toMatchObject({ decision: "allow", exit_code: 0 });
  };
  /** The Environment's state as `pulumi stack export` shows it (`--show-secrets`: decrypted). */
  const agentState = async (...flags: string[]) => {
    const exported = JSON.parse(await e2e().pulumi(["stack", "export", "--stack", stack.name, ...flags], dir));
    return (exported.deployment.resources as Array<{ type: string; outputs: Record<string, unknown> }>).find((resource) => resource.type.endsWith("Environment"))!;
  };

  beforeAll(async () => {
    dir = await e2e().workspace.addProgram("hooks-lifecycle", PROGRAM);
    stack = await e2e().stack(dir, "hooks-lifecycle");
    environmentId = (await e2e().run(stack, (s, onOutput) => s.up({ onOutput }))).outputs.environmentId.value;
  }, E2E_TEST_TIMEOUT_MS);

  test("an edited hook script previews as an update naming its path; up uploads it and keeps the id and the agent's file", async () => {
    await agent("echo 'half done' > /workspace/progress.md");
    const edited = 'import json\nprint(json.dumps({"decision": "allow"}))  # reviewed\n';
    await stack.setConfig("gate", { value: edited });

    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput, diff: true }));
    expect(preview.changeSummary).toEqual({ update: 1, same: 1 });
    // An update, not a replacement. The sources hold a secret, so a dynamic provider's preview shows them
    // as one secret value (the plugin names the path: yaml.test.ts).
    expect(preview.output).toMatch(/~ pulumi-nodejs:dynamic\/gemini-environments:Environment: \(update\)/);
    expect(preview.output).toMatch(/sources\s*: \[secret\]/);

    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ update: 1, same: 1 });
    expect(up.outputs.environmentId.value).toBe(environmentId);
    expect(await fileText(GATE)).toBe(edited);
    expect(await fileText("workspace/progress.md")).toBe("half done\n");
  }, E2E_TEST_TIMEOUT_MS);

  test("a hook script the agent rewrites shows in refresh by its path; the next up restores it", async () => {
    const declared = await fileText(GATE);
    await agent(`echo 'print("{\\"decision\\": \\"allow\\"}")  # the agent was here' > /${GATE}`);

    const refresh = await e2e().run(stack, (s, onOutput) => s.refresh({ onOutput }));
    expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });
    expect((await agentState()).outputs.driftedHookFiles).toEqual([GATE]);
    expect(refresh.output).not.toContain("the agent was here");

    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    expect(preview.changeSummary).toEqual({ update: 1, same: 1 });
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.outputs.environmentId.value).toBe(environmentId);
    expect(await fileText(GATE)).toBe(declared);
    expect((await agentState()).outputs).not.toHaveProperty("driftedHookFiles");
  }, E2E_TEST_TIMEOUT_MS);

  test("an up that fails part-way records what was uploaded, secrets still encrypted; the next up finishes", async () => {
    await agent("rm /workspace/b.txt && mkdir /workspace/b.txt");
    await stack.setConfig("a", { value: `${SECRET_NOTE}\n`, secret: true });
    await stack.setConfig("b", { value: "b2\n" });

    await expect(e2e().run(stack, (s, onOutput) => s.up({ onOutput }))).rejects.toThrow(/uploading workspace\/b\.txt failed \(1 of 2 files uploaded\)/);
    // What was uploaded (a's new content), what was not (b's old one).
    const partial = await agentState("--show-secrets");
    const sources = JSON.parse((partial.outputs.sources as { plaintext: string }).plaintext) as Array<{ content: string }>;
    expect(sources.map((source) => source.content).slice(2)).toEqual([`${SECRET_NOTE}\n`, "b1\n"]);
    expect(await fileText("workspace/a.txt")).toBe(`${SECRET_NOTE}\n`);
    expect(JSON.stringify(await agentState())).not.toContain(SECRET_NOTE);

    await agent("rmdir /workspace/b.txt");
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.outputs.environmentId.value).toBe(environmentId);
    expect(await fileText("workspace/b.txt")).toBe("b2\n");
    expect(await fileText("workspace/progress.md")).toBe("half done\n");
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    expect(preview.changeSummary).toEqual({ same: 2 });
  }, E2E_TEST_TIMEOUT_MS);
});
