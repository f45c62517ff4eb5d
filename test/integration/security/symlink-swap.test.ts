/**
 * Finding 2 — symlink-swap races against the host-side routes.
 *
 * An agent makes `/workspace/r/b` a symlink whose text is an absolute HOST path (meaningless inside the
 * sandbox, but the emulator's host-side code follows it), then exchanges `/workspace/r/a` and
 * `/workspace/r/b` with renameat2(RENAME_EXCHANGE) in a loop. Host-side code that checks a path and then
 * uses it by name (realpath then open, lstat then link, lstat then readdir) can be made to act on the
 * host directory. While the swapper runs, each test hammers one route for a few seconds and counts
 * wins (host data read, listed, written or deleted), which must be 0, and 500 answers, which must be 0
 * too. Routes: download, files listing, resumable upload, `from_environment` fork, DeleteEnvironment,
 * and a download reaching ANOTHER tenant's tree.
 *
 * Each test also checks that the race really ran (swapper's swap count, number of tries), so it cannot
 * pass vacuously.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { OTHER_KEY } from "../../support/emulator";
import {
  createEnvironment,
  fetchText,
  hostDir,
  inlineFiles,
  race,
  startAttackEmulator,
  startHostSwapper,
  startSwapper,
  upload,
  waitFor,
  type AttackEmulator,
  type RaceResult,
} from "./_attack";

const RACE_SECONDS = 3;
const SWAPPER_SECONDS = 40; // upper bound; the tests stop it as soon as their race is over
const MIN_TRIES = 50;
const MIN_SWAPS = 1000;
// A route that reset connections or answered only errors would "lose" every race: some answers must
// have served the tenant its own data, and few tries may end at the transport (a reset, or a 10 s
// timeout on a loaded machine).
const MIN_OWN_ANSWERS = 10;
const MAX_TRANSPORT_ERROR_SHARE = 0.05;

// Same length, so that a download switched mid-way is not cut by a Content-Length mismatch.
const HOST_MARKER = "HOST-MARKER-5f1c9a0e77d2";
const TENANT_COPY = "tenant-copy-000000000000";

let emulator: AttackEmulator;

beforeAll(async () => {
  emulator = await startAttackEmulator();
});

/** A host directory the swapper's link points at: the marker file and a name only it has. */
function makeHostTarget(name: string): string {
  const dir = hostDir(name);
  writeFileSync(path.join(dir, "host-secret.txt"), HOST_MARKER);
  writeFileSync(path.join(dir, "host-only.txt"), HOST_MARKER);
  return realpathSync(dir);
}

const tenantFiles = () =>
  inlineFiles({
    "workspace/r/a/secret.txt": "tenant secret",
    "workspace/r/a/host-secret.txt": TENANT_COPY,
  });

/**
 * Fails with readable counts unless the race ran for real (tries, swaps, answers with the tenant's own
 * data, few transport errors), then unless the attacker never won nor got a 500.
 */
function expectRaceLost(result: RaceResult, swaps: number, minTries = MIN_TRIES): void {
  const { route, tries, wins, status500, statuses, transportErrors, ownAnswers } = result;
  const raced = tries >= minTries && swaps >= MIN_SWAPS && ownAnswers >= MIN_OWN_ANSWERS && transportErrors <= tries * MAX_TRANSPORT_ERROR_SHARE;
  expect({ route, raced, tries, swaps, ownAnswers, transportErrors, statuses }).toEqual({ route, raced: true, tries, swaps, ownAnswers, transportErrors, statuses });
  expect({ route, wins, status500, tries, swaps, statuses, transportErrors }).toEqual({
    route,
    wins: 0,
    status500: 0,
    tries,
    swaps,
    statuses,
    transportErrors,
  });
}

test("download (alt=media) never serves the host file the link points at", async () => {
  const target = makeHostTarget("dl");
  const id = await createEnvironment(emulator, { sources: tenantFiles() });
  const swapper = await startSwapper(emulator, id, target, SWAPPER_SECONDS);
  const result = await race("GET files/workspace/r/a/host-secret.txt?alt=media", { seconds: RACE_SECONDS, maxTries: 20_000 }, async () => {
    const { status, text } = await fetchText(emulator, `/v1beta/environments/${id}/files/workspace/r/a/host-secret.txt?alt=media`);
    return { status, win: text.includes(HOST_MARKER), own: status === 200 && text === TENANT_COPY };
  });
  const { swaps } = await swapper.stop();
  expectRaceLost(result, swaps);
}, 90_000);

test("files listing never lists the host directory", async () => {
  const target = makeHostTarget("ls");
  const id = await createEnvironment(emulator, { sources: tenantFiles() });
  const swapper = await startSwapper(emulator, id, target, SWAPPER_SECONDS);
  const result = await race("GET files/workspace/r/a", { seconds: RACE_SECONDS, maxTries: 20_000 }, async () => {
    const { status, text } = await fetchText(emulator, `/v1beta/environments/${id}/files/workspace/r/a`);
    const names: string[] = status === 200 ? JSON.parse(text).files.map((f: { name: string }) => f.name) : [];
    return { status, win: names.includes("host-only.txt"), own: names.includes("secret.txt") };
  });
  const { swaps } = await swapper.stop();
  expectRaceLost(result, swaps);
}, 90_000);

