// Components through the plugin's `construct` on the real engine, so that every language gets them:
// a TypeScript program using `plugin.Environment` and the remote `plugin.GuardedEnvironment`, and a
// Pulumi YAML program declaring `gemini-environments:index:GuardedEnvironment` — each child
// Environment a plugin resource under its component, the hooks shipped, the linter's warnings shown.
import type { Stack } from "@pulumi/pulumi/automation";

import { FAIL_OPEN_CALLS, ORDINARY_CALLS, PROBE_SCRIPTS } from "../support/probe-gates";
import { E2E_TEST_TIMEOUT_MS, listIds, pluginProject, program, useE2E } from "./_workspace";

interface StateResource {
  urn: string;
  type: string;
  id?: string;
  parent?: string;
}

const GATE = "import json\nprint(json.dumps({'decision': 'allow'}))\n";

const TS_PROGRAM = program(`
const bundle = new genv.HookBundle({
  hooks: { gate: genv.group().before("code_execution", genv.command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })) },
  scripts: { "gate.py": { content: ${JSON.stringify(GATE)} } },
});
const plain = new genv.plugin.Environment("plain", { sources: [{ type: "inline", target: "a.txt", content: "a" }], network: "disabled" });
const guarded = new genv.plugin.GuardedEnvironment("guarded", {
  hooks: bundle,
  network: genv.NetworkPolicy.allowlist().allow("api.github.com"),
  sources: [{ type: "inline", target: "workspace/TASK.md", content: "triage\\n" }],
});
exports.plainId = plain.id;
exports.plainFileCount = plain.fileCount;
exports.guardedId = guarded.environmentId;
exports.guardedStatus = guarded.status;
exports.guardedFileCount = guarded.fileCount;
`);

const YAML_PROGRAM = `resources:
  guarded:
    type: gemini-environments:index:GuardedEnvironment
    properties:
      hooks:
        config:
          security-gate:
            preToolExecution:
              - matcher: code_execution
                hooks:
                  - command:
                      command: python3 /.agents/hooks-scripts/gate.py
                      timeout: 10
        scripts:
          gate.py: ${JSON.stringify(GATE)}
      network:
        allowlist:
          - domain: api.github.com
      sources:
        - type: inline
          target: workspace/TASK.md
          content: triage
outputs:
  environmentId: \${guarded.environmentId}
  fileCount: \${guarded.fileCount}
`;

/**
 * Two more GuardedEnvironments with the three gates that fail open (test/support/probe-gates.ts):
 * `failClosed` with onFailure deny (crashy's own, the others by the bundle's default), `failOpen` without.
 */
const gatesYaml = (name: string, onFailure: boolean) => `  ${name}:
    type: gemini-environments:index:GuardedEnvironment
    properties:
      hooks:
        config:
          crashy:
            preToolExecution:
              - matcher: code_execution
                hooks:
                  - command: { command: python3 /.agents/hooks-scripts/crashy.py, timeout: 10${onFailure ? ", onFailure: deny" : ""} }
          slow:
            preToolExecution:
              - matcher: code_execution
                hooks:
                  - command: { command: python3 /.agents/hooks-scripts/slow.py, timeout: 3 }
          chatty:
            preToolExecution:
              - matcher: view_file|list_dir
                hooks:
                  - command: { command: python3 /.agents/hooks-scripts/chatty.py, timeout: 10 }
        scripts:
${["crashy.py", "slow.py", "chatty.py"].map((script) => `          ${script}: ${JSON.stringify(PROBE_SCRIPTS[script])}`).join("\n")}
${onFailure ? "        onFailure: deny\n" : ""}      network: { disabled: true }
`;

