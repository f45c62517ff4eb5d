/**
 * privacy-gate (spec/HOOKS.md, worked example 2): before every view_file, check_privacy.py denies paths
 * under /private/ and points the model to /public/. The workspace holds both files, so a first
 * interaction is refused the employee records and a follow-up in the same environment reads the summary.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { command, group, GuardedEnvironment, HookBundle, NetworkPolicy, type SourceArgs } from "pulumi-gemini-environments";

const hooks = new HookBundle({
  hooks: {
    "privacy-gate": group().before("view_file", command("python3 /.agents/hooks-scripts/check_privacy.py", { timeout: 5 })),
  },
  scripts: { "check_privacy.py": { file: "hooks-scripts/check_privacy.py" } },
  baseDir: __dirname,
});

/** The files under ./workspace, as inline sources at the same paths. */
const workspace: SourceArgs[] = ["workspace/private/employees.json", "workspace/public/summary.json"].map((target) => ({
  type: "inline",
  target,
  content: fs.readFileSync(path.join(__dirname, target), "utf8"),
}));

const env = new GuardedEnvironment("privacy-gate", {
  hooks,
  network: NetworkPolicy.disabled(),
  sources: workspace,
});

export const environmentId = env.environmentId;
export const status = env.status;
export const fileCount = env.fileCount;
