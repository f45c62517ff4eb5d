/**
 * Metadata of environments in a real embedded database (better-sqlite3). File trees live on disk
 * (see trees.ts); a row exists only for a tree that is complete, so a row is the commit point.
 */
import Database from "better-sqlite3";

export interface EnvironmentRow {
  seq: number;
  id: string;
  /** sha256 of the API key that created it: each key sees only its own environments. */
  owner: string;
  created_ms: number;
  updated_ms: number;
  last_accessed_ms: number;
  status: "active" | "expired";
  file_count: number;
  size_bytes: number;
  /** `on_demand` or `self_hosted`; kept on the row because List filters on it. */
  mode: string;
}

export type NewEnvironmentRow = Omit<EnvironmentRow, "seq">;

/**
 * What the environment was created from, echoed by Get and List. Kept apart from the row because
 * inline content can be megabytes: the hot paths (file reads, `last_accessed` updates) never load
 * or rewrite it.
 */
export interface EnvironmentSpec {
  /** JSON text of the request's sources / network, as received; NULL when omitted. */
  sources: string | null;
  network: string | null;
  /** JSON array of paths the sandbox mounts read-only (repository and skill_registry targets). */
  read_only: string | null;
  /** Self-hosted environments' `system_instruction` and `custom_config` (JSON text), as received; NULL when omitted. */
  system_instruction: string | null;
  custom_config: string | null;
  /** sha256 (hex) of a self-hosted environment's `environment_key`: the key itself is never stored. */
  environment_key_sha256: string | null;
}

/** What `insert` takes: every spec column but those a later version added may be left out. */
export type NewEnvironmentSpec = Pick<EnvironmentSpec, "sources" | "network" | "read_only"> & Partial<EnvironmentSpec>;

const MIGRATION = `
CREATE TABLE IF NOT EXISTS environments (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  last_accessed_ms INTEGER NOT NULL,
  status TEXT NOT NULL,
  file_count INTEGER NOT NULL,
  size_bytes INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS environments_by_owner ON environments (owner, seq);
CREATE TABLE IF NOT EXISTS environment_specs (
  id TEXT PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  sources TEXT,
  network TEXT,
  read_only TEXT
);
`;

/**
 * Columns added after the first release, for data dirs created before them: `ALTER TABLE … ADD
 * COLUMN` where missing (SQLite has no `ADD COLUMN IF NOT EXISTS`). Rows from before are `on_demand`.
 */
const ADDED_COLUMNS: ReadonlyArray<readonly [table: string, column: string, definition: string]> = [
  ["environments", "mode", "TEXT NOT NULL DEFAULT 'on_demand'"],
  ["environment_specs", "system_instruction", "TEXT"],
  ["environment_specs", "custom_config", "TEXT"],
  ["environment_specs", "environment_key_sha256", "TEXT"],
  ["environments", "counts_stale", "INTEGER NOT NULL DEFAULT 0"],
];

const NO_SPEC: EnvironmentSpec = {
  sources: null,
  network: null,
  read_only: null,
  system_instruction: null,
  custom_config: null,
  environment_key_sha256: null,
};

export class EnvironmentStore {
  private readonly db: Database.Database;
  private readonly statements;

  /** `file` is a path, or ":memory:" for a throwaway store. */
  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("foreign_keys = ON");
    this.db.exec(MIGRATION);
    for (const [table, column, definition] of ADDED_COLUMNS) {
      const columns = this.db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all();
      if (!columns.some((existing) => existing.name === column)) this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
    }
    this.db.exec("CREATE INDEX IF NOT EXISTS environments_by_owner_mode ON environments (owner, mode, seq)");
    this.statements = {
      insert: this.db.prepare<NewEnvironmentRow>(
        `INSERT INTO environments (id, owner, created_ms, updated_ms, last_accessed_ms, status, file_count, size_bytes, mode)
         VALUES (@id, @owner, @created_ms, @updated_ms, @last_accessed_ms, @status, @file_count, @size_bytes, @mode)`,
      ),
      insertSpec: this.db.prepare<EnvironmentSpec & { id: string }>(
        `INSERT INTO environment_specs (id, sources, network, read_only, system_instruction, custom_config, environment_key_sha256)
         VALUES (@id, @sources, @network, @read_only, @system_instruction, @custom_config, @environment_key_sha256)`,
      ),
      spec: this.db.prepare<[string], EnvironmentSpec>(
        `SELECT sources, network, read_only, system_instruction, custom_config, environment_key_sha256 FROM environment_specs WHERE id = ?`,
      ),
      sandboxSpec: this.db.prepare<[string], Pick<EnvironmentSpec, "network" | "read_only">>(
        `SELECT network, read_only FROM environment_specs WHERE id = ?`,
      ),
      get: this.db.prepare<[string, string], EnvironmentRow>(`SELECT * FROM environments WHERE owner = ? AND id = ?`),
      page: this.db.prepare<[string, number, number], EnvironmentRow>(
        `SELECT * FROM environments WHERE owner = ? AND seq > ? ORDER BY seq LIMIT ?`,
      ),
      pageOfMode: this.db.prepare<[string, string, number, number], EnvironmentRow>(
        `SELECT * FROM environments WHERE owner = ? AND mode = ? AND seq > ? ORDER BY seq LIMIT ?`,
      ),
      delete: this.db.prepare<[string, string]>(`DELETE FROM environments WHERE owner = ? AND id = ?`),
      touch: this.db.prepare<[number, string]>(`UPDATE environments SET last_accessed_ms = max(last_accessed_ms, ?) WHERE id = ?`),
      expire: this.db.prepare<[string]>(`UPDATE environments SET status = 'expired' WHERE id = ?`),
      // `updated_ms` moves strictly forward, even on a frozen clock: caches are keyed by it.
      stats: this.db.prepare<[number, number, number, string], { updated_ms: number }>(
        `UPDATE environments SET file_count = ?, size_bytes = ?, updated_ms = max(?, updated_ms + 1), counts_stale = 0 WHERE id = ? RETURNING updated_ms`,
      ),
      ids: this.db.prepare<[], { id: string }>(`SELECT id FROM environments`),
      exists: this.db.prepare<[string], { id: string }>(`SELECT id FROM environments WHERE id = ?`),
      markChanging: this.db.prepare<[string]>(`UPDATE environments SET counts_stale = 1 WHERE id = ?`),
      current: this.db.prepare<[string]>(`UPDATE environments SET counts_stale = 0 WHERE id = ?`),
      stale: this.db.prepare<[], { id: string }>(`SELECT id FROM environments WHERE counts_stale = 1`),
    };
  }

  insert(row: NewEnvironmentRow, spec: NewEnvironmentSpec): void {
    this.db.transaction(() => {
      this.statements.insert.run(row);
      this.statements.insertSpec.run({ ...NO_SPEC, ...spec, id: row.id });
    })();
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

  /** Keyset page in creation order: stable while rows are added and removed between pages. Only `mode`'s rows when given. */
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

  close(): void {
    this.db.close();
  }
}
