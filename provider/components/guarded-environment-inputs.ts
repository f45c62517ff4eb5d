/**
 * The GuardedEnvironment component's properties as every language declares them (schema.json, and
 * the plugin's `construct`, which checks them with these schemas): the hooks as a plain bundle, the
 * network, more sources, acknowledged warnings; outputs the Environment's id and state. TypeScript
 * programs pass a `HookBundle` and a `NetworkPolicy` instead (guarded-environment.ts).
 */
import { z } from "zod";
import { HooksTestCases } from "../../hooks/cases";
import { OnFailure } from "../../hooks/schema";
import { LINT_CODES } from "../../hooks/lint";
import { HooksConfigInput } from "./hooks-config-inputs";
import { Source } from "../../client/schemas";
import { EnvironmentStatus, NetworkDeclared, UpdateStrategyDeclared } from "../environment/inputs";
import { bindableOr } from "../contracts/resource-schema";

/** The linter's codes (hooks/README.md has each one's severity and fix); only warnings can be acknowledged. */
export const LintCode = z.enum(LINT_CODES).meta({
  description: "A hooks linter finding's code.",
  valueDescriptions: {
    schema: "The file does not follow the hooks.json schema (error).",
    "invalid-regex": "A matcher RE2 rejects (error).",
    "glob-matcher": "A shell glob used as a regular expression, e.g. `view_*` (error).",
    "unknown-tool": "A matcher that selects none of the sandbox tools (warning).",
    "http-host-not-allowlisted": "The network policy blocks an HTTP hook's host (error).",
    "loopback-url": "An HTTP hook to the sandbox itself, which the proxy refuses (error).",
    "blocked-address-url": "An HTTP hook to an address that is not globally reachable, which the proxy refuses (error).",
    "insecure-url": "An HTTP hook over plain `http://` (warning).",
    "secret-in-header": "An HTTP hook header that carries a credential (error).",
    "inline-hooks-writable": "Inline hooks and scripts, which the agent can rewrite (warning).",
    "http-on-failure-deny": "`on_failure: deny` on an HTTP handler, which nothing in the sandbox can answer for (error).",
    "on-failure-not-compiled": "`on_failure` in a hooks.json an environment holds as it is, which the runtime ignores (error).",
  } satisfies Record<(typeof LINT_CODES)[number], string>,
});

/** When `genv hooks probe` runs at preview and what its findings are (HookBundle's `probe`). */
export const ProbeMode = z.enum(["off", "warn", "error"], { error: "must be off, warn or error" }).meta({
  description: "Whether the fail-open probe (`genv hooks probe`) runs at every preview and update, and what its findings are.",
  valueDescriptions: {
    off: "The probe does not run (the default: seconds per gate at every preview; run `genv hooks probe` in the pull request instead).",
    warn: "Each fail-open finding is a warning on the component.",
    error: "Fail-open findings stop the preview or update.",
  },
});

/** A reviewed fail-open finding, accepted: `fail-open:<group>:<tool>:<outcome>`. */
const FailOpenAcknowledgement = z.string().regex(/^fail-open:[^:]+:[^:]+:[^:]+$/, { error: "must be a lint warning code or fail-open:<group>:<tool>:<outcome>" });

export const HookBundleInput = z
  .object({
    config: HooksConfigInput.meta({ description: "The `.agents/hooks.json` content: named groups, in the order they run." }),
    scripts: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: "Scripts by name, each shipped at `.agents/hooks-scripts/<name>` (their text). Every script a command runs must be here." }),
    providedScripts: z
      .array(z.string())
      .optional()
      .meta({ description: "Absolute sandbox paths of scripts that other sources ship, which commands may run without the bundle holding them." }),
    tests: HooksTestCases.optional().meta({
      description:
        "Policy cases, as `genv hooks test` reads them: a tool call, the decision expected and an optional reason substring. They run at every preview in the local sandbox; a regression fails it.",
    }),
    probe: ProbeMode.optional().meta({
      description:
        "`genv hooks probe` at every preview and update, after the lint and the policy cases: every pre handler against generated unkind tool calls in the local sandbox. `warn`: each fail-open finding (crash, timeout, no decision) is a warning; `error`: findings stop the preview. A reviewed finding is accepted in `acknowledgedWarnings` as `fail-open:<group>:<tool>:<outcome>`.",
      absent: "off",
    }),
    onFailure: OnFailure.optional().meta({
      description:
        "`on_failure` of every command handler that sets none: `deny` makes a handler's crash, timeout or output that is no decision deny the call (the handler runs in a wrapper shipped beside the scripts); `allow`, the default, is the runtime's rule.",
      absent: "allow",
    }),
  })
  .meta({ description: "A hooks config and the scripts it runs, shipped as inline sources." });
export type HookBundleInput = z.infer<typeof HookBundleInput>;

export const GuardedEnvironmentInputs = z
  .object({
    hooks: HookBundleInput.meta({ description: "The hooks config and scripts, shipped as `.agents/hooks.json` and `.agents/hooks-scripts/*`." }),
    network: NetworkDeclared.meta({
      description:
        "The egress policy, required: a guarded environment that left it out would allow all egress, so every program says what its agent may reach (`{allowlist: [{domain: \"*\"}]}` allows every domain). HTTP hooks need their hosts allowed.",
    }),
    sources: z.array(Source).optional().meta({ description: "More sources after the bundle's, e.g. the workspace the agent works on." }),
    updateStrategy: UpdateStrategyDeclared.optional().meta({
      description: "The Environment's `updateStrategy`: `in_place` (default: a hook change uploads the files, the agent's work stays) or `replace`.",
      absent: "in_place",
    }),
    acknowledgedWarnings: z
      .array(bindableOr(LintCode, FailOpenAcknowledgement))
      .optional()
      .meta({
        description:
          "Linter warning codes reviewed and accepted, not reported again (errors cannot be acknowledged); with the bundle's `probe` on, a reviewed fail-open finding as `fail-open:<group>:<tool>:<outcome>` (in Go, `genv.LintCode(\"fail-open:…\")`).",
      }),
  })
  .meta({
    description: "An Environment whose hooks (`.agents/hooks.json` and its scripts) and egress policy are declared together; the hooks linter stops the preview on errors.",
  });

export const GuardedEnvironmentOutputs = z.object({
  environmentId: z.string().meta({ description: "The Environment's id, e.g. `env_abc123`." }),
  status: EnvironmentStatus.meta({ description: "`active` or `expired`." }),
  fileCount: z.number().int().meta({ description: "Number of files in the environment." }),
  sizeBytes: z.number().int().meta({ description: "Total size of the environment's files, in bytes." }),
  failOpen: z
    .string()
    .optional()
    .meta({ description: "The bundle's fail-open probe at this preview or update: `none`, `2 fail-open findings (1 acknowledged)`, or `skipped` where no sandbox runs it. Absent with the probe off." }),
  policyTests: z
    .string()
    .optional()
    .meta({ description: "The policy cases' outcome at this preview or update: `N passed`, or `skipped` where no sandbox runs them (a failed case fails the operation). Absent without cases." }),
});
