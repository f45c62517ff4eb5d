/**
 * The emulator's state in one real embedded database (better-sqlite3), on one connection: environments,
 * their specs and credentials, so that a change across them is one transaction (`transaction`). File
 * trees live on disk (`trees.ts`); a row exists only for a tree that is complete, so a row is the
 * commit point.
 */
import Database from "better-sqlite3";
import {
  migrate,
  NO_SPEC,
  type CredentialRow,
  type EnvironmentRow,
  type EnvironmentSpec,
  type NewCredentialRow,
  type NewEnvironmentRow,
  type NewEnvironmentSpec,
  type NewToolCallRow,
  type ToolCallRow,
} from "./schema";

export type { CredentialRow, EnvironmentRow, EnvironmentSpec, NewCredentialRow, NewEnvironmentRow, NewEnvironmentSpec, NewToolCallRow, ToolCallRow } from "./schema";

/** How many recorded tool calls an environment keeps, and how many bytes of them: the oldest go first. */
export interface ToolCallBounds {
  calls: number;
  bytes: number;
}

export class Store {
  private readonly db: Database.Database;
  private readonly statements;

  /** `file` is a path, or ":memory:" for a throwaway store. An earlier version's file is migrated. */
  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("foreign_keys = ON");
    migrate(this.db);
    const db = this.db;
    this.statements = {
      insert: db.prepare<NewEnvironmentRow>(
        `INSERT INTO environments (id, owner, created_ms, updated_ms, last_accessed_ms, status, file_count, size_bytes, mode)
         VALUES (@id, @owner, @created_ms, @updated_ms, @last_accessed_ms, @status, @file_count, @size_bytes, @mode)`,
      ),
      insertSpec: db.prepare<EnvironmentSpec & { id: string }>(
        `INSERT INTO environment_specs (id, sources, network, read_only, system_instruction, custom_config, environment_key_sha256)
         VALUES (@id, @sources, @network, @read_only, @system_instruction, @custom_config, @environment_key_sha256)`,
      ),
      spec: db.prepare<[string], EnvironmentSpec>(
        `SELECT sources, network, read_only, system_instruction, custom_config, environment_key_sha256 FROM environment_specs WHERE id = ?`,
      ),
      sandboxSpec: db.prepare<[string], Pick<EnvironmentSpec, "network" | "read_only">>(`SELECT network, read_only FROM environment_specs WHERE id = ?`),
      get: db.prepare<[string, string], EnvironmentRow>(`SELECT * FROM environments WHERE owner = ? AND id = ?`),
      page: db.prepare<[string, number, number], EnvironmentRow>(`SELECT * FROM environments WHERE owner = ? AND seq > ? ORDER BY seq LIMIT ?`),
      pageOfMode: db.prepare<[string, string, number, number], EnvironmentRow>(
        `SELECT * FROM environments WHERE owner = ? AND mode = ? AND seq > ? ORDER BY seq LIMIT ?`,
      ),
      delete: db.prepare<[string, string]>(`DELETE FROM environments WHERE owner = ? AND id = ?`),
      touch: db.prepare<[number, string]>(`UPDATE environments SET last_accessed_ms = max(last_accessed_ms, ?) WHERE id = ?`),
      expire: db.prepare<[string]>(`UPDATE environments SET status = 'expired' WHERE id = ?`),
      // `updated_ms` moves strictly forward, even on a frozen clock: caches are keyed by it.
      stats: db.prepare<[number, number, number, string], { updated_ms: number }>(
        `UPDATE environments SET file_count = ?, size_bytes = ?, updated_ms = max(?, updated_ms + 1), counts_stale = 0 WHERE id = ? RETURNING updated_ms`,
      ),
      ids: db.prepare<[], { id: string }>(`SELECT id FROM environments`),
      exists: db.prepare<[string], { id: string }>(`SELECT id FROM environments WHERE id = ?`),
      markChanging: db.prepare<[string]>(`UPDATE environments SET counts_stale = 1 WHERE id = ?`),
      current: db.prepare<[string]>(`UPDATE environments SET counts_stale = 0 WHERE id = ?`),
      stale: db.prepare<[], { id: string }>(`SELECT id FROM environments WHERE counts_stale = 1`),

      insertCredential: db.prepare<NewCredentialRow>(
        `INSERT INTO credentials (owner, id, type, status, config, secret, create_ms, update_ms)
         VALUES (@owner, @id, @type, @status, @config, @secret, @create_ms, @update_ms)`,
      ),
      credential: db.prepare<[string, string], CredentialRow>(`SELECT * FROM credentials WHERE owner = ? AND id = ?`),
      credentialPage: db.prepare<[string, number, number], CredentialRow>(`SELECT * FROM credentials WHERE owner = ? AND seq > ? ORDER BY seq LIMIT ?`),
      updateCredential: db.prepare<[string, Buffer, number, string, string]>(
        `UPDATE credentials SET config = ?, secret = ?, update_ms = ? WHERE owner = ? AND id = ?`,
      ),
      deleteCredential: db.prepare<[string, string]>(`DELETE FROM credentials WHERE owner = ? AND id = ?`),

      // Not for an environment deleted while its call ran (its rows went with it).
      insertToolCall: db.prepare<NewToolCallRow>(
        `INSERT INTO tool_calls (environment_id, time_ms, tool_call, decision, reason, error, args_omitted, bytes)
         SELECT @environment_id, @time_ms, @tool_call, @decision, @reason, @error, @args_omitted, @bytes
         WHERE EXISTS (SELECT 1 FROM environments WHERE id = @environment_id)`,
      ),
      toolCallTotals: db.prepare<[string], { calls: number; bytes: number | null }>(
        `SELECT count(*) AS calls, sum(bytes) AS bytes FROM tool_calls WHERE environment_id = ?`,
      ),
      newestToolCalls: db.prepare<[string], Pick<ToolCallRow, "seq" | "bytes">>(
        `SELECT seq, bytes FROM tool_calls WHERE environment_id = ? ORDER BY seq DESC`,
      ),
      dropToolCalls: db.prepare<[string, number]>(`DELETE FROM tool_calls WHERE environment_id = ? AND seq <= ?`),
      toolCallPage: db.prepare<[string, number, number, number], ToolCallRow>(
        `SELECT * FROM tool_calls WHERE environment_id = ? AND seq > ? AND time_ms >= ? ORDER BY seq LIMIT ?`,
      ),
    };
  }

  /** Runs `fn` as one transaction: whatever it reads is what it writes against; a throw rolls it all back. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }

  // ── environments ────────────────────────────────────────────────────────────────────────────────

  insert(row: NewEnvironmentRow, spec: NewEnvironmentSpec): void {
    this.transaction(() => {
      this.statements.insert.run(row);
      this.statements.insertSpec.run({ ...NO_SPEC, ...spec, id: row.id });
    });
  }

  /** What a tool call needs (`network`, `read_only`) without the sources, which can be large. */
  sandboxSpec(id: string): Pick<EnvironmentSpec, "network" | "read_only"> {
    return this.statements.sandboxSpec.get(id) ?? { network: null, read_only: null };
  }

  spec(id: string): EnvironmentSpec {
    return this.statements.spec.get(id) ?? NO_SPEC;
  }

  get(owner: string, id: string): EnvironmentRow | undefined {
    return this.statements.get.get(owner, id);
  }

  /** Rows after `afterSeq` in creation order (see `paging.ts`). Only `mode`'s rows when given. */
  page(owner: string, afterSeq: number, limit: number, mode?: string): EnvironmentRow[] {
    if (mode !== undefined) return this.statements.pageOfMode.all(owner, mode, afterSeq, limit);
    return this.statements.page.all(owner, afterSeq, limit);
  }

  delete(owner: string, id: string): boolean {
    return this.statements.delete.run(owner, id).changes > 0;
  }

  touch(id: string, atMs: number): void {
    this.statements.touch.run(atMs, id);
  }

  markExpired(id: string): void {
    this.statements.expire.run(id);
  }

  /** New stats after the tree changed; `updated_ms` becomes `updatedMs`, or 1 ms past its value. Returns it. */
  setStats(id: string, fileCount: number, sizeBytes: number, updatedMs: number): number | undefined {
    return this.statements.stats.get(fileCount, sizeBytes, updatedMs, id)?.updated_ms;
  }

  /**
   * Marks that the tree is about to change outside a create (an upload, a tool call): until new stats
   * are recorded, `file_count`/`size_bytes` may be stale, and a start-up after a crash recounts it.
   */
  markChanging(id: string): void {
    this.statements.markChanging.run(id);
  }

  exists(id: string): boolean {
    return this.statements.exists.get(id) !== undefined;
  }

  countsCurrent(id: string): void {
    this.statements.current.run(id);
  }

  /** Environments whose counts a crash may have left stale. */
  staleCounts(): string[] {
    return this.statements.stale.all().map((row) => row.id);
  }

  allIds(): Set<string> {
    return new Set(this.statements.ids.all().map((row) => row.id));
  }

  // ── recorded tool calls ─────────────────────────────────────────────────────────────────────────

  /**
   * Records a call its environment executed, then drops its oldest calls past `bounds`. The totals
   * are read from the index (environment, seq, bytes) alone; the rows are walked only when over.
   */
  recordToolCall(row: NewToolCallRow, bounds: ToolCallBounds): void {
    this.transaction(() => {
      if (this.statements.insertToolCall.run(row).changes === 0) return;
      const totals = this.statements.toolCallTotals.get(row.environment_id);
      if (!totals || (totals.calls <= bounds.calls && (totals.bytes ?? 0) <= bounds.bytes)) return;
      let calls = 0;
      let bytes = 0;
      let firstDropped: number | undefined;
      for (const kept of this.statements.newestToolCalls.iterate(row.environment_id)) {
        calls += 1;
        bytes += kept.bytes;
        if (calls > bounds.calls || bytes > bounds.bytes) {
          firstDropped = kept.seq;
          break; // ends the iterator: the connection takes no other statement while one is open
        }
      }
      if (firstDropped !== undefined) this.statements.dropToolCalls.run(row.environment_id, firstDropped);
    });
  }

  /** An environment's recorded calls after `afterSeq` and at or after `sinceMs`, oldest first. */
  toolCallPage(environmentId: string, afterSeq: number, sinceMs: number, limit: number): ToolCallRow[] {
    return this.statements.toolCallPage.all(environmentId, afterSeq, sinceMs, limit);
  }

  // ── credentials ─────────────────────────────────────────────────────────────────────────────────

  /** False when this owner already has that id. */
  insertCredential(row: NewCredentialRow): boolean {
    try {
      this.statements.insertCredential.run(row);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") return false;
      throw error;
    }
  }

  credential(owner: string, id: string): CredentialRow | undefined {
    return this.statements.credential.get(owner, id);
  }

  /** Rows after `afterSeq` in creation order (see `paging.ts`). */
  credentialPage(owner: string, afterSeq: number, limit: number): CredentialRow[] {
    return this.statements.credentialPage.all(owner, afterSeq, limit);
  }

  updateCredential(owner: string, id: string, config: string, secret: Buffer, updateMs: number): void {
    this.statements.updateCredential.run(config, secret, updateMs, owner, id);
  }

  deleteCredential(owner: string, id: string): boolean {
    return this.statements.deleteCredential.run(owner, id).changes > 0;
  }
}
