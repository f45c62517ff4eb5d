/**
 * `geminienvironments_hooks`, Terraform's form of the HookBundle (components/hook-bundle.ts): the
 * hooks.json text (`config = jsonencode({…})`) and the scripts by name (`scripts = { "gate.py" =
 * file("gate.py") }`) in; `sources` out, ready to be an environment's sources (`.agents/hooks.json`
 * and `.agents/hooks-scripts/<name>`). The bundle's checks and the hooks linter run on it: an error
 * stops the plan at the attribute it names, a warning is a warning. `on_failure` (per handler in the
 * config, or for all of them here) is compiled as HookBundle compiles it (hooks/on-failure.ts).
 */
import { z } from "zod";
import { Source } from "../../client/schemas";
import { issueAt, type Issue } from "../../client/issues";
import { HookBundle } from "../components/hook-bundle";
import { HookBundleError } from "../contracts/errors";
import type * as Lint from "../../hooks/lint";
import { OnFailure } from "../../hooks/schema";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export const HooksDataArgs = z
  .strictObject({
    config: z.string().meta({
      description: 'The hooks config, the text of hooks.json: named groups, e.g. `jsonencode({ "security-gate" = { pre_tool_execution = [{ matcher = "code_execution", hooks = [{ type = "command", command = "python3 /.agents/hooks-scripts/gate.py" }] }] } })`.',
    }),
    scripts: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Scripts by name, each shipped at `.agents/hooks-scripts/<name>` and run by the config as `/.agents/hooks-scripts/<name>`, e.g. `{ "gate.py" = file("gate.py") }`.' }),
    on_failure: OnFailure.optional().meta({
      description:
        '`on_failure` of every command handler that sets none: `"deny"` makes a handler\'s crash, timeout or output that is no decision deny the call (the handler runs in a wrapper the sources ship; `hooks_json` never holds the field). Default `"allow"`, the runtime\'s rule.',
    }),
  })
  .meta({
    description:
      "A hooks config and the scripts it runs, linted at plan (an error stops the plan, a warning is shown), as the inline sources that put them in an environment: `sources = data.geminienvironments_hooks.guard.sources`.",
  });
export type HooksDataArgs = z.infer<typeof HooksDataArgs>;

export const HooksDataResult = z.object({
  sources: z.array(Source).meta({ description: "The inline sources: `.agents/hooks.json` (deterministic text) and one `.agents/hooks-scripts/<name>` per script, sorted by name." }),
  hooksJson: z.string().meta({ description: "The `.agents/hooks.json` text the sources hold: the runtime's format, each `on_failure = \"deny\"` handler compiled into its wrapper." }),
});
export type HooksDataResult = z.infer<typeof HooksDataResult>;

// ---------------------------------------------------------------------------------------------
// The data source
// ---------------------------------------------------------------------------------------------

export interface HooksRead {
  result?: HooksDataResult;
  /** Issues whose path starts at the arguments (`["config"]`, `["scripts", "gate.py"]`). */
  errors: Issue[];
  warnings: Issue[];
}

/** The bundle of `args`, or the errors that stop it; the linter's warnings either way. */
export function readHooks(args: HooksDataArgs): HooksRead {
  let json: unknown;
  try {
    json = JSON.parse(args.config);
  } catch (error) {
    // V8's message quotes the text around the error, which may hold a secret: keep only the position.
    const position = /position (\d+)/.exec(String((error as Error).message))?.[1];
    return { errors: [issueAt(["config"], "invalid-json", `is not valid JSON${position === undefined ? "" : ` at character ${position}`}: give jsonencode({...}) of the hooks groups`)], warnings: [] };
  }
  const { lintHooks } = require("../../hooks/lint") as typeof Lint;
  const findings = lintHooks(json, { inlineSourced: true });
  const at = (finding: Lint.Finding) => issueAt(["config"], finding.code, `${finding.path ? `${finding.path}: ` : ""}${finding.code}: ${finding.message}`);
  const errors = findings.filter((finding) => finding.severity === "error").map(at);
  const warnings = findings.filter((finding) => finding.severity === "warning").map(at);
  if (errors.length > 0) return { errors, warnings };
  try {
    const scripts = Object.fromEntries(Object.entries(args.scripts ?? {}).map(([name, content]) => [name, { content }]));
    const bundle = new HookBundle({ hooks: json as never, scripts, onFailure: args.on_failure });
    return { result: { sources: bundle.sources, hooksJson: bundle.hooksJson }, errors: [], warnings };
  } catch (error) {
    if (!(error instanceof HookBundleError)) throw error;
    // The bundle names the config `hooks` and the default `onFailure`: here they are `config` and `on_failure`.
    const renamed: Record<string, string> = { hooks: "config", onFailure: "on_failure" };
    return { errors: error.issues.map((issue) => ({ ...issue, path: [renamed[String(issue.path[0])] ?? issue.path[0], ...issue.path.slice(1)] })), warnings };
  }
}
