/**
 * `genv hooks diff`: the same cases against two commits of a repository's hooks, in the real
 * sandbox; what changed is reported, decisions changed set exit 1.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runHooksDiff } from "../../../cli/commands/hooks-diff";

const HOOKS = JSON.stringify({
  gate: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] },
});
const gate = (blocked: string[], crashOn?: string) => `import json, sys
code = json.load(sys.stdin)["tool_call"]["args"].get("code", "")
${crashOn ? `if ${JSON.stringify(crashOn)} in code:\n    raise SystemExit(3)\n` : ""}for word in ${JSON.stringify(blocked)}:
    if word in code:
        print(json.dumps({"decision": "deny", "reason": f"{word} is blocked"}))
        sys.exit(0)
print(json.dumps({"decision": "allow"}))
`;
const CASES = [
  { name: "rm", tool_call: { name: "code_execution", args: { code: "rm -rf /" } }, expect: "deny" },
  { name: "curl", tool_call: { name: "code_execution", args: { code: "curl evil.example" } }, expect: "deny" },
  { name: "echo", tool_call: { name: "code_execution", args: { code: "echo hi" } }, expect: "allow" },
  { name: "python", tool_call: { name: "code_execution", args: { code: "python3 -c 1" } }, expect: "allow" },
];

let repo: string;
const git = (...args: string[]) => execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { stdio: "pipe" });

beforeAll(() => {
  repo = mkdtempSync(path.join(os.tmpdir(), "genv-hooks-diff-repo-"));
  mkdirSync(path.join(repo, ".agents/hooks-scripts"), { recursive: true });
  writeFileSync(path.join(repo, ".agents/hooks.json"), HOOKS);
  writeFileSync(path.join(repo, ".agents/hooks-scripts/gate.py"), gate(["rm -rf"]));
  writeFileSync(path.join(repo, "cases.json"), JSON.stringify(CASES));
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "gate: rm");
  // The change under review: curl blocked too, and a crash on python.
  writeFileSync(path.join(repo, ".agents/hooks-scripts/gate.py"), gate(["rm -rf", "curl"], "python3"));
  git("commit", "-q", "-am", "gate: curl");
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

test("between two commits: the changed decision, the new fail-open; exit 1", async () => {
  const { changes, exitCode, output } = await runHooksDiff({ base: "HEAD~1", repo, casesFile: path.join(repo, "cases.json"), format: "json" });
  expect(exitCode).toBe(1);
  expect(changes.map(({ name, changed }) => ({ name, changed }))).toEqual([
    { name: "curl", changed: ["decision", "reason"] },
    { name: "python", changed: ["fails-open"] },
  ]);
  expect(changes[0]).toMatchObject({ base: { decision: "allow" }, head: { decision: "deny", reason: "curl is blocked" } });
  expect(changes[1].head.failedOpen[0]).toMatch(/^gate\/pre_tool_execution: .*exit/);
  expect(JSON.parse(output)).toMatchObject({ base: "HEAD~1", cases: 4 });
}, 120_000);

test("markdown for a pull-request comment; the same hooks on both sides change nothing: exit 0", async () => {
  const changed = await runHooksDiff({ base: "HEAD~1", repo, casesFile: path.join(repo, "cases.json"), format: "markdown" });
  expect(changed.output).toContain("| curl | decision, reason | allow | deny (curl is blocked) |");
  const same = await runHooksDiff({ base: "HEAD", head: path.join(repo, ".agents"), repo, casesFile: path.join(repo, "cases.json"), format: "markdown" });
  expect(same).toMatchObject({ exitCode: 0, changes: [] });
  expect(same.output).toContain("No decision, reason or fail-open changed.");
}, 120_000);

test("a base that is neither a directory nor a ref is refused, naming it", async () => {
  await expect(runHooksDiff({ base: "no-such-ref", repo, casesFile: path.join(repo, "cases.json") })).rejects.toThrow(/--base no-such-ref: neither a directory nor a git ref with \.agents/);
});
