/**
 * What a killed `terraform apply` created but never recorded: the Terraform form of `genv recover`
 * (provider/recovery.ts).
 *
 * Pulumi's engine writes a pending operation into its checkpoint before each create; Terraform writes
 * nothing until an answer comes, and persists its state at the end of the run (or on an interrupt it
 * survives): a Terraform killed (SIGKILL, a cancelled CI job) while an environment is being created
 * leaves that environment out of the state, and the next apply would create a second one. So the
 * provider keeps its own record, in the working directory's data dir
 * (`.terraform/geminienvironments/pending-creates.json`, `TF_DATA_DIR` when set): before each create,
 * the spec and the time; after it, the id. An id seen later in a state (ReadResource, a plan's prior
 * state, an update or delete) is settled: its entry leaves the record, and while any entry is pending
 * the ids seen in states are kept (`settled`), so that none of them is taken for a killed run's.
 *
 * At a create, an entry of the same spec whose process is gone (its Terraform was killed) is what the
 * killed run made: its environment, when the answer came (the id), or else the environment of that
 * spec created in its window (client/converge.ts `environmentsCreatedLike`) when exactly one is, and
 * it is adopted (the core's `adopt`: checked to hold the declared spec) instead of making another. A
 * self_hosted environment is deleted and made again: its key came only with the lost answer.
 *
 * A Credential's id is the configuration's: a killed run's credential is the one of that id, and its
 * create meets ALREADY_EXISTS; with a pending entry of that id from a dead process, it is adopted
 * (updated with every declared field, its secret included) instead of failing.
 *
 * What it cannot see: a run with `-target` settles only the resources it plans, so an environment of
 * the same spec that a killed run made for a resource outside the target stays pending until a full
 * plan; and another working directory creating the same spec in the same seconds looks alike (as
 * for converge.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";
import type { EnvironmentsClient } from "../../client/client";
import { environmentsCreatedLike } from "../../client/converge";
import { isAlreadyExists, isNotFound } from "../../client/errors";
import type { CreateEnvironmentRequest } from "../../client/schemas";

interface Entry {
  /** The create request's hash. */
  spec: string;
  /** When the create began (ms since the epoch). */
  started: number;
  /** The process that made it: while it lives, its create is its own. */
  pid: number;
  /** The environment, once the answer came. */
  id?: string;
}

interface PendingRecord {
  pending: Entry[];
  /** Ids seen in a state while entries were pending: never a killed run's orphan. */
  settled: string[];
}

/** How many settled ids the record keeps (the newest): more than a working directory's environments. */
const SETTLED_KEPT = 1000;

/** How far before an entry's start an environment's `created` may be (whole seconds, another clock). */
const CLOCK_SKEW_MS = 5_000;

/** One orphan claimed at a time within the process (creates run side by side); Terraform's state lock keeps other runs out. */
let queue: Promise<unknown> = Promise.resolve();

function serialized<T>(claim: () => Promise<T> | T): Promise<T> {
  const next = queue.then(claim, claim);
  queue = next.catch(() => undefined);
  return next;
}

/**
 * The record as this process has it: read from disk at its first use, then changed here. A change
 * that must be on disk before a request goes out (an entry, before its create) is written at once,
 * with every other change asked in the same turn of the event loop (creates come ten at a time); the
 * others (ids settled, a create's id) are written with the next such write, or as the process exits.
 * A plan after an apply settles each of its resources: that was a write and a rename of the record
 * each, on the event loop. Should the process die before its exit, what it did not write is found
 * again: the next run's refresh settles the same ids, and an entry without its id is looked up by its spec.
 */
let record: PendingRecord | undefined;
let unwritten = false;
let durableWrite: Promise<void> | undefined;
let exitWriteRegistered = false;

function current(): PendingRecord {
  return (record ??= read());
}

/** `next` as the record: on disk at the next durable change, or at exit. */
function update(next: PendingRecord): void {
  record = next;
  unwritten = true;
  if (exitWriteRegistered) return;
  exitWriteRegistered = true;
  process.once("exit", writeUnwritten);
}

function writeUnwritten(): void {
  if (!unwritten || !record) return;
  unwritten = false;
  write(record);
}

/** The record on disk, with every change asked until the end of this turn of the event loop. */
function writeSoon(): Promise<void> {
  return (durableWrite ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    durableWrite = undefined;
    writeUnwritten();
  }));
}

function recordFile(): string {
  return path.resolve(process.env.TF_DATA_DIR ?? ".terraform", "geminienvironments", "pending-creates.json");
}

function read(): PendingRecord {
  try {
    const record = JSON.parse(fs.readFileSync(recordFile(), "utf8")) as Partial<PendingRecord>;
    return { pending: record.pending ?? [], settled: record.settled ?? [] };
  } catch {
    return { pending: [], settled: [] };
  }
}

