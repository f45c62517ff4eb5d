// A HookBundle's `probe` at preview, through the real engine: with "warn", each fail-open finding is a
// warning on the GuardedEnvironment naming its group, tool and outcome, and the preview goes through;
// with "error" the findings stop it; acknowledgedWarnings accepts a reviewed one.
import { E2E_TEST_TIMEOUT_MS, program, useE2E } from "./_workspace";

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
});
