/** The record of executed calls stays within its bounds per environment, oldest dropped first; huge args are not kept. */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { EnvironmentsService } from "../../../emulator/services/environments";
import { MAX_RECORDED_ARGS_BYTES, RecordedCallsService } from "../../../emulator/services/recorded-calls";
import { Store } from "../../../emulator/store";
import { TreeStore } from "../../../emulator/trees";

const dir = mkdtempSync(path.join(os.tmpdir(), "genv-recorded-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function storeWith(...ids: string[]): Store {
  const store = new Store(":memory:");
  for (const id of ids) {
    store.insert({ id, owner: "o", created_ms: 1, updated_ms: 1, last_accessed_ms: 1, status: "active", file_count: 0, size_bytes: 0, mode: "on_demand" }, { sources: null, network: null, read_only: null });
  }
  return store;
}

function service(store: Store, bounds: { calls: number; bytes: number }, now = () => 1_000): RecordedCallsService {
  const environments = new EnvironmentsService(store, new TreeStore(dir, undefined), { idleTtlMs: 3_600_000, now, maxFiles: 10, maxBytes: 1000 });
  return new RecordedCallsService(store, environments, now, bounds);
}

const call = (n: number) => ({ name: "code_execution", args: { code: `echo ${n}` } });
const codes = (recorded: RecordedCallsService, id: string) => recorded.list("o", id, { pageSize: 1000 }).tool_calls.map((c) => c.tool_call.args?.code);

test("past the count bound the oldest go, per environment", () => {
  const store = storeWith("env_a", "env_b");
  const recorded = service(store, { calls: 5, bytes: 1_000_000 });
  for (let n = 1; n <= 12; n++) recorded.record("env_a", call(n), { decision: "allow", hooks: [] });
  recorded.record("env_b", call(99), { decision: "deny", reason: "no", hooks: [] });
  expect(codes(recorded, "env_a")).toEqual(["echo 8", "echo 9", "echo 10", "echo 11", "echo 12"]);
  expect(codes(recorded, "env_b")).toEqual(["echo 99"]);
});

test("past the byte bound the oldest go", () => {
  const store = storeWith("env_a");
  const recorded = service(store, { calls: 1000, bytes: 200 });
  for (let n = 1; n <= 10; n++) recorded.record("env_a", { name: "code_execution", args: { code: `${"x".repeat(40)} ${n}` } }, { decision: "allow", hooks: [] });
  const kept = codes(recorded, "env_a");
  expect(kept.length).toBeLessThan(10);
  expect(kept.at(-1)).toMatch(/ 10$/);
  // Each row is `{"name":"code_execution","args":{"code":"…"}}`: about 80 bytes; 200 keep two.
  expect(kept).toHaveLength(2);
});

test("args over the size kept are left out and flagged; a deleted environment records nothing", () => {
  const store = storeWith("env_a");
  const recorded = service(store, { calls: 10, bytes: 4_000_000 });
  recorded.record("env_a", { name: "write_to_file", args: { path: "/a", content: "x".repeat(MAX_RECORDED_ARGS_BYTES) } }, { decision: "allow", hooks: [] });
  expect(recorded.list("o", "env_a", {}).tool_calls).toEqual([
    { tool_call: { name: "write_to_file" }, environment_id: "env_a", decision: "allow", time: "1970-01-01T00:00:01.000Z", args_omitted: true },
  ]);
  store.delete("o", "env_a");
  recorded.record("env_a", call(1), { decision: "allow", hooks: [] });
  expect(store.toolCallPage("env_a", 0, 0, 10)).toEqual([]);
});