function write(record: PendingRecord): void {
  const file = recordFile();
  if (record.pending.length === 0) {
    fs.rmSync(file, { force: true });
    return;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify({ pending: record.pending, settled: record.settled.slice(-SETTLED_KEPT) }));
  fs.renameSync(`${file}.tmp`, file);
}

/** Whether the process runs: a zombie does not (a killed Terraform's provider, which no one has reaped yet). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // Linux's /proc/PID/stat: "pid (name) STATE …"; the name may hold spaces and parentheses.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no /proc (macOS): signal 0 is the answer
  }
}

export function specOf(request: CreateEnvironmentRequest): string {
  return createHash("sha256").update(JSON.stringify(request)).digest("hex");
}

/** Ids found in a state: their creates are recorded by Terraform, no longer pending. */
export function settle(ids: ReadonlyArray<unknown>): void {
  const known = new Set(ids.filter((id): id is string => typeof id === "string" && id !== ""));
  if (known.size === 0 || (record === undefined && !fs.existsSync(recordFile()))) return;
  const { pending, settled } = current();
  const fresh = [...known].filter((id) => !settled.includes(id));
  if (pending.length > 0 && fresh.length > 0) update({ pending: pending.filter((entry) => entry.id === undefined || !known.has(entry.id)), settled: [...settled, ...fresh] });
}

/**
 * Creates through `create`, unless a killed run already made this spec: then the id of what it made,
 * for the caller to adopt. The record holds the create while it runs and its id after.
 */
export async function createRecorded<Created extends { id: string }>(
  client: EnvironmentsClient,
  request: CreateEnvironmentRequest,
  create: () => Promise<Created>,
  adopt: (id: string) => Promise<Created>,
): Promise<Created> {
  const spec = specOf(request);
  const orphan = await serialized(() => claimOrphan(client, request, spec));
  if (orphan !== undefined) return adopt(orphan);
  const entry: Entry = { spec, started: Date.now(), pid: process.pid };
  update({ ...current(), pending: [...current().pending, entry] });
  await writeSoon();
  const created = await create();
  update({ ...current(), pending: current().pending.map((candidate) => (same(candidate, entry) ? { ...candidate, id: created.id } : candidate)) });
  return created;
}

/**
 * A credential's create through the record: when it meets ALREADY_EXISTS and a killed run's create of
 * the same id is pending, `adopt` (which checks the type) instead of the error.
 */
export async function createCredentialRecorded<Created>(credentialId: string, create: () => Promise<Created>, adopt: () => Promise<Created>): Promise<Created> {
  const spec = `credential:${credentialId}`;
  const orphan = current().pending.find((entry) => entry.spec === spec && !alive(entry.pid));
  if (orphan) update({ ...current(), pending: current().pending.filter((entry) => !same(entry, orphan)) });
  const entry: Entry = { spec, started: Date.now(), pid: process.pid, id: credentialId };
  update({ ...current(), pending: [...current().pending, entry] });
  await writeSoon();
  try {
    return await create();
  } catch (error) {
    if (orphan === undefined || !isAlreadyExists((error as Error).cause ?? error)) throw error;
    return adopt();
  }
}

/** The environment a killed run made of `spec`, taken out of the record; undefined when there is none to adopt. */
async function claimOrphan(client: EnvironmentsClient, request: CreateEnvironmentRequest, spec: string): Promise<string | undefined> {
  const orphans = current().pending.filter((entry) => entry.spec === spec && !alive(entry.pid));
  for (const entry of orphans) {
    const record = current();
    update({ ...record, pending: record.pending.filter((candidate) => !same(candidate, entry)) });
    // Not an environment a state holds, another entry made, or this process took already.
    const recorded = new Set([...record.settled, ...record.pending.map((candidate) => candidate.id), ...taken]);
    const ids =
      entry.id !== undefined
        ? [entry.id]
        : (await environmentsCreatedLike(client, request, { from: entry.started - CLOCK_SKEW_MS })).map((environment) => environment.id).filter((id) => !recorded.has(id));
    if (ids.length !== 1) continue; // none made, or more than one can be told apart: nothing adopted
    const [id] = ids;
    if (request.mode === "self_hosted") {
      // Its key came only with the lost answer: made again.
      await client.delete(id).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      continue;
    }
    const exists = await client.get(id).then(
      (environment) => environment.status !== "expired",
      (error: unknown) => {
        if (isNotFound(error)) return false;
        throw error;
      },
    );
    if (exists) {
      taken.add(id);
      return id;
    }
  }
  return undefined;
}

/** The ids this process adopted: each once. */
const taken = new Set<string>();

function same(a: Entry, b: Entry): boolean {
  return a.spec === b.spec && a.started === b.started && a.pid === b.pid;
}