// An upload's finalize waits for a running tool call on the same environment (they are serialised,
// so that a call's undo of growth past the limits never takes an upload's file for its own): an agent's
// swapper, which runs in a tool call, cannot race a finalize. The first test proves that serialisation
// and what the queued finalizes did once it ended; the second races the finalizes for real against the
// same swap made by a host process, outside any tool call, for the placement's own confinement.
test("resumable upload: finalizes wait for the swapper's tool call, then land in the tenant's tree, none in the host directory", async () => {
  const target = makeHostTarget("up-queued");
  const id = await createEnvironment(emulator, { sources: tenantFiles() });
  const swapper = await startSwapper(emulator, id, target, SWAPPER_SECONDS);
  const contentOf = (n: number) => Buffer.from(`upload ${String(n).padStart(4, "0")}`);
  const QUEUED = 8;
  const answered: string[] = []; // in the order the answers arrived
  const uploads = Array.from({ length: QUEUED }, (_, n) =>
    upload(emulator, id, `workspace/r/a/x-${n}.txt`, contentOf(n), undefined, 120_000).then((answer) => {
      answered.push(`upload ${n}`);
      return answer;
    }),
  );
  // Every upload's bytes are staged (its finalize is next, in the tree's queue) while the swapper runs.
  const uploadsDir = path.join(emulator.dataDir, "tmp", "uploads");
  const staged = () => (existsSync(uploadsDir) ? readdirSync(uploadsDir).filter((name) => statSync(path.join(uploadsDir, name)).size === contentOf(0).length).length : 0);
  expect(await waitFor(() => staged() === QUEUED || answered.length > 0, 30_000)).toBe(true);
  // Not a timing assertion: a second in which an unserialised finalize would have answered.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const answeredWhileSwapping = [...answered];
  const { swaps } = await swapper.stop();
  answered.push("swapper's tool call");
  const results = await Promise.all(uploads);
  expect({ swaps: swaps >= MIN_SWAPS, answeredWhileSwapping, statuses: results.map((r) => r.status) }).toEqual({
    swaps: true,
    answeredWhileSwapping: [],
    statuses: Array(QUEUED).fill(200),
  });
  expect(answered[0]).toBe("swapper's tool call");
  // Every queued finalize has run: each file is in the tenant's tree, none in the host directory.
  const tenantDir = path.join(emulator.dataDir, "trees", id, "workspace", "r", "a");
  expect(Array.from({ length: QUEUED }, (_, n) => readFileSync(path.join(tenantDir, `x-${n}.txt`), "utf8"))).toEqual(
    Array.from({ length: QUEUED }, (_, n) => contentOf(n).toString()),
  );
  expect(readdirSync(target).sort()).toEqual(["host-only.txt", "host-secret.txt"]);
}, 180_000);

test("resumable upload, raced by a swap outside any tool call, never creates a file in the host directory", async () => {
  const target = makeHostTarget("up");
  const id = await createEnvironment(emulator, { sources: tenantFiles() });
  const tree = path.join(emulator.dataDir, "trees", id);
  const swapper = await startHostSwapper(tree, target, SWAPPER_SECONDS);
  const landed: number[] = [];
  const result = await race("upload workspace/r/a/x-N.txt (host swapper)", { seconds: RACE_SECONDS, maxTries: 10_000 }, async (n) => {
    const { status } = await upload(emulator, id, `workspace/r/a/x-${n}.txt`, Buffer.from(`upload ${n}`));
    if (status === 200) landed.push(n);
    return { status, win: existsSync(path.join(target, `x-${n}.txt`)), own: status === 200 };
  });
  const { swaps } = await swapper.stop();
  const landedOnHost = readdirSync(target).filter((name) => name.startsWith("x-")).length;
  expectRaceLost({ ...result, wins: Math.max(result.wins, landedOnHost) }, swaps);
  // What was accepted is the tenant's: each in r/a (the swapper left `a` the directory), as uploaded.
  const tenantDir = path.join(tree, "workspace", "r", "a");
  const misplaced = landed.filter((n) => !existsSync(path.join(tenantDir, `x-${n}.txt`)) || readFileSync(path.join(tenantDir, `x-${n}.txt`), "utf8") !== `upload ${n}`);
  expect({ accepted: landed.length, misplaced }).toEqual({ accepted: landed.length, misplaced: [] });
}, 90_000);

