/**
 * `genv serve` holding 10,000 environments against the same server holding 20: what a long-lived
 * emulator (a team's shared one, a CI runner's) pays for what it holds. Each side is one data dir
 * on disk, served by its own process as users run it:
 *
 * - **list**: one page of 20 (`page_size=20`), the same work at both sizes, so that only the size of
 *   what is held differs;
 * - **get** of the newest environment;
 * - **restart**: spawn to the URL on stdout, the start-up's sweep of the trees and the database
 *   included (the goal: within 1 s at 10,000 whatever the start at 20).
 *
 * The environments are made through the API (one inline file each, 8 requests at a time). Runs from
 * the repo after `npm run build`.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { EnvironmentsClient } from "../client/client";
import { interleavedMedians, median, startServeProcess, type Comparison } from "./_measure";

const SMALL = 20;
const LARGE = 10_000;
const PARALLEL_CREATES = 8;
const REQUEST_RUNS = 21;
const WARM_UP_RUNS = 50;
const RESTART_RUNS = 5;
const PAGE_SIZE = 20;

interface HeldServer {
  dataDir: string;
  server: Awaited<ReturnType<typeof startServeProcess>>;
  client: EnvironmentsClient;
  newest: string;
}

export async function benchEmulatorScale(log: (line: string) => void = console.log): Promise<Comparison[]> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "genv-bench-scale-"));
  const held: HeldServer[] = [];
  try {
    for (const [name, count] of [["small", SMALL], ["large", LARGE]] as const) {
      const dataDir = path.join(scratch, name);
      const started = performance.now();
      held.push(await serverHolding(dataDir, count));
      log(`emulator-scale: ${count} environments made in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    const [small, large] = held;
    const listPage = (side: HeldServer) => async () => {
      const page = await side.client.list({ pageSize: PAGE_SIZE });
      const listed = page.environments?.length ?? 0;
      if (listed !== PAGE_SIZE) throw new Error(`list: ${listed} environments in a page of ${PAGE_SIZE}`);
    };
    const getNewest = (side: HeldServer) => () => side.client.get(side.newest);
    // Untimed first: V8 optimises the request path, the database's pages come into the cache (right
    // after 10,000 creates, a get took twice its time at 20 for the first few dozen).
    for (let i = 0; i < WARM_UP_RUNS; i++) for (const side of held) await Promise.all([listPage(side)(), getNewest(side)()]);
    const [listLarge, listSmall] = await interleavedMedians(REQUEST_RUNS, listPage(large), listPage(small));
    const [getLarge, getSmall] = await interleavedMedians(REQUEST_RUNS, getNewest(large), getNewest(small));

    // Restarts, alternating: each stops the side's server and starts another on its data dir.
    const restarts: Record<"small" | "large", number[]> = { small: [], large: [] };
    for (let run = 0; run < RESTART_RUNS; run++) {
      for (const [index, name] of (["small", "large"] as const).entries()) {
        const side = held[index];
        await side.client.close();
        await side.server.stop();
        const started = performance.now();
        side.server = await startServeProcess(["--data-dir", side.dataDir]);
        restarts[name].push(performance.now() - started);
        side.client = clientOf(side.server);
      }
    }
    // The restarted servers still hold what they held.
    const after = await large.client.get(large.newest);
    if (after.id !== large.newest) throw new Error(`after a restart, get ${large.newest} answered ${after.id}`);
    const restartLarge = median(restarts.large);
    return [
      { name: `list, a page of ${PAGE_SIZE}, holding ${LARGE.toLocaleString("en")}`, ours: listLarge, baselineName: `holding ${SMALL}`, baseline: listSmall, target: 1.2 },
      { name: `get, holding ${LARGE.toLocaleString("en")}`, ours: getLarge, baselineName: `holding ${SMALL}`, baseline: getSmall, target: 1.2 },
      {
        name: `restart (spawn to URL), holding ${LARGE.toLocaleString("en")}`,
        ours: restartLarge,
        baselineName: `holding ${SMALL}`,
        baseline: median(restarts.small),
        target: Math.round((1000 / median(restarts.small)) * 100) / 100,
        note: `the goal is 1 s: ${restartLarge < 1000 ? "met" : "missed"} (runs: ${restarts.large.map((ms) => Math.round(ms)).join(", ")} ms)`,
      },
    ];
  } finally {
    for (const side of held) {
      await side.client.close();
      await side.server.stop();
    }
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

function clientOf(server: Awaited<ReturnType<typeof startServeProcess>>): EnvironmentsClient {
  return new EnvironmentsClient({ apiKey: server.key, baseUrl: server.url, timeoutMs: 300_000 });
}

/** A server on a new data dir holding `count` environments of one inline file each. */
async function serverHolding(dataDir: string, count: number): Promise<HeldServer> {
  const server = await startServeProcess(["--data-dir", dataDir]);
  const client = clientOf(server);
  let next = 0;
  let newest = "";
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const { id } = await client.create({ sources: [{ type: "inline", target: "task.txt", content: `task ${index}\n` }] });
      if (index === count - 1) newest = id;
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_CREATES }, worker));
  return { dataDir, server, client, newest };
}
