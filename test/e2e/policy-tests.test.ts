// A HookBundle's policy cases run at preview, in the local sandbox, through the real engine: a case
// that no longer holds stops the preview naming it; cases that hold let it through.
import type { Stack } from "@pulumi/pulumi/automation";

import { E2E_TEST_TIMEOUT_MS, pluginProject, program, useE2E } from "./_workspace";

const gateProgram = (expectForCurl: "allow" | "deny") =>
  program(`
const gate = [
  "import json, sys",
  "code = json.load(sys.stdin)['tool_call']['args'].get('code', '')",
  "print(json.dumps({'decision': 'deny', 'reason': 'destructive'} if 'rm -rf' in code else {'decision': 'allow'}))",
].join("\\n");
const hooks = new genv.HookBundle({
  hooks: { gate: genv.group().before("code_execution", genv.command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })) },
  scripts: { "gate.py": { content: gate } },
  tests: [
    { name: "rm is blocked", tool_call: { name: "code_execution", args: { code: "rm -rf /" } }, expect: "deny", reason: "destructive" },
    { name: "curl", tool_call: { name: "code_execution", args: { code: "curl example.com" } }, expect: "${expectForCurl}" },
  ],
});
const env = new genv.GuardedEnvironment("tested", { hooks, network: genv.NetworkPolicy.disabled(), acknowledgedWarnings: ["inline-hooks-writable"] });
exports.environmentId = env.environmentId;
`);

/** The same component in Pulumi YAML, built by the plugin's construct, with its cases in `hooks.tests`. */
const yamlProgram = (expectForCurl: "allow" | "deny") => `resources:
  tested:
    type: gemini-environments:index:GuardedEnvironment
    properties:
      hooks:
        config:
          gate:
            preToolExecution:
              - matcher: code_execution
                hooks:
                  - command:
                      command: python3 /.agents/hooks-scripts/gate.py
                      timeout: 10
        scripts:
          gate.py: "import json, sys\\ncode = json.load(sys.stdin)['tool_call']['args'].get('code', '')\\nprint(json.dumps({'decision': 'deny', 'reason': 'destructive'} if 'rm -rf' in code else {'decision': 'allow'}))\\n"
        tests:
          - name: rm is blocked
            toolCall: { name: code_execution, args: { code: "rm -rf /" } }
            expect: deny
            reason: destructive
          - name: curl
            toolCall: { name: code_execution, args: { code: "curl example.com" } }
            expect: ${expectForCurl}
      network: { disabled: true }
      acknowledgedWarnings: [inline-hooks-writable]
`;

/**
 * Without a sandbox the cases are skipped with a warning and the preview goes through: a passing preview
 * would prove nothing. GENV_POLICY_TESTS=require (the setting the README gives CI) makes that an error.
 */
function requirePolicyTests(stack: Stack): Stack {
  stack.workspace.envVars.GENV_POLICY_TESTS = "require";
  return stack;
}

describe("policy tests at preview (real engine)", () => {
  const e2e = useE2E();

  test("a case that no longer holds stops the preview, naming the case, expected and actual", async () => {
    const dir = await e2e().workspace.addProgram("policy-failing", gateProgram("deny"));
    const stack = await e2e().stack(dir, "failing");
    const requests = await e2e().requestsDuring(async () => {
      await expect(e2e().run(stack, (s, onOutput) => s.preview({ onOutput }))).rejects.toThrow(/policy tests failed \(1 of 2\):\s+- curl: expected deny, got allow/);
    });
    expect(requests).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("cases that hold: the preview goes through", async () => {
    const dir = await e2e().workspace.addProgram("policy-passing", gateProgram("allow"));
    const stack = requirePolicyTests(await e2e().stack(dir, "passing"));
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    expect(preview.changeSummary.create).toBeGreaterThanOrEqual(2);
    expect(preview.output).not.toContain("policy tests not run");
  }, E2E_TEST_TIMEOUT_MS);

  test.each([
    ["deny", /policy tests failed \(1 of 2\):\s+- curl: expected deny, got allow/],
    ["allow", undefined],
  ] as const)("Pulumi YAML, through the plugin's construct: hooks.tests expecting curl %s", async (expectForCurl, failure) => {
    const name = `policy-yaml-${expectForCurl}`;
    const dir = await e2e().workspace.addProgram(name, { "index.js": "" }, `${pluginProject(name, e2e().pluginBinDir, "runtime: yaml")}${yamlProgram(expectForCurl)}`);
    const stack = requirePolicyTests(await e2e().stack(dir, "yaml"));
    const preview = e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    if (failure) {
      await expect(preview).rejects.toThrow(failure);
    } else {
      const passed = await preview;
      expect(passed.changeSummary.create).toBeGreaterThanOrEqual(2);
      expect(passed.output).not.toContain("policy tests not run");
    }
  }, E2E_TEST_TIMEOUT_MS);
});
