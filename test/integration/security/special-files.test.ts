/**
 * Finding 3 — special files an agent creates in its tree (FIFO, Unix socket) and the host-side routes.
 *
 * - A download of a FIFO opens it on the host and blocks a libuv thread until a writer comes; four of
 *   them occupy the whole thread pool, and then every file-system operation of the emulator waits:
 *   ANOTHER tenant's CreateEnvironment (and ListEnvironments) must still answer, and the downloads be refused.
 * - A download of a Unix socket must be a clean 4xx (not a 200 header followed by a reset).
 * - A fork (`from_environment`) of an environment holding a FIFO must finish and not answer 5xx: a
 *   4xx refusal, or a success whose tree does not hold the FIFO.
 */
import { closeSync, constants, lstatSync, openSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { OTHER_KEY } from "../../support/emulator";
import { bash, createEnvironment, executeTool, inlineFiles, python, startAttackEmulator, waitFor, within, type AttackEmulator } from "./_attack";

let emulator: AttackEmulator;

beforeAll(async () => {
  emulator = await startAttackEmulator();
});

/** What a client sees of a request bounded to `timeoutMs`: the status, or why there was none; and whether the body came whole. */
async function outcome(url: string, init: RequestInit & { key?: string }, timeoutMs: number): Promise<{ status: number | string; body: string }> {
  try {
    const response = await emulator.call(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    try {
      return { status: response.status, body: await response.text() };
    } catch (error) {
      return { status: response.status, body: `body failed: ${describe(error)}` };
    }
  } catch (error) {
    return { status: `no answer: ${describe(error)}`, body: "" };
  }
}

/** Threads of this process blocked opening a FIFO that has no writer yet. */
function threadsOpeningFifo(): number {
  return readdirSync("/proc/self/task").filter((tid) => {
    try {
      return readFileSync(`/proc/self/task/${tid}/wchan`, "utf8") === "wait_for_partner";
    } catch {
      return false;
    }
  }).length;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `${(error as Error).name} ${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}`;
}

/** Opens a FIFO from the host for reading and writing without blocking, then closes it: blocked openers wake and read EOF. */
function releaseFifo(fifo: string): void {
  try {
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    setTimeout(() => closeSync(fd), 200);
  } catch {
    // gone already
  }
}

test("downloading a Unix socket the agent bound is a clean 4xx", async () => {
  const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
  const made = await executeTool(emulator, id, python("import socket\nsocket.socket(socket.AF_UNIX).bind('/workspace/sock')\nprint('bound')"));
  expect(made.body.output).toBe("bound\n");
  expect(lstatSync(path.join(emulator.dataDir, "trees", id, "workspace/sock")).isSocket()).toBe(true);

  const { status, body } = await outcome(`/v1beta/environments/${id}/files/workspace/sock?alt=media`, {}, 10_000);
  const clean = typeof status === "number" && status >= 400 && status < 500 && !body.startsWith("body failed");
  expect({ download: "workspace/sock (a Unix socket)", status, body, clean }).toEqual({ download: "workspace/sock (a Unix socket)", status, body, clean: true });
});

test("a fork of an environment holding a FIFO finishes without a 5xx, and copies no FIFO", async () => {
  const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
  const made = await executeTool(emulator, id, bash("mkfifo /workspace/fifo && echo made"));
  expect(made.body.output).toBe("made\n");

  const { status, body } = await outcome("/v1beta/environments", { method: "POST", body: JSON.stringify({ from_environment: id }) }, 15_000);
  const finished = typeof status === "number";
  let forkHoldsFifo = false;
  if (status === 200) {
    const fork = JSON.parse(body).id as string;
    forkHoldsFifo = lstatSync(path.join(emulator.dataDir, "trees", fork, "workspace/fifo"), { throwIfNoEntry: false })?.isFIFO() ?? false;
  }
  const ok = finished && (status as number) < 500 && !forkHoldsFifo;
  expect({ fork: "from_environment with a FIFO", status, body, forkHoldsFifo, ok }).toEqual({ fork: "from_environment with a FIFO", status, body, forkHoldsFifo, ok: true });
}, 30_000);

test("four downloads of a FIFO do not stall another tenant's CreateEnvironment and ListEnvironments", async () => {
  const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
  const made = await executeTool(emulator, id, bash("mkfifo /workspace/fifo && echo made"));
  expect(made.body.output).toBe("made\n");
  const fifo = path.join(emulator.dataDir, "trees", id, "workspace/fifo");

  const stuck = new AbortController();
  let downloadsSettled = 0;
  const downloads = Array.from({ length: 4 }, () =>
    emulator
      .call(`/v1beta/environments/${id}/files/workspace/fifo?alt=media`, { signal: AbortSignal.any([stuck.signal, AbortSignal.timeout(60_000)]) })
      .then((response) => response.arrayBuffer().then(() => response.status))
      .catch((error: Error) => error.name)
      .finally(() => (downloadsSettled += 1)),
  );
  try {
    // The downloads reached the emulator: refused, or each blocking a thread in the kernel's open() of
    // the FIFO (the emulator runs in this process), which is what would stall everything else.
    expect(await waitFor(() => downloadsSettled === 4 || threadsOpeningFifo() >= 4, 10_000)).toBe(true);
    // Time is the point: a stalled thread pool never answers. 10 s is far beyond what an answer takes on
    // a loaded machine.
    const list = await outcome("/v1beta/environments", { key: OTHER_KEY }, 10_000);
    const create = await outcome("/v1beta/environments", { method: "POST", key: OTHER_KEY, body: JSON.stringify({ sources: inlineFiles({ "x.txt": "x" }) }) }, 10_000);
    const fifoDownloads = await within(Promise.all(downloads), 10_000);
    expect({ otherTenant: { list: list.status, create: create.status }, fifoDownloads }).toEqual({ otherTenant: { list: 200, create: 200 }, fifoDownloads: [400, 400, 400, 400] });
  } finally {
    // Free the thread pool (the emulator runs in this process) and the clients.
    releaseFifo(fifo);
    stuck.abort();
    await within(Promise.all(downloads), 5_000);
  }
}, 60_000);
