/**
 * `POST /v1beta/environments/{id}:executeTool` over real HTTP: the seed's worked examples end to end
 * (sources as the official client sends them, the example scripts of examples/), the tree's stats
 * after a write, and the error contract.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { inline, startTestEmulator, OTHER_KEY, type TestEmulator } from "../../support/emulator";
import { PRIVACY_GATE, REPO, SECURITY_GATE } from "./_fixtures";

const SECURITY_HOOKS = {
  "security-gate": {
    enabled: true,
    pre_tool_execution: [
      { matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] },
    ],
  },
};
const PRIVACY_HOOKS = {
  "privacy-gate": {
    pre_tool_execution: [
      { matcher: "view_file", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/check_privacy.py", timeout: 5 }] },
    ],
  },
};
const PRIVACY_REASON =
  "Access to confidential `/private/` records is blocked by PII compliance policy. Query approved `/public/` summary tables instead.";

let clock = Date.parse("2025-06-01T12:00:00Z");
let emulator: TestEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator({ now: () => clock, idleTtlMs: 3600_000 });
});
afterAll(() => emulator.close());

async function createEnvironment(sources: unknown[]): Promise<string> {
  const created = await emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ sources }) });
  expect(created.status).toBe(200);
  return created.body.id;
}

function executeTool(id: string, toolCall: unknown, segment = id, key?: string) {
  return emulator.json(`/v1beta/environments/${segment}:executeTool`, { method: "POST", body: JSON.stringify({ tool_call: toolCall }), key });
}

describe("security-gate (worked example 1)", () => {
  let id: string;
  beforeAll(async () => {
    id = await createEnvironment([
      inline(".agents/hooks.json", JSON.stringify(SECURITY_HOOKS)),
      inline(".agents/hooks-scripts/gate.py", readFileSync(SECURITY_GATE, "utf8")),
    ]);
  });

  test("rm -rf is denied with the gate's reason and never runs", async () => {
    const { status, body } = await executeTool(id, { name: "code_execution", args: { code: "rm -rf /.agents && echo gone", language: "bash" } });
    expect(status).toBe(200);
    expect(body).toEqual({
      decision: "deny",
      reason: "Destructive command blocked by security gate.",
      error: "Destructive command blocked by security gate.",
      hooks: [
        {
          group: "security-gate",
          event: "pre_tool_execution",
          handler: "command: python3 /.agents/hooks-scripts/gate.py",
          decision: "deny",
          duration_ms: expect.any(Number),
        },
      ],
    });
    const files = await emulator.json(`/v1beta/environments/${id}/files/.agents?recursive=true`);
    expect(files.body.files.map((f: { path: string }) => f.path)).toContain(".agents/hooks.json");
  });

  test("echo hello runs and returns its output", async () => {
    const { status, body } = await executeTool(id, { name: "code_execution", args: { code: "echo hello" } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ decision: "allow", output: "hello\n", exit_code: 0 });
    expect(body.error).toBeUndefined();
    expect(body.hooks).toEqual([expect.objectContaining({ group: "security-gate", decision: "allow" })]);
  });

  test("the gate only guards code_execution: file tools run without hooks", async () => {
    const { body } = await executeTool(id, { name: "list_dir", args: { path: "/.agents" } });
    expect(body).toEqual({ decision: "allow", output: "hooks-scripts/\nhooks.json", hooks: [] });
  });

  test("the environment segment may carry the environments/ prefix, encoded", async () => {
    const { status, body } = await executeTool(id, { name: "code_execution", args: { code: "echo prefixed" } }, `environments%2F${id}`);
    expect(status).toBe(200);
    expect(body.output).toBe("prefixed\n");
  });
});

describe("privacy-gate (worked example 2, two interactions in one environment)", () => {
  test("the private records are refused with the policy's reason; the public summary is read", async () => {
    const workspace = path.join(REPO, "examples/privacy-gate/workspace");
    const summary = readFileSync(path.join(workspace, "public/summary.json"), "utf8");
    const id = await createEnvironment([
      inline(".agents/hooks.json", JSON.stringify(PRIVACY_HOOKS)),
      inline(".agents/hooks-scripts/check_privacy.py", readFileSync(PRIVACY_GATE, "utf8")),
      inline("workspace/private/employees.json", readFileSync(path.join(workspace, "private/employees.json"), "utf8")),
      inline("workspace/public/summary.json", summary),
    ]);

    const refused = await executeTool(id, { name: "view_file", args: { path: "/workspace/private/employees.json" } });
    expect(refused.body).toMatchObject({ decision: "deny", reason: PRIVACY_REASON, error: PRIVACY_REASON });
    expect(refused.body.output).toBeUndefined();

    const read = await executeTool(id, { name: "view_file", args: { path: "/workspace/public/summary.json" } });
    expect(read.body).toMatchObject({ decision: "allow", output: summary });
    expect(read.body.hooks).toEqual([expect.objectContaining({ group: "privacy-gate", decision: "allow" })]);
  });
});

describe("the files API and GetEnvironment stay true after a tool call", () => {
  test("write_to_file: the file is listed, file_count, size_bytes and updated follow; a read moves only last_accessed", async () => {
    const id = await createEnvironment([inline("workspace/a.txt", "abc")]);
    const before = (await emulator.json(`/v1beta/environments/${id}`)).body;
    expect(before).toMatchObject({ file_count: "1", size_bytes: "3" });
    // Prime the recursive-listing cache: it must not serve the old listing after the write.
    expect((await emulator.json(`/v1beta/environments/${id}/files?recursive=true`)).body.files).toHaveLength(1);

    clock += 5_000;
    const wrote = await executeTool(id, { name: "write_to_file", args: { path: "/workspace/notes/b.md", content: "hello world" } });
    expect(wrote.body).toMatchObject({ decision: "allow", output: "Wrote 11 bytes to /workspace/notes/b.md" });
    const after = (await emulator.json(`/v1beta/environments/${id}`)).body;
    expect(after).toMatchObject({ file_count: "2", size_bytes: "14", updated: "2025-06-01T12:00:05Z", last_accessed: "2025-06-01T12:00:05Z" });
    const listed = (await emulator.json(`/v1beta/environments/${id}/files?recursive=true`)).body.files;
    expect(listed.map((f: { path: string }) => f.path)).toEqual(["workspace/a.txt", "workspace/notes/b.md"]);
    const download = await emulator.call(`/v1beta/environments/${id}/files/workspace/notes/b.md?alt=media`);
    expect(await download.text()).toBe("hello world");

    clock += 5_000;
    await executeTool(id, { name: "view_file", args: { path: "/workspace/a.txt" } });
    const read = (await emulator.json(`/v1beta/environments/${id}`)).body;
    expect(read).toMatchObject({ updated: "2025-06-01T12:00:05Z", last_accessed: "2025-06-01T12:00:10Z", file_count: "2" });
  });

  test("a same-size rewrite by code_execution still moves updated", async () => {
    const id = await createEnvironment([inline("workspace/a.txt", "abc")]);
    clock += 5_000;
    await executeTool(id, { name: "code_execution", args: { code: "printf xyz > /workspace/a.txt" } });
    const after = (await emulator.json(`/v1beta/environments/${id}`)).body;
    expect(after).toMatchObject({ file_count: "1", size_bytes: "3", updated: new Date(clock).toISOString().replace(".000", "") });
  });

  test("delete_file lowers the counts", async () => {
    const id = await createEnvironment([inline("workspace/a.txt", "abc"), inline("workspace/b.txt", "de")]);
    await executeTool(id, { name: "delete_file", args: { path: "/workspace/b.txt" } });
    expect((await emulator.json(`/v1beta/environments/${id}`)).body).toMatchObject({ file_count: "1", size_bytes: "3" });
  });
});

test("a self_hosted environment's tools run in the local sandbox too, through its hooks (the emulator stands in for the daemon)", async () => {
  const created = await emulator.json("/v1beta/environments", {
    method: "POST",
    body: JSON.stringify({
      mode: "self_hosted",
      custom_config: { pool: "local" },
      sources: [inline(".agents/hooks.json", JSON.stringify(SECURITY_HOOKS)), inline(".agents/hooks-scripts/gate.py", readFileSync(SECURITY_GATE, "utf8"))],
    }),
  });
  expect(created.body.environment_key).toMatch(/^envkey_/);
  const allowed = await executeTool(created.body.id, { name: "code_execution", args: { code: "echo from-self-hosted" } });
  expect(allowed.body).toMatchObject({ decision: "allow", output: "from-self-hosted\n", exit_code: 0 });
  const denied = await executeTool(created.body.id, { name: "code_execution", args: { code: "rm -rf /" } });
  expect(denied.body).toMatchObject({ decision: "deny", reason: "Destructive command blocked by security gate." });
});

describe("errors", () => {
  let id: string;
  beforeAll(async () => {
    id = await createEnvironment([inline("workspace/a.txt", "abc")]);
  });

  test.each([
    { case: "unknown tool", toolCall: { name: "read_file", args: { path: "/a" } }, message: /^tool_call\.name: unknown tool "read_file"; expected one of code_execution, view_file/ },
    { case: "missing argument", toolCall: { name: "view_file", args: {} }, message: /^tool_call\.args\.path: / },
    { case: "wrong argument type", toolCall: { name: "code_execution", args: { code: 1 } }, message: /^tool_call\.args\.code: must be a string/ },
    { case: "no tool_call", toolCall: undefined, message: /^tool_call: is required/ },
    { case: "args not an object", toolCall: { name: "view_file", args: "x" }, message: /^tool_call\.args: must be an object/ },
  ])("$case: 400 INVALID_ARGUMENT naming the field", async ({ toolCall, message }) => {
    const { status, body } = await executeTool(id, toolCall);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", message: expect.stringMatching(message) });
  });

  test("unknown environment, or another key's: 404 NOT_FOUND", async () => {
    const missing = await executeTool("env_00000000000000000000", { name: "list_dir", args: { path: "/" } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.status).toBe("NOT_FOUND");
    const foreign = await executeTool(id, { name: "list_dir", args: { path: "/" } }, id, OTHER_KEY);
    expect(foreign.status).toBe(404);
  });

  test("GET is not a method of :executeTool", async () => {
    const response = await emulator.call(`/v1beta/environments/${id}:executeTool`);
    expect(response.status).toBe(404);
  });

  test("an expired environment: 400 FAILED_PRECONDITION, its files still readable", async () => {
    const stale = await createEnvironment([inline("workspace/a.txt", "abc")]);
    clock += 2 * 3600_000;
    const { status, body } = await executeTool(stale, { name: "code_execution", args: { code: "echo hi" } });
    expect(status).toBe(400);
    expect(body).toEqual({
      error: {
        code: 400,
        status: "FAILED_PRECONDITION",
        message: `environment ${stale} is expired: its files are a read-only snapshot; create a new environment`,
      },
    });
    const download = await emulator.call(`/v1beta/environments/${stale}/files/workspace/a.txt?alt=media`);
    expect(await download.text()).toBe("abc");
  });
});
