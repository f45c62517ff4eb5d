/**
 * The calls the emulator executed, recorded per environment: `GET …/environments/{id}/toolCalls` over
 * real HTTP and `genv env calls` as JSON lines, with the decisions the real sandbox's hooks gave;
 * `--since`, `--limit`, another key, and the record going with its environment.
 */
import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import * as path from "node:path";
import { runEnvCalls } from "../../../cli/commands/env-calls";
import { CLIError } from "../../../cli/errors";
import { inline, OTHER_KEY, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";
import { SECURITY_GATE } from "./_fixtures";

const HOOKS = {
  "security-gate": {
    pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }],
  },
};
const DENIED = "Destructive command blocked by security gate.";

let clock = Date.parse("2026-12-01T10:00:00Z");
let dataDir: string;
let emulator: TestEmulator;
let id: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "genv-recorded-"));
  emulator = await startTestEmulator({ dataDir, now: () => clock });
  const created = await emulator.json("/v1beta/environments", {
    method: "POST",
    body: JSON.stringify({ sources: [inline(".agents/hooks.json", JSON.stringify(HOOKS)), inline(".agents/hooks-scripts/gate.py", readFileSync(SECURITY_GATE, "utf8"))] }),
  });
  id = created.body.id;
  const execute = async (toolCall: unknown) => expect((await emulator.json(`/v1beta/environments/${id}:executeTool`, { method: "POST", body: JSON.stringify({ tool_call: toolCall }) })).status).toBe(200);
  await execute({ name: "code_execution", args: { code: "echo hi" } });
  clock += 60_000;
  await execute({ name: "code_execution", args: { code: "rm -rf /workspace" } });
  clock += 60_000;
  await execute({ name: "view_file", args: { path: "/workspace/missing.txt" } });
  // Refused before any hook ran: not recorded.
  expect((await emulator.json(`/v1beta/environments/${id}:executeTool`, { method: "POST", body: JSON.stringify({ tool_call: { name: "read_file", args: {} } }) })).status).toBe(400);
}, 60_000);
afterAll(async () => {
  await emulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = () => ({ GOOGLE_GEMINI_BASE_URL: emulator.url, GEMINI_API_KEY: TEST_KEY });
const lines = (output: string) => output.trimEnd().split("\n").map((line) => JSON.parse(line));

test("each executed call as a hook payload with its decision, reason, time and the failed tool's error, oldest first", async () => {
  const { output } = await runEnvCalls({ environment: id, env: env() });
  expect(output.endsWith("\n")).toBe(true);
  const calls = lines(output);
  expect(calls).toEqual([
    { tool_call: { name: "code_execution", args: { code: "echo hi" } }, environment_id: id, decision: "allow", time: "2026-12-01T10:00:00.000Z" },
    { tool_call: { name: "code_execution", args: { code: "rm -rf /workspace" } }, environment_id: id, decision: "deny", reason: DENIED, time: "2026-12-01T10:01:00.000Z" },
    { tool_call: { name: "view_file", args: { path: "/workspace/missing.txt" } }, environment_id: id, decision: "allow", error: expect.stringContaining("missing.txt"), time: "2026-12-01T10:02:00.000Z" },
  ]);
});

test("--since a time or a duration, --limit the most recent; the API pages them", async () => {
  expect(lines((await runEnvCalls({ environment: id, env: env(), since: "2026-12-01T10:01:00Z" })).output).map((call) => call.time)).toEqual(["2026-12-01T10:01:00.000Z", "2026-12-01T10:02:00.000Z"]);
  const now = () => Date.parse("2026-12-01T10:02:30Z");
  expect(lines((await runEnvCalls({ environment: id, env: env(), since: "1m", now })).output).map((call) => call.time)).toEqual(["2026-12-01T10:02:00.000Z"]);
  expect(lines((await runEnvCalls({ environment: id, env: env(), limit: "2" })).output).map((call) => call.decision)).toEqual(["deny", "allow"]);
  const first = await emulator.json(`/v1beta/environments/${id}/toolCalls?page_size=2`);
  expect(first.body.tool_calls).toHaveLength(2);
  const second = await emulator.json(`/v1beta/environments/${id}/toolCalls?page_size=2&page_token=${first.body.next_page_token}`);
  expect(second.body).toEqual({ tool_calls: [expect.objectContaining({ tool_call: { name: "view_file", args: { path: "/workspace/missing.txt" } } })] });
});

test("bad flags are exit 2, a bad since is the API's 400 naming it, another key's environment a 404", async () => {
  const refused = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as CLIError);
  expect(await refused(runEnvCalls({ environment: id, env: env(), since: "yesterday" }))).toMatchObject({ exitCode: 2, message: expect.stringContaining("--since yesterday") });
  expect(await refused(runEnvCalls({ environment: id, env: env(), limit: "0" }))).toMatchObject({ exitCode: 2 });
  expect(await emulator.json(`/v1beta/environments/${id}/toolCalls?since=monday`)).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^since: must be an RFC 3339 time/) } } });
  expect(await refused(runEnvCalls({ environment: id, env: { ...env(), GEMINI_API_KEY: OTHER_KEY } }))).toMatchObject({ exitCode: 1, message: expect.stringContaining("not found") });
});

test("the record goes with its environment", async () => {
  const count = () => {
    const db = new Database(path.join(dataDir, "environments.sqlite"), { readonly: true });
    try {
      return db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM tool_calls WHERE environment_id = ?").get(id)!.n;
    } finally {
      db.close();
    }
  };
  expect(count()).toBe(3);
  expect((await emulator.json(`/v1beta/environments/${id}`, { method: "DELETE" })).status).toBe(200);
  expect(count()).toBe(0);
  expect((await emulator.json(`/v1beta/environments/${id}/toolCalls`)).status).toBe(404);
});
