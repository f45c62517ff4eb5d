/**
 * fleet: `count` identical guarded environments (config `count`, default 3) sharing one hook bundle,
 * for benchmarks of create/refresh/destroy throughput against `genv serve`.
 */
import * as pulumi from "@pulumi/pulumi";
import { command, group, GuardedEnvironment, HookBundle, NetworkPolicy } from "pulumi-gemini-environments";

const count = new pulumi.Config().getNumber("count") ?? 3;

const hooks = new HookBundle({
  hooks: {
    "security-gate": group().before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })),
  },
  scripts: { "gate.py": { file: "hooks-scripts/gate.py" } },
  baseDir: __dirname,
});

const fleet = Array.from({ length: count }, (_, i) =>
  new GuardedEnvironment(`agent-${i}`, {
    hooks,
    network: NetworkPolicy.disabled(),
    sources: [{ type: "inline", target: "workspace/task.txt", content: `task ${i}\n` }],
    acknowledgedWarnings: ["inline-hooks-writable"], // reviewed once for the whole fleet
  }),
);

export const environmentIds = fleet.map((env) => env.environmentId);
export const statuses = fleet.map((env) => env.status);
export const fileCounts = fleet.map((env) => env.fileCount);
