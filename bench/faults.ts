/**
 * `npm run bench faults`: the real Pulumi engine on examples/fleet (50 environments) against
 * `genv serve --faults rate=0.2` (every kind, every route, seeded), `pulumi up` again until it
 * succeeds and a preview shows no change, then `pulumi destroy` again until it succeeds. Counted on
 * the emulator's own records (read with a plain client, which retries its reads): environments
 * created, orphans (on the server, not in the state), duplicates (two with the same spec), runs to
 * converge, and what destroy left behind. Goal: 0 orphans, 0 duplicates, at most 2 runs each.
 */
import { EnvironmentsClient } from "../client";
import { startEngineBench } from "./_engine";
import type { Comparison } from "./_measure";

const COUNT = 50;
const RATE = 0.2;
const MAX_RUNS = 5;

export async function benchFaults(log: (line: string) => void = console.log, seed = Number(process.env.GENV_FAULT_SEED ?? 7)): Promise<Comparison[]> {
  // `slow` answers 2 s late: slower than a healthy answer, within a client's timeout.
  const bench = await startEngineBench("faults", ["--faults", `rate=${RATE},seed=${seed},retry-after=0,delay=2s`]);
  const client = new EnvironmentsClient({ apiKey: bench.server.key, baseUrl: bench.server.url, env: {}, retry: { maxAttempts: 10, initialDelayMs: 10 } });
  try {
    const stack = await bench.stack(await bench.workspace.addExample("fleet"), "faults");
    await stack.setConfig("count", { value: String(COUNT) });

    const until = async (step: () => Promise<unknown>): Promise<{ runs: number; failures: string[] }> => {
      const failures: string[] = [];
      for (let run = 1; run <= MAX_RUNS; run++) {
        try {
          await step();
          return { runs: run, failures };
        } catch (error) {
          failures.push(firstLine(error));
        }
      }
      return { runs: Number.POSITIVE_INFINITY, failures };
    };
    const started = performance.now();
    const up = await until(async () => {
      await stack.up();
      const preview = await stack.preview();
      const changed = Object.entries(preview.changeSummary).filter(([kind, n]) => kind !== "same" && n > 0);
      if (changed.length > 0) throw new Error(`preview after up still shows ${JSON.stringify(Object.fromEntries(changed))}`);
    });
    const upMs = performance.now() - started;

    const inState = new Set(
      ((await stack.exportStack()).deployment.resources as Array<{ type: string; id?: string }>)
        .filter((resource) => resource.type.endsWith(":Environment") && resource.id)
        .map((resource) => resource.id!),
    );
    const onServer = [];
    for await (const environment of client.listAll()) onServer.push(environment);
    const orphans = onServer.filter((environment) => !inState.has(environment.id)).length;
    const specs = onServer.map((environment) => JSON.stringify([environment.sources, environment.network]));
    const duplicates = specs.length - new Set(specs).size;

    const destroyStarted = performance.now();
    const destroy = await until(() => stack.destroy());
    const destroyMs = performance.now() - destroyStarted;
    let left = 0;
    for await (const _environment of client.listAll()) left += 1;

    log(`\nfleet of ${COUNT} under --faults rate=${RATE},seed=${seed} (every kind, every route; GENV_FAULT_SEED=N for another seed)`);
    log(`  up: ${fmtRuns(up.runs)} to converge in ${upMs.toFixed(0)} ms; ${onServer.length} environments on the server, ${inState.size} in the state; orphans ${orphans}, duplicates ${duplicates}`);
    log(`  destroy: ${fmtRuns(destroy.runs)} in ${destroyMs.toFixed(0)} ms; left on the server ${left}`);
    for (const failure of [...up.failures, ...destroy.failures]) log(`  a run that failed: ${failure}`);
    return [
      { name: `runs of up to converge (goal ≤ 2), orphans ${orphans}, duplicates ${duplicates}`, ours: up.runs, baselineName: "goal", baseline: 2, target: 1 },
      { name: `runs of destroy (goal ≤ 2), left behind ${left}`, ours: destroy.runs, baselineName: "goal", baseline: 2, target: 1 },
    ];
  } finally {
    await client.close();
    await bench.cleanup();
  }
}

function fmtRuns(runs: number): string {
  return Number.isFinite(runs) ? `${runs} run${runs === 1 ? "" : "s"}` : `no convergence in ${MAX_RUNS} runs`;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const interesting = text.split("\n").find((line) => /error|failed|refused/i.test(line)) ?? text.split("\n")[0];
  return interesting.trim().slice(0, 300);
}
