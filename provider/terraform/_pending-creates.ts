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

/** One change of the record at a time within the process (creates run side by side); Terraform's state lock keeps other runs out. */
let queue: Promise<unknown> = Promise.resolve();

function serialized<T>(change: () => Promise<T> | T): Promise<T> {
  const next = queue.then(change, change);
  queue = next.catch(() => undefined);
  return next;
}

/** A change of the record: the record changed, or undefined when it has nothing to change. */
type Change = (record: PendingRecord) => PendingRecord | undefined;

/** The changes the next write takes, and that write. */
let batch: { changes: Change[]; written: Promise<void> } | undefined;

/**
 * `change` applied to the record and written, with every other change asked in the same turn of the
 * event loop: Terraform's calls come ten at a time, and a plan after an apply settles each of its
 * resources, which was one write and rename of the record each, on the event loop. Resolves once written.
 */
function changeRecord(change: Change): Promise<void> {
  if (!batch) {
    const changes: Change[] = [];
    const written = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      serialized(() => {
        batch = undefined;
        let record = read();
        let changed = false;
        for (const apply of changes) {
          const next = apply(record);
          if (next) [record, changed] = [next, true];
        }
        if (changed) write(record);
      }),
    );
    batch = { changes, written };
  }
  batch.changes.push(change);
  return batch.written;
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
export function settle(ids: ReadonlyArray<unknown>): Promise<void> {
  const known = new Set(ids.filter((id): id is string => typeof id === "string" && id !== ""));
  if (known.size === 0 || !fs.existsSync(recordFile())) return Promise.resolve();
  return changeRecord(({ pending, settled }) => {
    const fresh = [...known].filter((id) => !settled.includes(id));
    if (fresh.length === 0) return undefined;
    return { pending: pending.filter((entry) => entry.id === undefined || !known.has(entry.id)), settled: [...settled, ...fresh] };
  });
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
  await changeRecord((record) => ({ ...record, pending: [...record.pending, entry] }));
  const created = await create();
  await changeRecord((record) => ({ ...record, pending: record.pending.map((candidate) => (same(candidate, entry) ? { ...candidate, id: created.id } : candidate)) }));
  return created;
}

/**
 * A credential's create through the record: when it meets ALREADY_EXISTS and a killed run's create of
 * the same id is pending, `adopt` (which checks the type) instead of the error.
 */
export async function createCredentialRecorded<Created>(credentialId: string, create: () => Promise<Created>, adopt: () => Promise<Created>): Promise<Created> {
  const spec = `credential:${credentialId}`;
  const orphan = await serialized(() => {
    const record = read();
    const found = record.pending.find((entry) => entry.spec === spec && !alive(entry.pid));
    if (found) write({ ...record, pending: record.pending.filter((entry) => !same(entry, found)) });
    return found;
  });
  const entry: Entry = { spec, started: Date.now(), pid: process.pid, id: credentialId };
  await changeRecord((record) => ({ ...record, pending: [...record.pending, entry] }));
  try {
    return await create();
  } catch (error) {
    if (orphan === undefined || !isAlreadyExists((error as Error).cause ?? error)) throw error;
    return adopt();
  }
}

/** The environment a killed run made of `spec`, taken out of the record; undefined when there is none to adopt. */
async function claimOrphan(client: EnvironmentsClient, request: CreateEnvironmentRequest, spec: string): Promise<string | undefined> {
  const orphans = read().pending.filter((entry) => entry.spec === spec && !alive(entry.pid));
  for (const entry of orphans) {
    const record = read();
    write({ ...record, pending: record.pending.filter((candidate) => !same(candidate, entry)) });
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
