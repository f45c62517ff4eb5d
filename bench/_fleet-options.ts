/**
 * What a user can do about a large stack, measured on the plugin fleet of `npm run bench fleet -- --sizes
 * …,1000 --user-options` at its largest size, each against the same fleet run as it is by default:
 *
 * - `--parallel` above the engine's default (`4 × GOMAXPROCS`);
 * - `PULUMI_SKIP_CHECKPOINTS=true`: the engine writes the state once, at the end, instead of after every
 *   step (Pulumi 3.248 has no flag for it; pkg/backend/snapshot.go, `unsafeServiceLoop`);
 * - `--target` of the one environment a change touches, against an `up` of the whole stack;
 * - the fleet split into 4 stacks of a quarter each, run one after another and all at once.
 *
 * Each `up` and `destroy` timed in wall and CPU (of the `pulumi` commands and all they ran).
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { median, wallAndCpuMs, type Comparison, type WallAndCpu } from "./_measure";

/** `--parallel` values beyond the default. */
const MORE_PARALLEL = [32, 64];
/** How many stacks the fleet is split into. */
const PARTS = 4;

export interface FleetOptionsBench {
  /** The fleet's size. */
  size: number;
  /** The engine's default `--parallel` here. */
  defaultParallel: number;
  /**
   * Stack `name` of the plugin fleet's program with `env` added to its environment; its config `count`
   * is the fleet's size, `editFirst` an edit of the first environment's task file (default none).
   */
  stack(name: string, env?: Record<string, string>): Promise<Stack>;
}

export async function measureFleetOptions(bench: FleetOptionsBench, rounds: number, log: (line: string) => void): Promise<Comparison[]> {
  const { size, defaultParallel } = bench;
  const measures = new Map<string, { wall: number[]; cpu: number[] }>();
  const record = (name: string, measured: WallAndCpu<unknown>) => {
    const entry = measures.get(name) ?? { wall: [], cpu: [] };
    entry.wall.push(measured.ms);
    entry.cpu.push(measured.cpuMs);
    measures.set(name, entry);
  };
  const sized = async (stack: Stack, count: number) => {
    await stack.setConfig("count", { value: String(count) });
    await stack.setConfig("editFirst", { value: "" });
    return stack;
  };
  const upOf = (count: number) => async (up: Promise<{ outputs: Record<string, { value: unknown }> }>) => {
    const made = ((await up).outputs.ids.value as string[]).length;
    if (made !== count) throw new Error(`pulumi up made ${made} resources of ${count}`);
  };

  const whole = await sized(await bench.stack("options"), size);
  const skipping = await bench.stack("options", { PULUMI_SKIP_CHECKPOINTS: "true" });
  // Quarters of the fleet (their sizes differ by one at most).
  const partSizes = Array.from({ length: PARTS }, (_, i) => Math.floor((size * (i + 1)) / PARTS) - Math.floor((size * i) / PARTS));
  const parts = await Promise.all(partSizes.map(async (count, i) => sized(await bench.stack(`part-${i}`), count)));
  const firstUrn = async () => (await whole.exportStack()).deployment.resources.find((resource: { urn: string }) => resource.urn.endsWith("::agent-0")).urn as string;

  for (let round = 0; round < rounds; round++) {
    record("up", await wallAndCpuMs(() => upOf(size)(whole.up())));
    // One environment's task file edited: an update in place, through the whole stack or --target.
    await whole.setConfig("editFirst", { value: ` edit ${round}a` });
    record("one change, whole stack", await wallAndCpuMs(() => whole.up()));
    await whole.setConfig("editFirst", { value: ` edit ${round}b` });
    const urn = await firstUrn();
    const targeted = await wallAndCpuMs(() => whole.up({ target: [urn] }));
    if (targeted.result.summary.resourceChanges?.update !== 1) throw new Error(`pulumi up --target ${urn}: ${JSON.stringify(targeted.result.summary.resourceChanges)}, not 1 update`);
    record("one change, --target", targeted);
    record("destroy", await wallAndCpuMs(() => whole.destroy()));
    await whole.setConfig("editFirst", { value: "" });

    for (const parallel of MORE_PARALLEL) {
      record(`up, --parallel ${parallel}`, await wallAndCpuMs(() => upOf(size)(whole.up({ parallel }))));
      record(`destroy, --parallel ${parallel}`, await wallAndCpuMs(() => whole.destroy({ parallel })));
    }

    record("up, PULUMI_SKIP_CHECKPOINTS", await wallAndCpuMs(() => upOf(size)(skipping.up())));
    const kept = (await whole.exportStack()).deployment.resources.filter((resource: { type: string }) => resource.type.endsWith(":Environment")).length;
    if (kept !== size) throw new Error(`PULUMI_SKIP_CHECKPOINTS: the state holds ${kept} environments of ${size}`);
    record("destroy, PULUMI_SKIP_CHECKPOINTS", await wallAndCpuMs(() => skipping.destroy()));

    record(`up, ${PARTS} stacks one after another`, await wallAndCpuMs(async () => { for (const [i, part] of parts.entries()) await upOf(partSizes[i])(part.up()); }));
    record(`destroy, ${PARTS} stacks one after another`, await wallAndCpuMs(async () => { for (const part of parts) await part.destroy(); }));
    record(`up, ${PARTS} stacks at once`, await wallAndCpuMs(() => Promise.all(parts.map((part, i) => upOf(partSizes[i])(part.up())))));
    record(`destroy, ${PARTS} stacks at once`, await wallAndCpuMs(() => Promise.all(parts.map((part) => part.destroy()))));
  }

  const m = (name: string, kind: "wall" | "cpu") => median(measures.get(name)![kind]);
  const row = (name: string, baseline: string): Comparison => ({
    name: `${name} of ${size}`,
    ours: m(name, "wall"),
    baselineName: baseline,
    baseline: m(baseline, "wall"),
    target: 1,
    note: `CPU ${m(name, "cpu").toFixed(0)} vs ${m(baseline, "cpu").toFixed(0)} ms (${(m(name, "cpu") / m(baseline, "cpu")).toFixed(2)}x)`,
  });
  log(`\nwhat a user can do, the plugin fleet of ${size} (the default --parallel here is ${defaultParallel}; ${PARTS} stacks of ${partSizes.join("/")}; median of ${rounds} rounds):`);
  for (const [name, { wall, cpu }] of measures) log(`  ${name.padEnd(40)}${median(wall).toFixed(0).padStart(8)} ms wall ${median(cpu).toFixed(0).padStart(8)} ms CPU`);
  return [
    ...MORE_PARALLEL.flatMap((parallel) => [row(`up, --parallel ${parallel}`, "up"), row(`destroy, --parallel ${parallel}`, "destroy")]),
    row("up, PULUMI_SKIP_CHECKPOINTS", "up"),
    row("destroy, PULUMI_SKIP_CHECKPOINTS", "destroy"),
    row("one change, --target", "one change, whole stack"),
    row(`up, ${PARTS} stacks one after another`, "up"),
    row(`destroy, ${PARTS} stacks one after another`, "destroy"),
    row(`up, ${PARTS} stacks at once`, "up"),
    row(`destroy, ${PARTS} stacks at once`, "destroy"),
  ];
}
