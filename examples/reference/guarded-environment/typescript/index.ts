import { command, group, GuardedEnvironment, HookBundle, NetworkPolicy } from "pulumi-gemini-environments";

const gate = `import json, sys
code = json.load(sys.stdin)["tool_call"]["args"].get("code", "")
print(json.dumps({"decision": "deny", "reason": "destructive"} if "rm -rf" in code else {"decision": "allow"}))
`;

const hooks = new HookBundle({
    hooks: {
        "security-gate": group().before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })),
    },
    scripts: { "gate.py": { content: gate } },
    tests: [{ name: "rm -rf is blocked", tool_call: { name: "code_execution", args: { code: "rm -rf /" } }, expect: "deny", reason: "destructive" }],
});

const guarded = new GuardedEnvironment("guarded", {
    hooks,
    network: NetworkPolicy.disabled(),
    sources: [{ type: "inline", target: "workspace/README.md", content: "Scratch space.\n" }],
});

export const environmentId = guarded.environmentId;
export const policyTests = guarded.policyTests;
