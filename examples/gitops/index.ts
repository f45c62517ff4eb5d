/**
 * gitops: the environment's guardrails are the files in .agents/ (hooks.json and hooks-scripts/),
 * reviewed in pull requests with `ci/check.sh pr` (lint, policy cases, a policy diff against the base
 * branch, `pulumi preview --diff`) and deployed from main with `ci/check.sh deploy`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { GuardedEnvironment, HookBundle, NetworkPolicy, type HooksConfig } from "pulumi-gemini-environments";

const agents = path.join(__dirname, ".agents");
const hooks = new HookBundle({
  hooks: JSON.parse(fs.readFileSync(path.join(agents, "hooks.json"), "utf8")) as HooksConfig,
  scripts: Object.fromEntries(fs.readdirSync(path.join(agents, "hooks-scripts")).map((name) => [name, { file: path.join("hooks-scripts", name) }])),
  baseDir: agents,
});

const env = new GuardedEnvironment("agent", {
  hooks,
  network: NetworkPolicy.disabled(),
  sources: [{ type: "inline", target: "workspace/README.md", content: "Scratch space. Shell commands run through the security gate.\n" }],
});

export const environmentId = env.environmentId;
export const status = env.status;
