/**
 * Policy cases: tool calls and the decision the hooks must give them, run through the hooks runtime
 * in the sandbox (the tools themselves never run). Shared by `genv hooks test`, `genv hooks diff` and
 * the cases a `HookBundle` carries (checked at preview by `GuardedEnvironment`).
 *
 * A case: `{"name"?, "tool_call": {"name", "args"}, "event"?: "pre_tool_execution" | "post_tool_execution",
 * "expect": "allow" | "deny", "reason"?: "<substring of the deny reason>", "error"?: "<post payload error>"}`.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { walk, withTree } from "../../confine";
import { discoverHooks, executeWithHooks, HOOKS_FILE, runHooks, type CommandRun, type HttpDeliverer, type HooksVerdict } from "../../hooks/runtime";
import type { HooksTestCase } from "../../hooks/cases";
import { matches } from "../../hooks/matcher";
import type { PrePayload } from "../../hooks/recorded-calls";
import { compileHooks, hasOnFailure } from "../../hooks/on-failure";
import { HooksConfig } from "../../hooks/schema";
import { serializeHooks } from "../../hooks/serialize";
import { runInSandbox } from "./bwrap";
import { sandboxHooks } from "./hooks";
import { giveToSandbox } from "./_identity";
import { removeHostView } from "./_host-view";

export { HooksTestCase, HooksTestCases } from "../../hooks/cases";

/**
 * A hooks.json (as text) and the directory of the scripts its commands run. The text may set
 * `on_failure`: the tree gets its compiled form, as an environment would (hooks/on-failure.ts).
 */
export interface HooksUnderTest {
  hooksText: string;
  /** A directory copied to `.agents/hooks-scripts/`. */
  scriptsDir?: string;
  /** Scripts by file name, written to `.agents/hooks-scripts/` (a bundle's). */
  scripts?: Readonly<Record<string, string | Buffer>>;
}

/**
 * The verdict of every case against `hooks`, each in a throwaway tree of its own. Throws
 * `SandboxUnavailableError` first when no sandbox can run here: a hook that cannot start would
 * otherwise fail open, and every case read as an allow.
 */
export async function runCases(hooks: HooksUnderTest, cases: readonly HooksTestCase[], environmentId: string): Promise<HooksVerdict[]> {
  if (cases.length > 0) await assertSandboxRuns();
  const verdicts: HooksVerdict[] = [];
  for (const testCase of cases) {
    verdicts.push(await inThrowawayTree("genv-hooks-test-", (root) => buildTree(root, hooks), (root) => runCase(root, testCase, environmentId)));
  }
  return verdicts;
}

/** One recorded call against one side's hooks. */
export interface ReplayTask {
  hooks: HooksUnderTest;
  payload: PrePayload;
}

/** A replayed call's pre verdict and the HTTP handlers it reached but did not call; or why it could not run. */
export type ReplayOutcome = { verdict: HooksVerdict; httpNotCalled: string[] } | { error: string };

/** The failure an HTTP handler that a replay does not call reports. */
export const HTTP_NOT_REPLAYED = "not replayed: HTTP hooks are called only with --http live";

/**
 * The pre hooks' verdict on each task's payload, as a case's: each in a throwaway tree of its own, the
 * command hooks in the sandbox, the tool never run, no post hooks (a replay judges the pre decision).
 * `concurrency` tasks run at once. HTTP handlers are called through `liveHttp` when given; otherwise
 * they are not called, fail open, and are listed in `httpNotCalled`. A side none of whose pre rules
 * matches the tool decides allow without a tree: nothing would run.
 */
export async function replayPreHooks(tasks: readonly ReplayTask[], options: { concurrency: number; liveHttp?: HttpDeliverer }): Promise<ReplayOutcome[]> {
  if (tasks.length > 0) await assertSandboxRuns();
  const configs = new Map<HooksUnderTest, HooksConfig | undefined>();
  const configOf = (hooks: HooksUnderTest) => {
    if (!configs.has(hooks)) configs.set(hooks, parsedConfig(hooks.hooksText));
    return configs.get(hooks);
  };
  const outcomes: ReplayOutcome[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    const trees = new PristineTrees();
    try {
      while (next < tasks.length) {
        const index = next++;
        const { hooks, payload } = tasks[index];
        const config = configOf(hooks);
        if (config !== undefined && !anyPreRuleMatches(config, payload.tool_call.name)) {
          outcomes[index] = { verdict: { decision: "allow", hooks: [] }, httpNotCalled: [] };
          continue;
        }
        outcomes[index] = await trees.use(hooks, (root) => replayOne(root, payload, options.liveHttp)).catch((error: unknown) => ({ error: (error as Error).message }));
      }
    } finally {
      await trees.removeAll();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, tasks.length)) }, worker));
  return outcomes;
}

