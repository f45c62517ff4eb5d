/**
 * The emulator's tables: their rows as the store returns them, and the migration that brings any
 * earlier data directory's database up to date (idempotent: it runs at every start).
 */
import type Database from "better-sqlite3";
import type { CredentialType } from "../../client/schemas";

/** An environment's metadata: hot, small, read and written on every file read and tool call. */
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

export const NO_SPEC: EnvironmentSpec = {
  sources: null,
  network: null,
  read_only: null,
  system_instruction: null,
  custom_config: null,
  environment_key_sha256: null,
};

/** A stored credential: its non-secret fields in clear, its secret fields sealed (see services/credential-cipher.ts). */
export interface CredentialRow {
  seq: number;
  owner: string;
  id: string;
  type: CredentialType;
  status: string;
  /** JSON of the non-secret fields. */
  config: string;
  /** iv (12) || tag (16) || AES-256-GCM ciphertext of the secret fields' JSON. */
  secret: Buffer;
  create_ms: number;
  update_ms: number;
}

export type NewCredentialRow = Omit<CredentialRow, "seq">;

/**
 * A tool call the emulator executed (`:executeTool`): the hook payload's `tool_call` (JSON text, its
 * `args` left out when too large to keep: `args_omitted`), the pre hooks' decision and reason, when.
 */
export interface ToolCallRow {
  seq: number;
  environment_id: string;
  time_ms: number;
  /** JSON text of `{"name", "args"}`, or of `{"name"}` when `args_omitted`. */
  tool_call: string;
  decision: "allow" | "deny";
  reason: string | null;
  /** The tool's error result when it ran and failed (the post payload's `error`). */
  error: string | null;
  args_omitted: number;
  /** Bytes the row holds (its texts), what the bound per environment counts. */
  bytes: number;
}

export type NewToolCallRow = Omit<ToolCallRow, "seq">;

const TABLES = `
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
CREATE TABLE IF NOT EXISTS credentials (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  owner TEXT NOT NULL,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  config TEXT NOT NULL,
  secret BLOB NOT NULL,
  create_ms INTEGER NOT NULL,
  update_ms INTEGER NOT NULL,
  UNIQUE (owner, id)
);
CREATE TABLE IF NOT EXISTS tool_calls (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  environment_id TEXT NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  time_ms INTEGER NOT NULL,
  tool_call TEXT NOT NULL,
  decision TEXT NOT NULL,
  reason TEXT,
  error TEXT,
  args_omitted INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_calls_by_environment ON tool_calls (environment_id, seq, bytes);
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

/** Creates what is missing; a database that is up to date is left as it is. */
export function migrate(db: Database.Database): void {
  db.exec(TABLES);
  for (const [table, column, definition] of ADDED_COLUMNS) {
    const columns = db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all();
    if (!columns.some((existing) => existing.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
  }
  db.exec("CREATE INDEX IF NOT EXISTS environments_by_owner_mode ON environments (owner, mode, seq)");
}
