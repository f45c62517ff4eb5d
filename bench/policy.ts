/**
 * `npm run bench policy`: two costs of guardrails as code, through the real engine (dynamic
 * provider) against `genv serve`, on examples/gitops's hooks (.agents/hooks.json, gate.py):
 *
 * - **policy cases at preview**: `pulumi preview` of a `GuardedEnvironment` whose `HookBundle` has 10
 *   `tests` (examples/gitops/policy/cases.json and 6 more of the same kind; they run in the local
 *   sandbox, `GENV_POLICY_TESTS=require`) against the same preview without them. A preview of a new
 *   stack, as `ci/check.sh pr` runs it against a throwaway emulator. Goal: ≤ 50 ms per case.
 * - **a hook edit, in place vs replacement**: `pulumi up` after an edit of gate.py (content A/B by
 *   stack config, set untimed) with `updateStrategy: "in_place"` (uploads the file) against
 *   `"replace"` (a new environment, then the old one deleted), the environment also holding a
 *   workspace of 200 small files and 1 MiB (a file:// repository). Goal: in place no slower.
 *
 * One warm-up each, then medians of 5, the two sides alternating. Runs from the repo after `npm run build`.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import type { HooksTestCaseInput } from "../hooks/cases";
import { HookBundle } from "../provider/components/hook-bundle";
import { EnvironmentsClient } from "../client/client";
import { startEngineBench } from "./_engine";
import { execFileAsync, interleavedMedians, medianMs, type Comparison } from "./_measure";

const RUNS = 5;
const CASE_GOAL_MS = 50;
const WORKSPACE_FILES = 200;

/** Beyond examples/gitops's 4 cases: more of the same kind, 8 of the 10 through the gate. */
const MORE_CASES: HooksTestCaseInput[] = [
  { name: "rm -fr is blocked", tool_call: { name: "code_execution", args: { code: "rm -fr /tmp/build" } }, expect: "deny", reason: "security gate" },
  { name: "inside a pipeline", tool_call: { name: "code_execution", args: { code: "find . -name '*.pyc' | xargs rm -rf" } }, expect: "deny", reason: "security gate" },
  { name: "nested arguments", tool_call: { name: "code_execution", args: { code: "make clean", env: { EXTRA: ["rm -rf /"] } } }, expect: "deny" },
  { name: "rm -r without -f", tool_call: { name: "code_execution", args: { code: "rm -r /workspace/tmp" } }, expect: "allow" },
  { name: "git status", tool_call: { name: "code_execution", args: { code: "git status --short" } }, expect: "allow" },
  { name: "writes are not gated", tool_call: { name: "write_to_file", args: { path: "/workspace/notes.md", content: "rm -rf is blocked" } }, expect: "allow" },
];

/** examples/gitops's bundle, with the edit (`edit`), the cases (`cases`), the workspace and the strategy from the stack config. */
const PROGRAM = `"use strict";
const fs = require("node:fs");
const path = require("node:path");
const pulumi = require("@pulumi/pulumi");
const genv = require("pulumi-gemini-environments");
const config = new pulumi.Config();
const read = (file) => fs.readFileSync(path.join(__dirname, file), "utf8");
const hooks = new genv.HookBundle({
  hooks: JSON.parse(read(".agents/hooks.json")),
  scripts: { "gate.py": { content: read(".agents/hooks-scripts/gate.py") + "# edit " + (config.get("edit") ?? "A") + "\\n" } },
  tests: JSON.parse(read("policy/cases.json")).slice(0, config.getNumber("cases") ?? 0),
});
const workspace = config.get("workspace");
const env = new genv.GuardedEnvironment("agent", {
  hooks,
  network: genv.NetworkPolicy.disabled(),
  sources: workspace ? [{ type: "repository", source: workspace, target: "workspace" }] : [],
  updateStrategy: config.get("updateStrategy"),
  acknowledgedWarnings: ["inline-hooks-writable"],
});
exports.environmentId = env.environmentId;
`;