describe("components through the plugin's construct (real engine)", () => {
  const e2e = useE2E();

  const childOf = async (stack: Stack, component: string) => {
    const resources = (await stack.exportStack()).deployment.resources as StateResource[];
    const parent = resources.find((r) => r.type === "gemini-environments:index:GuardedEnvironment" && r.urn.endsWith(`::${component}`));
    return resources.find((r) => r.type === "gemini-environments:index:Environment" && r.parent === parent?.urn);
  };

  test("TypeScript: plugin.Environment and the remote plugin.GuardedEnvironment", async () => {
    const dir = await e2e().workspace.addProgram("components-ts", TS_PROGRAM, pluginProject("components-ts", e2e().pluginBinDir));
    const stack = await e2e().stack(dir, "ts");
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.outputs.plainFileCount.value).toBe(1);
    expect(up.outputs.guardedStatus.value).toBe("active");
    expect(up.outputs.guardedFileCount.value).toBe(3); // hooks.json, gate.py, TASK.md
    expect(up.output).toContain("inline-hooks-writable"); // the linter's warning, from construct

    const child = await childOf(stack, "guarded");
    expect(child?.id).toBe(up.outputs.guardedId.value);
    const environment = await e2e().client.get(up.outputs.guardedId.value);
    expect(environment.sources?.map((source) => source.target)).toEqual([".agents/hooks.json", ".agents/hooks-scripts/gate.py", "workspace/TASK.md"]);
    expect(environment.network).toEqual({ allowlist: [{ domain: "api.github.com" }] });

    const requests = await e2e().requestsDuring(() => e2e().run(stack, (s, onOutput) => s.preview({ onOutput })));
    expect(requests).toEqual([]);
    await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(await listIds(e2e().client)).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("Pulumi YAML: gemini-environments:index:GuardedEnvironment; onFailure deny makes the gates that fail open deny", async () => {
    const yaml = YAML_PROGRAM.replace("outputs:\n", `${gatesYaml("failClosed", true)}${gatesYaml("failOpen", false)}outputs:\n  failClosedId: \${failClosed.environmentId}\n  failOpenId: \${failOpen.environmentId}\n`);
    const dir = await e2e().workspace.addProgram("components-yaml", { "index.js": "" }, `${pluginProject("components-yaml", e2e().pluginBinDir, "runtime: yaml")}${yaml}`);
    const stack = await e2e().stack(dir, "yaml");
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.outputs.fileCount.value).toBe(3);
    const child = await childOf(stack, "guarded");
    expect(child?.id).toBe(up.outputs.environmentId.value);
    const environment = await e2e().client.get(up.outputs.environmentId.value);
    expect(environment.sources?.[0]).toMatchObject({ target: ".agents/hooks.json", content: expect.stringContaining('"security-gate"') });

    // The three ways a gate fails open: denied with onFailure deny, naming the failure; allowed without.
    const [failClosed, failOpen] = [up.outputs.failClosedId.value as string, up.outputs.failOpenId.value as string];
    for (const { tool_call, failure } of FAIL_OPEN_CALLS) {
      const closed = await e2e().client.executeTool(failClosed, tool_call);
      expect([tool_call.args, closed.decision, closed.reason]).toEqual([tool_call.args, "deny", expect.stringContaining(failure)]);
      expect([tool_call.args, (await e2e().client.executeTool(failOpen, tool_call)).decision]).toEqual([tool_call.args, "allow"]);
    }
    for (const { tool_call, expect: decision, reason } of ORDINARY_CALLS) {
      const own = await e2e().client.executeTool(failClosed, tool_call);
      expect([tool_call.args, own.decision, own.reason]).toEqual([tool_call.args, decision, reason === undefined ? undefined : expect.stringContaining(reason)]);
    }

    await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(await listIds(e2e().client)).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("Pulumi YAML: a GuardedEnvironment without network stops the preview (required: omitted would allow all egress), nothing created", async () => {
    const program = YAML_PROGRAM.replace(/      network:\n        allowlist:\n          - domain: api.github.com\n/, "");
    expect(program).not.toContain("network:");
    const dir = await e2e().workspace.addProgram("components-yaml-open", { "index.js": "" }, `${pluginProject("components-yaml-open", e2e().pluginBinDir, "runtime: yaml")}${program}`);
    const stack = await e2e().stack(dir, "yaml");
    await expect(e2e().run(stack, (s, onOutput) => s.up({ onOutput }))).rejects.toThrow(/network.*required|required.*network/i);
    expect(await listIds(e2e().client)).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("Pulumi YAML: an invalid hook stops the preview, its path named as the program declares it and its value as declared", async () => {
    const program = YAML_PROGRAM.replace("command: python3 /.agents/hooks-scripts/gate.py", 'command: ""');
    const dir = await e2e().workspace.addProgram("components-yaml-invalid", { "index.js": "" }, `${pluginProject("components-yaml-invalid", e2e().pluginBinDir, "runtime: yaml")}${program}`);
    const stack = await e2e().stack(dir, "yaml");
    await expect(e2e().run(stack, (s, onOutput) => s.preview({ onOutput }))).rejects.toThrow(
      /property hooks\.config\["security-gate"\]\.preToolExecution\[0\]\.hooks\[0\]\.command\.command with value '""' has a problem: must not be empty/,
    );
  }, E2E_TEST_TIMEOUT_MS);
});
