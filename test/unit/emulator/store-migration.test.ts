/** A data dir from before `mode` and the self-hosted columns opens, its environments `on_demand`. */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { Store as EnvironmentStore } from "../../../emulator/store";

const dir = mkdtempSync(path.join(os.tmpdir(), "genv-store-migration-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("old rows get mode on_demand and empty self-hosted columns; new rows take them", () => {
  const file = path.join(dir, "environments.sqlite");
  const old = new Database(file);
  old.exec(`
    CREATE TABLE environments (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, owner TEXT NOT NULL, created_ms INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL, last_accessed_ms INTEGER NOT NULL, status TEXT NOT NULL, file_count INTEGER NOT NULL, size_bytes INTEGER NOT NULL);
    CREATE TABLE environment_specs (id TEXT PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE, sources TEXT, network TEXT, read_only TEXT);
    INSERT INTO environments (id, owner, created_ms, updated_ms, last_accessed_ms, status, file_count, size_bytes) VALUES ('env_old', 'o', 1, 1, 1, 'active', 0, 0);
    INSERT INTO environment_specs (id, sources, network, read_only) VALUES ('env_old', NULL, '"disabled"', '[]');
  `);
  old.close();

  for (let run = 0; run < 2; run++) {
    // Opening twice: the migration runs once and is a no-op after.
    const store = new EnvironmentStore(file);
    try {
      expect(store.get("o", "env_old")).toMatchObject({ mode: "on_demand" });
      expect(store.spec("env_old")).toEqual({
        sources: null,
        network: '"disabled"',
        read_only: "[]",
        system_instruction: null,
        custom_config: null,
        environment_key_sha256: null,
      });
      if (run === 0) {
        const row = { id: "env_new", owner: "o", created_ms: 2, updated_ms: 2, last_accessed_ms: 2, status: "active" as const, file_count: 0, size_bytes: 0, mode: "self_hosted" };
        store.insert(row, { sources: null, network: null, read_only: null, custom_config: "{}", environment_key_sha256: "ab" });
      }
      expect(store.page("o", 0, 10, "self_hosted").map((row) => row.id)).toEqual(["env_new"]);
      expect(store.page("o", 0, 10, "on_demand").map((row) => row.id)).toEqual(["env_old"]);
      expect(store.spec("env_new")).toMatchObject({ custom_config: "{}", environment_key_sha256: "ab", system_instruction: null });
    } finally {
      store.close();
    }
  }
});
