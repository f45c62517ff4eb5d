/**
 * Hooks mounted from a repository source are read-only in the sandbox, the tamper-resistant option
 * the hooks spec recommends: the agent cannot rewrite hooks.json or the gate, and the gate still holds.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestEmulator, type TestEmulator } from "../../support/emulator";
import { SECURITY_GATE } from "./_fixtures";

let emulator: TestEmulator;
let repo: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  repo = mkdtempSync(path.join(os.tmpdir(), "genv-guardrails-"));
  const hooks = { "security-gate": { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] } };
  writeFileSync(path.join(repo, "hooks.json"), JSON.stringify(hooks));
  mkdirSync(path.join(repo, "hooks-scripts"));
  copyFileSync(SECURITY_GATE, path.join(repo, "hooks-scripts", "gate.py"));
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd: repo });
  git("init", "--quiet");
  git("add", "-A");
  git("commit", "--quiet", "-m", "guardrails");
});
afterAll(async () => {
  await emulator.close();
  rmSync(repo, { recursive: true, force: true });
});

const executeTool = async (id: string, name: string, args: Record<string, unknown>) =>
  (await emulator.json(`/v1beta/environments/${id}:executeTool`, { method: "POST", body: JSON.stringify({ tool_call: { name, args } }) })).body;

test("the agent can read but not change hooks from a repository source, and they keep guarding", async () => {
  const created = await emulator.json("/v1beta/environments", {
    method: "POST",
    body: JSON.stringify({
      sources: [
        { type: "repository", source: `file://${repo}`, target: ".agents" },
        { type: "inline", target: "workspace/notes.txt", content: "writable\n" },
      ],
    }),
  });
  expect(created.status).toBe(200);
  const id = created.body.id;

  const tamper = await executeTool(id, "code_execution", { code: "echo '{}' > /.agents/hooks.json; rm -f /.agents/hooks-scripts/gate.py; echo done" });
  expect(tamper.decision).toBe("allow");
  expect(tamper.error).toMatch(/Read-only file system/);
  expect((await executeTool(id, "write_to_file", { path: "/.agents/hooks.json", content: "{}" })).error).toMatch(/[Rr]ead-only/);
  expect((await executeTool(id, "view_file", { path: "/.agents/hooks-scripts/gate.py" })).output).toContain("rm -rf");

  expect(await executeTool(id, "code_execution", { code: "rm -rf /tmp/forbidden" })).toMatchObject({
    decision: "deny",
    reason: "Destructive command blocked by security gate.",
  });
  expect(await executeTool(id, "write_to_file", { path: "/workspace/notes.txt", content: "changed\n" })).toMatchObject({ decision: "allow" });
  expect(await (await emulator.call(`/v1beta/environments/${id}/files/workspace/notes.txt?alt=media`)).text()).toBe("changed\n");

  // A fork holds the same repository content, read-only as well.
  const fork = (await emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ from_environment: id }) })).body.id;
  expect((await executeTool(fork, "write_to_file", { path: "/.agents/hooks.json", content: "{}" })).error).toMatch(/[Rr]ead-only/);
});

test("read-only content moved away through a writable parent stops every later tool call", async () => {
  const created = await emulator.json("/v1beta/environments", {
    method: "POST",
    body: JSON.stringify({ sources: [{ type: "repository", source: `file://${repo}`, target: "tools/guard" }] }),
  });
  const id = created.body.id;
  expect((await executeTool(id, "write_to_file", { path: "/tools/guard/hooks.json", content: "{}" })).error).toMatch(/[Rr]ead-only/);
  const moved = await executeTool(id, "code_execution", { code: "mv /tools /moved && echo moved" });
  expect(moved.output).toBe("moved\n");
  const after = await emulator.json(`/v1beta/environments/${id}:executeTool`, {
    method: "POST",
    body: JSON.stringify({ tool_call: { name: "write_to_file", args: { path: "/moved/guard/hooks.json", content: "{}" } } }),
  });
  expect(after.status).toBe(400);
  expect(after.body.error).toMatchObject({ status: "FAILED_PRECONDITION", message: expect.stringContaining("/tools/guard") });
});
