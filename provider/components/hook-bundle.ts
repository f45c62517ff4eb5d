/**
 * `HookBundle`: a typed hooks config and the scripts it runs, as the inline sources that put them in an
 * environment — `.agents/hooks.json` (deterministic text, see hooks/serialize.ts) and one
 * `.agents/hooks-scripts/<name>` per script.
 *
 * ```ts
 * const bundle = new HookBundle({
 *   hooks: { "security-gate": group().before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })) },
 *   scripts: { "gate.py": { file: "hooks-scripts/gate.py" } },
 * });
 * new GuardedEnvironment("agent", { hooks: bundle, network: NetworkPolicy.disabled() });
 * ```
 *
 * A plain value, not a resource: it creates nothing, so one bundle can guard many environments. It
 * fails fast, at construction, on a structural error in the config, an unreadable script file, or a
 * command that runs a script the bundle does not ship.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GroupBuilder, hooksConfig } from "../../hooks/builders";
import { jsonPointer, lintHooks } from "../../hooks/lint";
import type { HooksConfigInput, HooksGroupInput } from "../../hooks/schema";
import { HOOK_EVENTS, HooksConfig, OnFailure } from "../../hooks/schema";
import { compileHooks, hasOnFailure, withOnFailure } from "../../hooks/on-failure";
import type { ProbeReport } from "../../hooks/probe/run";
import { referencedScripts } from "../../hooks/scripts";
import { serializeHooks } from "../../hooks/serialize";
import { targetPathProblem, type Source } from "../../client/schemas";
import { ValidationError } from "../../client/errors";
import { atPath, issueAt, validationIssues, type Issue } from "../../client/issues";
import { HooksTestCases, type HooksTestCase, type HooksTestCaseInput } from "../../hooks/cases";
import { HookBundleError } from "../contracts/errors";
import { HOOKS_JSON_TARGET } from "../environment/hooks-check";

const PROBE_MODES: readonly ProbeMode[] = ["off", "warn", "error"];

/** Where bundle scripts land, relative to the environment root; commands run them as `/.agents/hooks-scripts/<name>`. */
export const HOOK_SCRIPTS_DIR = ".agents/hooks-scripts";

/** A script's text: a file on disk, or inline. */
export type HookScript =
  | {
      /** Path of the file, relative to `baseDir` (default: the program's working directory, its project dir). */
      file: string;
    }
  | {
      /** The script's text. */
      content: string;
    };

export interface HookBundleArgs {
  /** Named groups: `group()` builders or plain hooks.json data, in the order they run. */
  hooks: Record<string, GroupBuilder | HooksGroupInput>;
  /** Scripts by name, each shipped at `.agents/hooks-scripts/<name>`, e.g. `{"gate.py": {file: "hooks-scripts/gate.py"}}`. */
  scripts?: Record<string, HookScript>;
  /**
   * Absolute sandbox paths of scripts that other sources ship (e.g. a repository source), which the
   * commands may run without the bundle holding them, e.g. `["/workspace/tools/check.sh"]`.
   */
  providedScripts?: string[];
  /** Directory that `file` paths are relative to. Default: `process.cwd()`. */
  baseDir?: string;
  /**
   * Policy cases the hooks must hold (as for `genv hooks test`), e.g. `[{tool_call: {name:
   * "code_execution", args: {code: "rm -rf /"}}, expect: "deny", reason: "blocked"}]`. A
   * `GuardedEnvironment` runs them in the local sandbox at every preview and update: a case whose
   * decision or reason differs stops it. Where no sandbox can run (no bubblewrap) they are skipped
   * with a warning; `GENV_POLICY_TESTS=require` makes that an error (for CI).
   */
  tests?: HooksTestCaseInput[];
  /**
   * `genv hooks probe` at every preview and update, after the lint and the policy cases: every pre
   * handler against generated unkind tool calls in the local sandbox, to find the payloads on which
   * it fails open (crashes, times out, prints no decision). `"warn"`: each finding is a warning on the
   * `GuardedEnvironment` (group, tool, outcome, the smallest payload); `"error"`: findings stop the
   * preview. A reviewed finding is accepted with `acknowledgedWarnings: ["fail-open:<group>:<tool>:<outcome>"]`,
   * e.g. `"fail-open:security-gate:code_execution:timeout"`. Default `"off"`: a probe is a few
   * seconds per gate on two cores (docs/performance.md), too much for every preview; run `genv hooks
   * probe` in the pull request instead, or switch it on here.
   */
  probe?: ProbeMode;
  /**
   * `on_failure` of every command handler that sets none: `"deny"` makes a handler's crash, timeout or
   * output that is no decision deny the call (the handler then runs in a wrapper shipped beside the
   * scripts, docs/hooks-and-policies.md). Default `"allow"`, the runtime's rule.
   */
  onFailure?: OnFailure;
}

