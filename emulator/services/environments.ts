/**
 * Environments: one thin method per API operation (resolve, validate, change the store, return the
 * wire shape), and the record of each environment's tree for the other services (files, tool calls).
 *
 * LIMITATIONS (where this emulator differs from, or decides for, the hosted service):
 * - `last_accessed` moves on file reads and tool calls, not on Get/List: reading metadata (a
 *   `pulumi refresh`) does not keep an environment alive.
 * - An environment idle longer than the idle TTL becomes `expired`; its files stay readable (a
 *   read-only snapshot) and it can still be deleted, but tools no longer run in it.
 * - Page tokens are opaque keyset positions: stable while environments or files are added and removed.
 * - `self_hosted` environments: the key is generated here (`envkey_` + 32 random bytes, base64url),
 *   returned by the create call only, and stored as its sha256. The daemon's polling and streaming
 *   API is not emulated; `system_instruction` and `custom_config` are stored and echoed, nothing
 *   more, and `:executeTool` runs the tools of any environment in the local sandbox.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  CreateEnvironmentRequest,
  DEFAULT_ENVIRONMENT_MODE,
  ENVIRONMENT_MODES,
  environmentModeProblem,
  type Environment,
  type Network,
} from "../../client/schemas";
import { describeIssues, validationIssues } from "../../client/issues";
import { HttpError, invalidArgument, notFound } from "../errors";
import { materializeSources, type SourceOptions } from "../sources";
import { readOnlyTargets } from "../sources/read-only";
import type { EnvironmentRow, EnvironmentSpec, Store } from "../store";
import { keysetPage } from "../store/paging";
import type { TreeStore } from "../trees";

export interface ServiceOptions extends SourceOptions {
  /** An environment unused for this long becomes `expired`. */
  idleTtlMs: number;
  /** Clock, for tests of expiry. */
  now: () => number;
  /** Echoed specs one ListEnvironments page holds at most; default `MAX_PAGE_BYTES`. */
  maxPageBytes?: number;
  /** Called once an environment is deleted, to release what other parts hold for it (its egress proxy). */
  afterDelete?: (id: string) => Promise<void>;
}

/** Echoed specs one ListEnvironments page holds at most (more than one environment's worth ends it). */
export const MAX_PAGE_BYTES = 64 * 1024 * 1024; // 64 MiB

/**
 * Seconds already formatted. A listing of 10,000 files formats 20,000 times, mostly a handful of
 * distinct seconds, and formatting each took 16 ms of a 40 ms listing (bench api).
 */
const formattedSeconds = new Map<number, string>();
const FORMATTED_SECONDS_KEPT = 4096;

/** `ms` since the epoch as the API's timestamps: RFC 3339 in UTC, whole seconds (`2026-12-01T00:00:00Z`). */
export function isoSeconds(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  let text = formattedSeconds.get(seconds);
  if (text === undefined) {
    text = new Date(seconds * 1000).toISOString().replace(/\.000Z$/, "Z");
    if (formattedSeconds.size >= FORMATTED_SECONDS_KEPT) formattedSeconds.clear();
    formattedSeconds.set(seconds, text);
  }
  return text;
}

export class EnvironmentsService {
  constructor(
    private readonly store: Store,
    private readonly trees: TreeStore,
    private readonly options: ServiceOptions,
  ) {}

