/**
 * security-gate (spec/HOOKS.md, worked example 1): before every code_execution, gate.py reads the call
 * and denies any whose arguments contain `rm -rf`, with the reason the model then sees. `onFailure:
 * "deny"`: should the gate itself fail (crash, overrun its timeout, print no decision), the call is
 * denied rather than let through (docs/hooks-and-policies.md, "Failing closed").
 */
import { command, group, GuardedEnvironment, HookBundle, NetworkPolicy } from "pulumi-gemini-environments";

const hooks = new HookBundle({
  hooks: {
    "security-gate": group().before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10, onFailure: "deny" })),
  },
  scripts: { "gate.py": { file: "hooks-scripts/gate.py" } },
  baseDir: __dirname,
});

const env = new GuardedEnvironment("security-gate", {
  hooks,
  network: NetworkPolicy.disabled(), // nothing leaves the sandbox
  sources: [{ type: "inline", target: "workspace/README.md", content: "Scratch space. Shell commands run through the security gate.\n" }],
});

export const environmentId = env.environmentId;
export const status = env.status;
export const fileCount = env.fileCount;