/** Whether the probe runs at preview, and what its findings are: `off`, `warn` or `error`. */
export type ProbeMode = "off" | "warn" | "error";

export { HookBundleError };

export interface HookRepositoryArgs {
  /**
   * A repository holding `hooks.json` and `hooks-scripts/` at its root (or at `/subdir` of a
   * `github://` source), e.g. `github://acme/agent-guardrails@v3` or `file:///srv/guardrails@main`.
   * It is mounted at `.agents`, read-only in the sandbox.
   */
  source: string;
  /**
   * A local checkout of the same revision (e.g. a submodule of the infra repo), read at program time
   * so that the hooks are linted and the hosts of HTTP hooks known. Without it nothing is checked
   * before the environment exists.
   */
  checkout?: string;
}

export class HookBundle {
  /**
   * The hooks config, validated, as given (defaults not filled in but `onFailure`'s, set on each
   * command handler); empty for a repository bundle without a checkout. `hooksJson` is its compiled form.
   */
  readonly config: HooksConfigInput;
  /** The `.agents/hooks.json` text, compiled (no `on_failure`; see hooks/on-failure.ts); for a repository bundle, the checkout's, or empty. */
  readonly hooksJson: string;
  /** The sources that put the hooks in an environment: inline hooks.json and scripts, or one repository. */
  readonly sources: Source[];
  /** True when the hooks come from inline sources, which the agent can modify (the spec's warning). */
  readonly writableByAgent: boolean;
  /** The policy cases, validated (`event` filled in); empty when none were given. */
  readonly tests: HooksTestCase[];
  /** Whether the probe runs at preview (`HookBundleArgs.probe`). */
  readonly probe: ProbeMode;
  /** The scripts by name, as the cases' sandbox gets them. */
  private readonly scriptTexts: Record<string, string | Buffer>;
  /** The probe's report, made once per bundle however many environments it guards. */
  private probed?: Promise<ProbeReport>;

  constructor(args: HookBundleArgs) {
    const problems: Issue[] = [];
    if (args.onFailure !== undefined && !OnFailure.safeParse(args.onFailure).success) problems.push(issueAt(["onFailure"], "invalid-value", `must be "allow" or "deny" (got ${JSON.stringify(args.onFailure)})`));
    this.config = withOnFailure(hooksConfigOf(args.hooks), problems.length === 0 ? args.onFailure : undefined);
    const compiled = compileHooks(this.config);
    this.hooksJson = serializeHooks(compiled.config);
    const scripts = readScripts(args.scripts ?? {}, args.baseDir ?? process.cwd(), problems);
    for (const name of Object.keys(compiled.scripts)) {
      if (scripts.has(name)) problems.push(issueAt(["scripts", name], "reserved-name", `${name} is the wrapper that on_failure "deny" ships: rename this script`));
      scripts.set(name, { content: compiled.scripts[name] as string });
    }
    problems.push(...missingScripts(this.config, new Set(scripts.keys()), new Set(args.providedScripts ?? []), "hooks"));
    // Compiling drops on_failure, so the held hooks.json's lint (the Environment's check) cannot see an http handler's "deny".
    for (const finding of lintHooks(this.config).filter((each) => each.code === "http-on-failure-deny")) problems.push(issueAt(["hooks"], finding.code, `${finding.path}: ${finding.message}`));
    const tests = HooksTestCases.safeParse(args.tests ?? []);
    if (!tests.success) problems.push(...validationIssues(tests.error, ["tests"]));
    if (args.probe !== undefined && !PROBE_MODES.includes(args.probe)) problems.push(issueAt(["probe"], "invalid-value", `must be one of ${PROBE_MODES.join(", ")} (got ${JSON.stringify(args.probe)})`));
    if (problems.length > 0) throw new HookBundleError(problems);
    this.probe = args.probe ?? "off";
    this.tests = tests.success ? tests.data : [];
    this.scriptTexts = Object.fromEntries(
      [...scripts.entries()].map(([name, script]) => [name, script.encoding === "base64" ? Buffer.from(script.content, "base64") : script.content]),
    );
    this.sources = [
      { type: "inline", target: HOOKS_JSON_TARGET, content: this.hooksJson },
      ...[...scripts.entries()].map(([name, script]) => ({ type: "inline" as const, target: `${HOOK_SCRIPTS_DIR}/${name}`, ...script })),
    ];
    this.writableByAgent = true;
  }