export async function benchPolicy(log: (line: string) => void = console.log): Promise<Comparison[]> {
  const bench = await startEngineBench("policy");
  try {
    const gitops = path.join(bench.repoRoot, "examples", "gitops");
    const read = (file: string) => fs.readFile(path.join(gitops, file), "utf8");
    const cases = [...(JSON.parse(await read("policy/cases.json")) as HooksTestCaseInput[]), ...MORE_CASES];
    const dir = await bench.workspace.addProgram("policy", {
      "index.js": PROGRAM,
      ".agents/hooks.json": await read(".agents/hooks.json"),
      ".agents/hooks-scripts/gate.py": await read(".agents/hooks-scripts/gate.py"),
      "policy/cases.json": JSON.stringify(cases, null, 2),
    });
    const env = { ...bench.env, GENV_POLICY_TESTS: "require" }; // a preview without a sandbox fails, not skips
    const stack = async (name: string, config: Record<string, string>) => {
      const created = await bench.stack(dir, name, env);
      await created.setAllConfig(Object.fromEntries(Object.entries(config).map(([key, value]) => [key, { value }])));
      return created;
    };

    // 1. Policy cases at preview.
    const withCases = await stack("cases", { cases: String(cases.length) });
    const without = await stack("no-cases", { cases: "0" });
    await withCases.preview();
    await without.preview();
    const [previewCases, previewPlain] = await interleavedMedians(RUNS, () => withCases.preview(), () => without.preview());
    const perCase = (previewCases - previewPlain) / cases.length;
    // The cases alone, as the program runs them: at preview they overlap the engine's own work.
    const bundle = new HookBundle({ hooks: JSON.parse(await read(".agents/hooks.json")), scripts: { "gate.py": { content: await read(".agents/hooks-scripts/gate.py") } }, tests: cases });
    await bundle.runTests();
    const casesAlone = await medianMs(RUNS, () => bundle.runTests());

    // 2. A hook edit, in place vs replacement.
    const workspace = `file://${await workspaceRepository(path.join(bench.scratch, "workspace-repo"))}`;
    const inPlace = await stack("in-place", { workspace, updateStrategy: "in_place", edit: "A" });
    const replace = await stack("replace", { workspace, updateStrategy: "replace", edit: "A" });
    const ids = { inPlace: new Set<string>(), replace: new Set<string>() };
    const up = async (target: Stack, side: keyof typeof ids, expected: "update" | "replace") => {
      const result = await target.up();
      const changes = (result.summary.resourceChanges ?? {}) as Record<string, number>;
      if (!changes[expected]) throw new Error(`${side}: expected a ${expected}, got ${JSON.stringify(changes)}`);
      ids[side].add(result.outputs.environmentId.value as string);
    };
    const edits = new Map<Stack, string>([[inPlace, "A"], [replace, "A"]]);
    const flip = async (target: Stack) => {
      edits.set(target, edits.get(target) === "A" ? "B" : "A");
      await target.setConfig("edit", { value: edits.get(target)! });
    };
    await inPlace.up(); // create both
    await replace.up();
    const upInPlace = () => up(inPlace, "inPlace", "update");
    const upReplace = () => up(replace, "replace", "replace");
    await flip(inPlace); // warm-up: one edit each
    await upInPlace();
    await flip(replace);
    await upReplace();
    const [editInPlace, editReplace] = await interleavedMedians(RUNS, upInPlace, upReplace, (side) => flip(side === "ours" ? inPlace : replace));

    const client = new EnvironmentsClient({ apiKey: bench.server.key, baseUrl: bench.server.url, env: {} });
    const last = await client.get([...ids.replace].pop()!).finally(() => client.close());
    log(`\n${cases.length} policy cases (examples/gitops's ${cases.length - MORE_CASES.length} and ${MORE_CASES.length} more), sandbox required: +${perCase.toFixed(1)} ms per case at preview (goal ≤ ${CASE_GOAL_MS});`);
    log(`  alone (HookBundle.runTests in this process, median of ${RUNS}) ${casesAlone.toFixed(0)} ms, ${(casesAlone / cases.length).toFixed(1)} ms per case: the program runs them while the engine works`);
    log(`hook edits (gate.py A/B): in place kept 1 environment id over ${RUNS + 1} ups, replacement made ${ids.replace.size}, each of ${last.file_count} files, ${last.size_bytes} bytes`);
    if (ids.inPlace.size !== 1 || ids.replace.size !== RUNS + 1) throw new Error(`unexpected environment ids: ${JSON.stringify({ inPlace: [...ids.inPlace], replace: [...ids.replace] })}`);
    return [
      {
        name: `preview with ${cases.length} policy cases`,
        ours: previewCases,
        baselineName: "the same preview without cases",
        baseline: previewPlain,
        target: Math.round(((previewPlain + cases.length * CASE_GOAL_MS) / previewPlain) * 100) / 100,
        note: `${perCase >= 0 ? "+" : ""}${perCase.toFixed(1)} ms per case (goal ≤ ${CASE_GOAL_MS})`,
      },
      {
        name: "up after a hook edit, in place",
        ours: editInPlace,
        baselineName: "the same up with updateStrategy replace",
        baseline: editReplace,
        target: 1,
        note: `${(editInPlace - editReplace).toFixed(0)} ms`,
      },
    ];
  } finally {
    await bench.cleanup();
  }
}

/** A git repository of `WORKSPACE_FILES` small text files and one 1 MiB binary file, committed; returns its path. */
async function workspaceRepository(dir: string): Promise<string> {
  await fs.mkdir(path.join(dir, "src"), { recursive: true });
  for (let i = 0; i < WORKSPACE_FILES; i++) await fs.writeFile(path.join(dir, "src", `module-${i}.py`), `# module ${i}\n${"x = 1\n".repeat(40)}`);
  await fs.writeFile(path.join(dir, "data.bin"), randomBytes(1024 * 1024));
  const git = (...args: string[]) => execFileAsync("git", ["-C", dir, "-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args]);
  await git("init", "--quiet");
  await git("add", ".");
  await git("commit", "--quiet", "-m", "workspace");
  return dir;
}
