/**
 * `npm run bench policy-pack`: what the shipped policy pack adds to a preview, through the real engine
 * (dynamic provider) against `genv serve`: `pulumi preview --policy-pack <the installed pack>` of a
 * stack of N environments, each with examples/gitops's hooks inline and an allowlist inside the allowed
 * domains (so every rule runs to its end and finds only hooks-read-only's advisory), against the same
 * preview without the pack. The pack's cost is one analyzer process (node, @pulumi/policy) per preview
 * plus each rule on each resource. Goal: at most 1 s more per preview, whatever N.
 *
 * One warm-up each, then medians of 5, the two sides alternating. Runs from the repo after `npm run build`.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { startEngineBench } from "./_engine";
import { interleavedMedians, type Comparison } from "./_measure";

const RUNS = 5;
const ENVIRONMENTS = 20;
const GOAL_EXTRA_MS = 1000;

const PROGRAM = `"use strict";
const fs = require("node:fs");
const path = require("node:path");
const genv = require("pulumi-gemini-environments");
const read = (file) => fs.readFileSync(path.join(__dirname, file), "utf8");
for (let i = 0; i < ${ENVIRONMENTS}; i++) {
  new genv.Environment("agent-" + i, {
    sources: [
      { type: "inline", target: ".agents/hooks.json", content: read(".agents/hooks.json") },
      { type: "inline", target: ".agents/hooks-scripts/gate.py", content: read(".agents/hooks-scripts/gate.py") },
      { type: "inline", target: "workspace/README.md", content: "Scratch space " + i + ".\\n" },
    ],
    network: { allowlist: [{ domain: "api.github.com" }, { domain: "*.githubusercontent.com" }] },
  });
}
`;

export async function benchPolicyPack(log: (line: string) => void = console.log): Promise<Comparison[]> {
  const bench = await startEngineBench("policy-pack");
  try {
    const gitops = path.join(bench.repoRoot, "examples", "gitops");
    const read = (file: string) => fs.readFile(path.join(gitops, file), "utf8");
    const dir = await bench.workspace.addProgram("policy-pack", {
      "index.js": PROGRAM,
      ".agents/hooks.json": await read(".agents/hooks.json"),
      ".agents/hooks-scripts/gate.py": await read(".agents/hooks-scripts/gate.py"),
      "pack-config.json": await read("policy/pack-config.json"),
    });
    const pack = path.join(bench.workspace.root, "node_modules", "pulumi-gemini-environments", "policy-pack");
    const stack = await bench.stack(dir, "policy-pack");
    const withPack = () => stack.preview({ policyPacks: [pack], policyPackConfigs: [path.join(dir, "pack-config.json")] });
    const without = () => stack.preview();

    const warm = await withPack();
    await without();
    const advisories = (warm.stdout.match(/\[advisory\]\s+hooks-read-only/g) ?? []).length;
    if (advisories !== 2 * ENVIRONMENTS || /\[mandatory\]/.test(warm.stdout)) throw new Error(`unexpected policy findings:\n${warm.stdout}`);
    const [previewPack, previewPlain] = await interleavedMedians(RUNS, withPack, without);
    const extra = previewPack - previewPlain;
    log(`\npolicy pack on ${ENVIRONMENTS} environments (7 rules, ${advisories} advisory findings): +${extra.toFixed(0)} ms per preview (goal ≤ ${GOAL_EXTRA_MS})`);
    return [
      {
        name: `preview of ${ENVIRONMENTS} environments with the policy pack`,
        ours: previewPack,
        baselineName: "the same preview without it",
        baseline: previewPlain,
        target: Math.round(((previewPlain + GOAL_EXTRA_MS) / previewPlain) * 100) / 100,
        note: `${extra >= 0 ? "+" : ""}${extra.toFixed(0)} ms (goal ≤ ${GOAL_EXTRA_MS})`,
      },
    ];
  } finally {
    await bench.cleanup();
  }
}