/**
 * Runs each command handler request over `hooks`' tree in the sandbox, as a live call runs it (the
 * handler's timeout, the sandbox's limits), for the probe (`hooks/probe/run.ts`): `concurrency` at
 * once, each worker's tree reused while unchanged, as a replay does. A run that could not happen (the
 * tree could not be built) is `{error}`; one that `control.skip` says to leave out when its turn comes
 * is `{skipped: true}`; `control.done` hears of each result as it comes.
 */
export async function runCommandHandlers(
  hooks: HooksUnderTest,
  requests: ReadonlyArray<{ command: string; timeoutSeconds: number; stdin: string }>,
  concurrency: number,
  control: { skip?: (index: number) => boolean; done?: (index: number, result: CommandRun | { error: string }) => void } = {},
): Promise<Array<CommandRun | { error: string } | { skipped: true }>> {
  if (requests.length > 0) await assertSandboxRuns();
  const results: Array<CommandRun | { error: string } | { skipped: true }> = new Array(requests.length);
  let next = 0;
  const worker = async () => {
    const trees = new PristineTrees();
    try {
      while (next < requests.length) {
        const index = next++;
        if (control.skip?.(index)) {
          results[index] = { skipped: true };
          continue;
        }
        const result = await trees.use(hooks, (root) => sandboxHooks(root).runCommand(requests[index])).catch((error: unknown) => ({ error: (error as Error).message }));
        results[index] = result;
        control.done?.(index, result);
      }
    } finally {
      await trees.removeAll();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, requests.length)) }, worker));
  return results;
}

/**
 * One worker's throwaway trees, one per side, each kept for the next call only while it is exactly as
 * built: a call that changed anything in it (a hook wrote a file, touched a directory) gets it removed,
 * and the next call a fresh one. So every call sees what a fresh tree would show, as a case does,
 * without building one per call (about a quarter of a replayed call's cost here).
 */
class PristineTrees {
  private readonly built = new Map<HooksUnderTest, { root: string; fingerprint: string }>();

  async use<T>(hooks: HooksUnderTest, run: (root: string) => Promise<T>): Promise<T> {
    let tree = this.built.get(hooks);
    if (tree === undefined) {
      const root = mkdtempSync(path.join(os.tmpdir(), "genv-hooks-replay-"));
      this.built.set(hooks, { root, fingerprint: "" }); // removed with the others, even if the build fails
      await buildTree(root, hooks);
      await giveToSandbox(root);
      tree = { root, fingerprint: await fingerprintOf(root) };
      this.built.set(hooks, tree);
    }
    try {
      return await run(tree.root);
    } finally {
      if ((await fingerprintOf(tree.root).catch(() => "")) !== tree.fingerprint) await this.remove(hooks);
    }
  }

  async removeAll(): Promise<void> {
    for (const hooks of [...this.built.keys()]) await this.remove(hooks);
  }

  private async remove(hooks: HooksUnderTest): Promise<void> {
    const tree = this.built.get(hooks);
    if (tree === undefined) return;
    this.built.delete(hooks);
    await fs.rm(tree.root, { recursive: true, force: true });
    await removeHostView(tree.root);
  }
}

/**
 * The tree's root (inode, mode, owner, modification time: not its change time, which the host view's
 * overlay moves at a tree's first call, marking its upper layer) and every entry in it (path, kind,
 * inode, size, modification and change times), through `confine/`.
 */
async function fingerprintOf(root: string): Promise<string> {
  const hash = createHash("sha256");
  const top = await fs.lstat(root);
  hash.update(`${top.ino}\0${top.mode}\0${top.uid}\0${top.gid}\0${top.mtimeMs}\n`);
  await withTree(root, async (tree) => {
    for await (const { relative, kind, stat } of walk(tree)) hash.update(`/${relative}\0${kind}\0${stat.ino}\0${stat.size}\0${stat.mtimeMs}\0${stat.ctimeMs}\n`);
  });
  return hash.digest("hex");
}

async function replayOne(root: string, payload: PrePayload, liveHttp: HttpDeliverer | undefined): Promise<ReplayOutcome> {
  const httpNotCalled: string[] = [];
  const notCalled: HttpDeliverer = async ({ url }) => {
    httpNotCalled.push(url);
    return { failure: HTTP_NOT_REPLAYED };
  };
  const discovered = await discoverHooks(root);
  if (discovered.config === undefined) {
    return { verdict: { decision: "allow", hooks: [{ group: "", event: "pre_tool_execution", handler: HOOKS_FILE, decision: "allow", duration_ms: 0, failure: discovered.failure }] }, httpNotCalled };
  }
  const verdict = await runHooks(discovered.config, "pre_tool_execution", payload, { ...sandboxHooks(root), deliverHttp: liveHttp ?? notCalled });
  return { verdict, httpNotCalled };
}