  /**
   * Runs the policy cases against the hooks and scripts in the local sandbox (`emulator/`, loaded
   * only here). Each outcome carries `mismatch` when the case failed.
   */
  async runTests(): Promise<Array<{ name: string; decision: string; reason?: string; mismatch?: string }>> {
    const { caseName, mismatchOf, runCases } = await import("../../emulator/sandbox/policy-cases");
    const verdicts = await runCases({ hooksText: this.hooksJson, scripts: this.scriptTexts }, this.tests, "env_policy_tests");
    return this.tests.map((testCase, index) => ({
      name: caseName(testCase, index),
      decision: verdicts[index].decision,
      ...(verdicts[index].reason !== undefined && { reason: verdicts[index].reason }),
      ...(mismatchOf(testCase, verdicts[index], false) !== undefined && { mismatch: mismatchOf(testCase, verdicts[index], false) }),
    }));
  }

  /**
   * `genv hooks probe` of the hooks and scripts in the local sandbox, with the default seed (`emulator/`
   * and the probe loaded only here); made once per bundle.
   */
  runProbe(): Promise<ProbeReport> {
    this.probed ??= (async () => {
      const [{ runCommandHandlers }, { probeHooks }, { DEFAULT_PROBE_SEED, probeCorpus }] = await Promise.all([
        import("../../emulator/sandbox/policy-cases"),
        import("../../hooks/probe/run"),
        import("../../hooks/probe/corpus"),
      ]);
      const hooks = { hooksText: this.hooksJson, scripts: this.scriptTexts };
      return probeHooks(HooksConfig.parse(this.config), {
        seed: DEFAULT_PROBE_SEED,
        calls: probeCorpus(DEFAULT_PROBE_SEED),
        runCommands: (requests, control) => runCommandHandlers(hooks, requests, os.availableParallelism(), control),
      });
    })();
    return this.probed;
  }

  /**
   * Hooks from a repository, mounted read-only at `.agents`: the tamper-resistant option the hooks
   * spec recommends, since an agent with shell access can rewrite inline hooks.
   */
  static fromRepository(args: HookRepositoryArgs): HookBundle {
    const bundle: { -readonly [K in keyof HookBundle]: HookBundle[K] } = Object.create(HookBundle.prototype);
    bundle.config = {};
    bundle.tests = [];
    bundle.probe = "off";
    (bundle as unknown as { scriptTexts: Record<string, string | Buffer> }).scriptTexts = {};
    if (args.checkout !== undefined) {
      const file = path.join(args.checkout, "hooks.json");
      let text: string;
      try {
        text = fs.readFileSync(file, "utf8");
      } catch (error) {
        throw new HookBundleError([issueAt(["checkout"], "unreadable", `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`)]);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        throw new HookBundleError([issueAt(["checkout"], "invalid-json", `${file} is not valid JSON: ${(error as Error).message}`)]);
      }
      bundle.config = hooksConfig(json as Record<string, HooksGroupInput>);
      if (hasOnFailure(bundle.config)) {
        throw new HookBundleError([
          issueAt(["checkout"], "on-failure-not-compiled", `${file} sets on_failure, but a repository's hooks.json is mounted as it is and the runtime ignores on_failure: give the config to new HookBundle({hooks, scripts}) instead, which compiles it`),
        ]);
      }
      const shipped = new Set(fs.existsSync(path.join(args.checkout, "hooks-scripts")) ? fs.readdirSync(path.join(args.checkout, "hooks-scripts")) : []);
      const problems = missingScripts(bundle.config, shipped, new Set(), "checkout");
      if (problems.length > 0) throw new HookBundleError(problems);
    }
    bundle.hooksJson = args.checkout !== undefined ? serializeHooks(bundle.config) : "";
    bundle.sources = [{ type: "repository", source: args.source, target: ".agents" }];
    bundle.writableByAgent = false;
    return bundle as HookBundle;
  }