test("from_environment never copies the host directory into the fork", async () => {
  const target = makeHostTarget("fork");
  const id = await createEnvironment(emulator, { sources: tenantFiles() });
  const swapper = await startSwapper(emulator, id, target, SWAPPER_SECONDS);
  const result = await race("POST environments {from_environment}", { seconds: RACE_SECONDS + 1, maxTries: 5_000 }, async () => {
    const created = await fetchText(emulator, "/v1beta/environments", { method: "POST", body: JSON.stringify({ from_environment: id }) });
    if (created.status !== 200) return { status: created.status, win: false, own: false };
    const fork = JSON.parse(created.text).id as string;
    const listing = await fetchText(emulator, `/v1beta/environments/${fork}/files?recursive=true`);
    const paths: string[] = listing.status === 200 ? JSON.parse(listing.text).files.map((f: { path: string }) => f.path) : [];
    let win = paths.some((p) => p.endsWith("/host-only.txt"));
    for (const candidate of paths.filter((p) => p.endsWith("/host-secret.txt"))) {
      const file = await fetchText(emulator, `/v1beta/environments/${fork}/files/${candidate}?alt=media`);
      if (file.text.includes(HOST_MARKER)) win = true;
    }
    await fetchText(emulator, `/v1beta/environments/${fork}`, { method: "DELETE" });
    return { status: Math.max(created.status, listing.status), win, own: paths.includes("workspace/r/a/secret.txt") };
  });
  const { swaps } = await swapper.stop();
  expectRaceLost(result, swaps);
}, 90_000);

test("DeleteEnvironment never deletes files of the host directory", async () => {
  const target = hostDir("del");
  const markers = Array.from({ length: 20 }, (_, i) => `marker-${String(i).padStart(2, "0")}.txt`);
  const refill = () => {
    for (const name of markers) if (!existsSync(path.join(target, name))) writeFileSync(path.join(target, name), HOST_MARKER);
  };
  const tenant = inlineFiles(Object.fromEntries(markers.map((name) => [`workspace/r/a/${name}`, TENANT_COPY])));
  const result: RaceResult = { route: "DELETE environments/{id} while swapping", tries: 0, wins: 0, status500: 0, transportErrors: 0, ownAnswers: 0, statuses: {} };
  let swapsSeen = 0;
  const deadline = Date.now() + 15_000;
  for (let i = 0; i < 10 && Date.now() < deadline; i++) {
    refill();
    const id = await createEnvironment(emulator, { sources: tenant });
    const swapper = await startSwapper(emulator, id, realpathSync(target), 2);
    // The tool call's answer (with the swap count) is lost with the environment: watch the swaps from
    // the host instead, until r/a was seen as the link a few times.
    const a = path.join(emulator.dataDir, "trees", id, "workspace", "r", "a");
    for (let seen = 0, polls = 0; seen < 3 && polls < 400; polls++) {
      if (lstatSync(a, { throwIfNoEntry: false })?.isSymbolicLink()) {
        seen += 1;
        swapsSeen += 1;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    result.tries += 1;
    try {
      const { status } = await fetchText(emulator, `/v1beta/environments/${id}`, { method: "DELETE" });
      result.statuses[status] = (result.statuses[status] ?? 0) + 1;
      if (status >= 500) result.status500 += 1;
    } catch {
      result.transportErrors += 1;
    }
    await swapper.stop();
    // Files of the host directory the delete took with it.
    result.wins += markers.filter((name) => !existsSync(path.join(target, name))).length;
  }
  expect({ route: result.route, raced: result.tries >= 5 && swapsSeen >= result.tries, tries: result.tries, swapsSeen }).toEqual({
    route: result.route,
    raced: true,
    tries: result.tries,
    swapsSeen,
  });
  const { route, tries, wins, status500, statuses } = result;
  expect({ route, hostFilesDeleted: wins, status500, tries, swapsSeen, statuses }).toEqual({
    route,
    hostFilesDeleted: 0,
    status500: 0,
    tries,
    swapsSeen,
    statuses,
  });
}, 120_000);

test("cross-tenant: a link to another key's tree never serves that tenant's secret", async () => {
  const OTHER_SECRET = "OTHER-TENANT-SECRET-9d41";
  const OWN_SECRET = "own-tenant-secret-000000";
  const victim = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/data/secret.txt": OTHER_SECRET }) }, OTHER_KEY);
  const victimDir = path.join(realpathSync(emulator.dataDir), "trees", victim, "workspace", "data");
  expect(await waitFor(() => existsSync(path.join(victimDir, "secret.txt")), 1000)).toBe(true);

  const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/r/a/secret.txt": OWN_SECRET }) });
  const swapper = await startSwapper(emulator, id, victimDir, SWAPPER_SECONDS);
  const result = await race("GET files/workspace/r/a/secret.txt?alt=media (link to another tenant)", { seconds: RACE_SECONDS, maxTries: 20_000 }, async () => {
    const { status, text } = await fetchText(emulator, `/v1beta/environments/${id}/files/workspace/r/a/secret.txt?alt=media`);
    return { status, win: text.includes(OTHER_SECRET), own: status === 200 && text === OWN_SECRET };
  });
  const { swaps } = await swapper.stop();
  expectRaceLost(result, swaps);
}, 90_000);