  async create(owner: string, body: unknown): Promise<Environment> {
    const parsed = CreateEnvironmentRequest.safeParse(body);
    if (!parsed.success) throw invalidArgument(describeIssues(validationIssues(parsed.error)));
    const request = parsed.data;
    this.checkCredentialReferences(owner, request.network);
    const origin = request.from_environment ? this.row(owner, request.from_environment.replace(/^environments\//, "")) : undefined;

    const scratch = await this.trees.scratch();
    const id = `env_${randomBytes(10).toString("hex")}`;
    const mode = request.mode ?? DEFAULT_ENVIRONMENT_MODE;
    // 256 random bits: a plain sha256 is as hard to invert as the key is to guess, so no salt or slow hash.
    const environmentKey = mode === "self_hosted" ? `envkey_${randomBytes(32).toString("base64url")}` : undefined;
    try {
      if (origin) await this.trees.copyInto(origin.id, scratch);
      const written = await materializeSources(request.sources ?? [], scratch, this.options);
      const stats = origin ? await this.trees.stats(scratch) : written;
      await this.trees.commit(scratch, id);
      const now = this.options.now();
      // The references are checked again with the insert, in one transaction: a credential deleted
      // while the tree was built cannot leave an environment that references nothing.
      this.store.transaction(() => {
        this.checkCredentialReferences(owner, request.network);
        this.store.insert({
          id,
          owner,
          created_ms: now,
          updated_ms: now,
          last_accessed_ms: now,
          status: "active",
          file_count: stats.fileCount,
          size_bytes: stats.sizeBytes,
          mode,
        }, {
          sources: request.sources ? JSON.stringify(request.sources) : null,
          network: request.network !== undefined ? JSON.stringify(request.network) : null,
          system_instruction: request.system_instruction ?? null,
          custom_config: request.custom_config !== undefined ? JSON.stringify(request.custom_config) : null,
          environment_key_sha256: environmentKey === undefined ? null : createHash("sha256").update(environmentKey).digest("hex"),
          // A fork keeps its origin's read-only paths: it holds the same repository content.
          read_only: JSON.stringify([...new Set([...(origin ? this.sandboxSpec(origin.id).readOnly : []), ...readOnlyTargets(request.sources ?? [])])]),
        });
      });
    } catch (error) {
      await this.trees.discard(scratch);
      await this.trees.remove(id);
      throw error;
    }
    const created = this.get(owner, id);
    // The one response that carries the key: Get and List never do.
    return environmentKey === undefined ? created : { ...created, environment_key: environmentKey };
  }

  get(owner: string, id: string): Environment {
    const row = this.row(owner, id);
    return toWire(row, this.store.spec(row.id));
  }

  /**
   * One page of the owner's environments, in creation order; with `mode`, only those of that mode. A
   * token is a position, so it may be used with or without the filter; an unknown mode is a 400.
   */
  list(owner: string, pageSize: number | undefined, pageToken: string | undefined, mode?: string): { environments: Environment[]; next_page_token?: string } {
    if (mode !== undefined && !(ENVIRONMENT_MODES as readonly string[]).includes(mode)) throw invalidArgument(`mode: ${environmentModeProblem(mode)}`);
    const page = keysetPage("environments", { pageSize, pageToken }, (after, limit) => this.store.page(owner, after, limit, mode), (rows) => this.echoed(rows));
    return page.nextPageToken === undefined ? { environments: page.items } : { environments: page.items, next_page_token: page.nextPageToken };
  }

  /**
   * Environments as List echoes them. A page also ends before it would pass MAX_PAGE_BYTES of echoed
   * specs (at least one environment per page): serialising pages of environments with large inline
   * sources must stay possible.
   */
  private echoed(rows: readonly EnvironmentRow[]): Environment[] {
    const page: Environment[] = [];
    let bytes = 0;
    for (const row of rows) {
      const spec = this.store.spec(row.id);
      const specBytes = (spec.sources?.length ?? 0) + (spec.network?.length ?? 0) + (spec.custom_config?.length ?? 0) + (spec.system_instruction?.length ?? 0);
      if (page.length > 0 && bytes + specBytes > (this.options.maxPageBytes ?? MAX_PAGE_BYTES)) break;
      page.push(toWire(this.withCurrentStatus(row), spec));
      bytes += specBytes;
    }
    return page;
  }

  async delete(owner: string, id: string): Promise<void> {
    if (!this.store.delete(owner, this.row(owner, id).id)) throw notFound(`environment ${id} not found`);
    await this.trees.remove(id);
    await this.options.afterDelete?.(id);
  }

  /**
   * Before the tree changes outside a create (an upload, a tool call): its counts may be stale until
   * they are recorded again, and a start-up after a crash in between recounts it (`recountStale`).
   */
  treeChanging(id: string): void {
    this.store.markChanging(id);
  }

  /** Counts every tree a crash may have left with stale `file_count`/`size_bytes` (at start-up). */
  async recountStale(): Promise<string[]> {
    const stale = this.store.staleCounts();
    for (const id of stale) {
      const stats = await this.trees.stats(this.trees.treePath(id)).catch(() => ({ fileCount: 0, sizeBytes: 0 }));
      this.store.setStats(id, stats.fileCount, stats.sizeBytes, this.options.now());
    }
    return stale;
  }

  /** After files changed in an environment's tree (uploads): recount, move `updated` and `last_accessed`. */
  async filesChanged(id: string): Promise<void> {
    const stats = await this.trees.stats(this.trees.treePath(id));
    const now = this.options.now();
    this.store.setStats(id, stats.fileCount, stats.sizeBytes, now);
    this.store.touch(id, now);
  }

  private checkCredentialReferences(owner: string, network: CreateEnvironmentRequest["network"]): void {
    if (!network || network === "disabled" || !Array.isArray(network.allowlist)) return;
    network.allowlist.forEach((entry, index) => {
      if (entry.credential !== undefined && this.store.credential(owner, entry.credential) === undefined) {
        throw invalidArgument(
          `network.allowlist[${index}].credential: no credential "${entry.credential}"; create it first (POST /v1beta/credentials)`,
        );
      }
    });
  }

  /** What the sandbox of a tool call needs: the egress policy and the read-only paths. */
  sandboxSpec(id: string): { network: Network | undefined; readOnly: string[] } {
    const spec = this.store.sandboxSpec(id);
    return {
      network: spec.network === null ? undefined : (JSON.parse(spec.network) as Network),
      readOnly: spec.read_only === null ? [] : (JSON.parse(spec.read_only) as string[]),
    };
  }

  /** The row of an environment this owner can see, with its expiry applied. */
  row(owner: string, id: string): EnvironmentRow {
    const row = this.store.get(owner, id);
    if (!row) throw notFound(`environment ${id} not found`);
    return this.withCurrentStatus(row);
  }

  /** The row of an environment whose files may change: an expired one is a read-only snapshot. */
  writable(owner: string, id: string): EnvironmentRow {
    const row = this.row(owner, id);
    if (row.status !== "active") {
      throw new HttpError("FAILED_PRECONDITION", `environment ${id} is ${row.status}: its files are a read-only snapshot; create a new environment (from_environment copies it)`);
    }
    return row;
  }

  /** Records a use of the environment (file reads, tool calls). */
  accessed(owner: string, id: string): EnvironmentRow {
    const row = this.row(owner, id);
    const now = this.options.now();
    this.store.touch(row.id, now);
    return { ...row, last_accessed_ms: Math.max(row.last_accessed_ms, now) };
  }

  /**
   * Records that a tool call changed the tree (`:executeTool`): new stats, and `updated` moves —
   * strictly later than before, even on a frozen test clock: recursive listings and the tool route's
   * tree snapshots are keyed by it. Returns the new `updated_ms`.
   */
  recordTreeChange(row: EnvironmentRow, stats: { fileCount: number; sizeBytes: number }): number {
    return this.store.setStats(row.id, stats.fileCount, stats.sizeBytes, this.options.now()) ?? row.updated_ms;
  }

  /** Records that a tool call left the tree as it was: its counts are current again; `updated` stays. */
  recordTreeUnchanged(row: EnvironmentRow): number {
    this.store.countsCurrent(row.id);
    return row.updated_ms;
  }

  /** Whether the environment still exists (a tool call's environment may be deleted while it runs). */
  exists(id: string): boolean {
    return this.store.exists(id);
  }

  private withCurrentStatus(row: EnvironmentRow): EnvironmentRow {
    if (row.status === "active" && this.options.now() - row.last_accessed_ms > this.options.idleTtlMs) {
      this.store.markExpired(row.id);
      return { ...row, status: "expired" };
    }
    return row;
  }

}

function toWire(row: EnvironmentRow, spec: EnvironmentSpec): Environment {
  const environment: Environment = {
    id: row.id,
    created: isoSeconds(row.created_ms),
    updated: isoSeconds(row.updated_ms),
    last_accessed: isoSeconds(row.last_accessed_ms),
    file_count: String(row.file_count),
    size_bytes: String(row.size_bytes),
    status: row.status,
    mode: row.mode,
  };
  if (spec.network !== null) environment.network = JSON.parse(spec.network);
  if (spec.sources !== null) environment.sources = JSON.parse(spec.sources);
  if (spec.system_instruction !== null) environment.system_instruction = spec.system_instruction;
  if (spec.custom_config !== null) environment.custom_config = JSON.parse(spec.custom_config);
  return environment;
}