function parsedConfig(text: string): HooksConfig | undefined {
  try {
    const parsed = HooksConfig.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function anyPreRuleMatches(config: HooksConfig, tool: string): boolean {
  return Object.values(config).some((group) => group.enabled && (group.pre_tool_execution ?? []).some((rule) => matches(rule.matcher, tool)));
}

/**
 * `run` over a fresh tree in the temporary directory that `build` fills, given to the sandbox; the
 * tree and what the sandbox kept beside it (its host view, as root) are removed after.
 */
async function inThrowawayTree<T>(prefix: string, build: (root: string) => Promise<void>, run: (root: string) => Promise<T>): Promise<T> {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    await build(root);
    await giveToSandbox(root);
    return await run(root);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
    await removeHostView(root);
  }
}

export function caseName(testCase: HooksTestCase, index: number): string {
  return testCase.name ?? `#${index + 1} ${testCase.tool_call.name}`;
}

async function runCase(root: string, testCase: HooksTestCase, environmentId: string): Promise<HooksVerdict> {
  const options = sandboxHooks(root);
  if (testCase.event === "post_tool_execution") {
    const discovered = await discoverHooks(root);
    const payload = { tool_call: testCase.tool_call, environment_id: environmentId, ...(testCase.error !== undefined && { error: testCase.error }) };
    return runHooks(discovered.config ?? {}, "post_tool_execution", payload, options);
  }
  // The tool is not run: a stand-in result, failed when the case gives an `error` for the post payload.
  const result = await executeWithHooks(
    {
      root,
      environmentId,
      toolCall: testCase.tool_call,
      runTool: async () => (testCase.error !== undefined ? { error: testCase.error, failed: true } : { output: "", failed: false }),
    },
    options,
  );
  return { decision: result.decision, ...(result.reason !== undefined && { reason: result.reason }), hooks: result.hooks };
}

export function mismatchOf(testCase: HooksTestCase, verdict: HooksVerdict, strict: boolean): string | undefined {
  if (verdict.decision !== testCase.expect) return `expected ${testCase.expect}, got ${verdict.decision}`;
  if (testCase.reason !== undefined && !(verdict.reason ?? "").includes(testCase.reason)) {
    return `expected a reason containing ${JSON.stringify(testCase.reason)}, got ${JSON.stringify(verdict.reason ?? "")}`;
  }
  const failures = verdict.hooks.filter((hook) => hook.failure !== undefined);
  if (strict && failures.length > 0) return `${failures.length} hook(s) failed open (--strict)`;
  return undefined;
}

/** A throwaway tree: `.agents/hooks.json`, the scripts under `.agents/hooks-scripts/`, an empty `workspace/`. */
async function buildTree(root: string, hooks: HooksUnderTest): Promise<void> {
  const compiled = compiledForm(hooks.hooksText);
  await fs.mkdir(path.join(root, ".agents"), { recursive: true });
  await fs.mkdir(path.join(root, "workspace"));
  await fs.writeFile(path.join(root, HOOKS_FILE), compiled.hooksText);
  if (hooks.scriptsDir !== undefined) await fs.cp(hooks.scriptsDir, path.join(root, ".agents/hooks-scripts"), { recursive: true, dereference: true });
  const scripts = { ...hooks.scripts, ...compiled.scripts };
  if (Object.keys(scripts).length > 0) {
    await fs.mkdir(path.join(root, ".agents/hooks-scripts"), { recursive: true });
    for (const [name, content] of Object.entries(scripts)) await fs.writeFile(path.join(root, ".agents/hooks-scripts", name), content);
  }
}

/** What an environment would hold for `hooksText`: itself when it sets no `on_failure`, else its compiled form and the wrapper. */
function compiledForm(hooksText: string): { hooksText: string; scripts: Record<string, string> } {
  const config = parsedConfig(hooksText);
  if (config === undefined || !hasOnFailure(config)) return { hooksText, scripts: {} };
  const compiled = compileHooks(config);
  return { hooksText: serializeHooks(compiled.config), scripts: compiled.scripts };
}


let sandboxRuns: Promise<void> | undefined;

/** Runs `/bin/true` in a sandbox once per process; rejects with `SandboxUnavailableError` when it cannot. */
function assertSandboxRuns(): Promise<void> {
  sandboxRuns ??= inThrowawayTree(
    "genv-sandbox-probe-",
    async () => undefined,
    async (root) => void (await runInSandbox({ root, argv: ["/bin/true"], timeoutMs: 10_000 })),
  );
  return sandboxRuns;
}