  /** Hosts the HTTP handlers POST to, each once, in order of appearance, e.g. `["telemetry.example.com"]`. */
  httpHosts(): string[] {
    const hosts = new Set<string>();
    forEachHandler(this.config, (handler) => {
      if (handler.type === "http") hosts.add(new URL(handler.url).hostname);
    });
    return [...hosts];
  }
}

// ---------------------------------------------------------------------------------------------
// Scripts
// ---------------------------------------------------------------------------------------------

type ScriptContent = { content: string; encoding?: "base64" };

/** Script contents by name, sorted by name so that the sources are deterministic. */
function readScripts(scripts: Record<string, HookScript>, baseDir: string, problems: Issue[]): Map<string, ScriptContent> {
  const out = new Map<string, ScriptContent>();
  for (const name of Object.keys(scripts).sort()) {
    const script = scripts[name] as HookScript;
    const targetProblem = targetPathProblem(name);
    if (targetProblem) {
      problems.push(issueAt(["scripts", name], "invalid-name", `the name ${targetProblem}`));
      continue;
    }
    if ("content" in script) {
      out.set(name, { content: script.content });
      continue;
    }
    const file = path.resolve(baseDir, script.file);
    try {
      out.set(name, contentOf(fs.readFileSync(file)));
    } catch (error) {
      problems.push(issueAt(["scripts", name], "unreadable", `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`));
    }
  }
  return out;
}

/** UTF-8 text as is; anything else (a binary helper) as base64. */
function contentOf(bytes: Buffer): ScriptContent {
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? { content: text } : { content: bytes.toString("base64"), encoding: "base64" };
}

/**
 * A problem for each script a command runs that the bundle does not ship. A reference resolves to a
 * bundle script when it is `/.agents/hooks-scripts/<name>`; a relative path is refused because the
 * hook's working directory is not specified. Each is at `field` (`hooks`, or `checkout` for a
 * repository's hooks.json), its message starting with the handler's JSON pointer in the config, as
 * the linter gives it.
 */
function missingScripts(config: HooksConfigInput, shipped: Set<string>, provided: Set<string>, field: string): Issue[] {
  const problems: Issue[] = [];
  forEachHandler(config, (handler, at) => {
    if (handler.type !== "command") return;
    const pointer = jsonPointer([...at, "command"]);
    for (const script of referencedScripts({ handler: { pre_tool_execution: [{ matcher: "", hooks: [handler] }] } })) {
      if (provided.has(script)) continue;
      const prefix = `/${HOOK_SCRIPTS_DIR}/`;
      if (script.startsWith(prefix)) {
        const name = script.slice(prefix.length);
        if (!shipped.has(name)) {
          const have = shipped.size > 0 ? `the bundle has ${[...shipped].join(", ")}` : "the bundle has no scripts";
          problems.push(issueAt([field], "script-not-shipped", `${pointer}: runs ${script}, but ${have}: add scripts[${JSON.stringify(name)}] (a file or inline content)`));
        }
      } else if (!script.startsWith("/")) {
        problems.push(issueAt([field], "relative-script", `${pointer}: runs ${script} by a relative path, but a hook's working directory is not specified: write /${HOOK_SCRIPTS_DIR}/${path.posix.basename(script)} and ship it in scripts`));
      } else {
        problems.push(issueAt([field], "script-not-shipped", `${pointer}: runs ${script}, which the bundle does not ship: move it to scripts (run it as /${HOOK_SCRIPTS_DIR}/${path.posix.basename(script)}) or list it in providedScripts if another source ships it`));
      }
    }
  });
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Walking a config
// ---------------------------------------------------------------------------------------------

type HandlerOf = NonNullable<HooksGroupInput["pre_tool_execution"]>[number]["hooks"][number];

function forEachHandler(config: HooksConfigInput, visit: (handler: HandlerOf, at: PropertyKey[]) => void): void {
  for (const [name, group] of Object.entries(config)) {
    for (const event of HOOK_EVENTS) {
      (group[event] ?? []).forEach((rule, r) => rule.hooks.forEach((handler, h) => visit(handler, [name, event, r, "hooks", h])));
    }
  }
}

/** The hooks config; a structural problem (a timeout of 0) is a `HookBundleError` naming its path under `hooks`. */
function hooksConfigOf(groups: Parameters<typeof hooksConfig>[0]): HooksConfigInput {
  try {
    return hooksConfig(groups);
  } catch (error) {
    if (error instanceof ValidationError) throw new HookBundleError(atPath(["hooks"], error.issues));
    throw error;
  }
}
