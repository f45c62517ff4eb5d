// A HookBundle's policy cases run at preview, in the local sandbox, through the real engine: a case
// that no longer holds stops the preview naming it; cases that hold let it through.
import { E2E_TEST_TIMEOUT_MS, program, useE2E } from "./_workspace";

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
    const stack = await e2e().stack(dir, "passing");
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    expect(preview.changeSummary.create).toBeGreaterThanOrEqual(2);
  }, E2E_TEST_TIMEOUT_MS);
});
