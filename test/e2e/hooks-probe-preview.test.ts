// A HookBundle's `probe` at preview, through the real engine: with "warn", each fail-open finding is a
// warning on the GuardedEnvironment naming its group, tool and outcome, and the preview goes through;
// with "error" the findings stop it; acknowledgedWarnings accepts a reviewed one. The same through the
// plugin's construct, from Pulumi YAML (`hooks.probe`, a `fail-open:…` string in `acknowledgedWarnings`).
import { E2E_TEST_TIMEOUT_MS, pluginProject, program, useE2E } from "./_workspace";

/** A gate that logs to a Latin-1 file first: code beyond Latin-1 crashes it (exit 1), and the call is allowed. */
const probedProgram = (probe: "warn" | "error", acknowledged: string[] = []) =>
  program(`
const gate = [
  "import json, sys",
  "code = json.load(sys.stdin)['tool_call']['args']['code']",
  "sys.stderr.write('audit: ' + code.encode('latin-1').decode('latin-1')[:40] + '\\\\n')",
  "print(json.dumps({'decision': 'allow'}))",
].join("\\n");
const hooks = new genv.HookBundle({
  hooks: { "latin-gate": genv.group().before("code_execution", genv.command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })) },
  scripts: { "gate.py": { content: gate } },
  probe: "${probe}",
});
const env = new genv.GuardedEnvironment("probed", { hooks, network: genv.NetworkPolicy.disabled(), acknowledgedWarnings: ${JSON.stringify(["inline-hooks-writable", ...acknowledged])} });
exports.failOpen = env.failOpen;
`);

const FINDING = /hooks fail open: group latin-gate, code_execution: crash \(exited with status 1: Traceback.*\) on \d+ payloads, the smallest .*acknowledge it with acknowledgedWarnings: \["fail-open:latin-gate:code_execution:crash"\]/;

/** The same gate in Pulumi YAML, built by the plugin's construct. */
const yamlProgram = (probe: "warn" | "error", acknowledged: string[] = []) => `resources:
  probed:
    type: gemini-environments:index:GuardedEnvironment
    properties:
      hooks:
        config:
          latin-gate:
            preToolExecution:
              - matcher: code_execution
                hooks:
                  - command:
                      command: python3 /.agents/hooks-scripts/gate.py
                      timeout: 10
        scripts:
          gate.py: ${JSON.stringify("import json, sys\ncode = json.load(sys.stdin)['tool_call']['args']['code']\nsys.stderr.write('audit: ' + code.encode('latin-1').decode('latin-1')[:40] + '\\n')\nprint(json.dumps({'decision': 'allow'}))\n")}
        probe: ${probe}
      network: { disabled: true }
      acknowledgedWarnings: ${JSON.stringify(["inline-hooks-writable", ...acknowledged])}
outputs:
  failOpen: \${probed.failOpen}
`;

describe("the fail-open probe at preview (real engine)", () => {
  const e2e = useE2E();

  test('probe: "warn": each finding is a warning on the component, and the preview goes through', async () => {
    const dir = await e2e().workspace.addProgram("probe-warn", probedProgram("warn"));
    const stack = await e2e().stack(dir, "warn");
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    expect(preview.output).toMatch(FINDING);
    expect(preview.changeSummary.create).toBeGreaterThanOrEqual(2);
  }, E2E_TEST_TIMEOUT_MS);

  test('probe: "error": the findings stop the preview, each named; acknowledged, it goes through', async () => {
    const failing = await e2e().stack(await e2e().workspace.addProgram("probe-error", probedProgram("error")), "error");
    await expect(e2e().run(failing, (s, onOutput) => s.preview({ onOutput }))).rejects.toThrow(/hooks fail open \(1 finding; genv hooks probe shows each\):\s+- group latin-gate, code_execution: crash/);

    const accepted = await e2e().stack(await e2e().workspace.addProgram("probe-acknowledged", probedProgram("error", ["fail-open:latin-gate:code_execution:crash"])), "acknowledged");
    const preview = await e2e().run(accepted, (s, onOutput) => s.preview({ onOutput }));
    expect(preview.output).not.toContain("hooks fail open");
    expect(preview.changeSummary.create).toBeGreaterThanOrEqual(2);
  }, E2E_TEST_TIMEOUT_MS);

  test('Pulumi YAML (the plugin\'s construct): probe "error" stops the preview naming the finding; a "fail-open:…" acknowledgement lets it through', async () => {
    const yaml = (name: string, acknowledged?: string[]) => `${pluginProject(name, e2e().pluginBinDir, "runtime: yaml")}${yamlProgram("error", acknowledged)}`;
    const failing = await e2e().stack(await e2e().workspace.addProgram("probe-yaml-error", { "index.js": "" }, yaml("probe-yaml-error")), "error");
    await expect(e2e().run(failing, (s, onOutput) => s.preview({ onOutput }))).rejects.toThrow(/hooks fail open \(1 finding; genv hooks probe shows each\):\s+- group latin-gate, code_execution: crash/);

    const accepted = await e2e().stack(await e2e().workspace.addProgram("probe-yaml-ok", { "index.js": "" }, yaml("probe-yaml-ok", ["fail-open:latin-gate:code_execution:crash"])), "ok");
    const up = await e2e().run(accepted, (s, onOutput) => s.up({ onOutput }));
    expect(up.output).not.toContain("hooks fail open");
    expect(up.outputs.failOpen?.value).toBe("1 fail-open finding (1 acknowledged)");
    await e2e().run(accepted, (s, onOutput) => s.destroy({ onOutput }));
  }, E2E_TEST_TIMEOUT_MS);
});
