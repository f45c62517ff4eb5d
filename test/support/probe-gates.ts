/**
 * Gates for the probe's tests: three that fail open each their own way on payloads an agent can
 * send, written the way such gates get written, and one that never does. Laid out like `.agents/`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Logs the command to a Latin-1 file first: any character beyond Latin-1 raises, exit 1. */
const CRASHY = `import json, sys
event = json.load(sys.stdin)
code = event["tool_call"]["args"]["code"]
sys.stderr.write("audit: " + code.encode("latin-1").decode("latin-1")[:40] + "\\n")
print(json.dumps({"decision": "deny", "reason": "no sudo"} if "sudo" in code else {"decision": "allow"}))
`;

/** Asks about each word in turn (a lookup, a millisecond each): a long script takes longer than its 3 s. */
const SLOW = `import json, sys, time
event = json.load(sys.stdin)
for word in event["tool_call"]["args"]["code"].split():
    time.sleep(0.001)
print(json.dumps({"decision": "allow"}))
`;

/** Prints a note before its decision for a path it finds odd: the runtime sees no decision. */
const CHATTY = `import json, sys
event = json.load(sys.stdin)
path = event["tool_call"]["args"]["path"]
if " " in path or not path.isascii():
    print("note: unusual file name, allowed")
if "/private/" in path:
    print(json.dumps({"decision": "deny", "reason": "private records"}))
else:
    print(json.dumps({"decision": "allow"}))
`;

/** Reads anything, decides on every payload (the security gate's way), for every tool. */
const ROBUST = `import json, re, sys
DESTRUCTIVE = re.compile(r"\\brm\\s+-(rf|fr)\\b")
def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
try:
    event = json.load(sys.stdin)
except ValueError:
    event = {}
args = event.get("tool_call", {}).get("args", {}) if isinstance(event, dict) else {}
if any(DESTRUCTIVE.search(text) for text in strings(args)):
    print(json.dumps({"decision": "deny", "reason": "Destructive command blocked."}))
else:
    print(json.dumps({"decision": "allow"}))
`;

const rule = (matcher: string, script: string, timeout: number) => ({ matcher, hooks: [{ type: "command" as const, command: `python3 /.agents/hooks-scripts/${script}`, timeout }] });

export const PROBE_HOOKS = {
  crashy: { pre_tool_execution: [rule("code_execution", "crashy.py", 10)] },
  slow: { pre_tool_execution: [rule("code_execution", "slow.py", 3)] },
  chatty: { pre_tool_execution: [rule("view_file|list_dir", "chatty.py", 10)] },
  robust: { pre_tool_execution: [rule(".*", "robust.py", 10)] },
};

export const PROBE_SCRIPTS: Record<string, string> = { "crashy.py": CRASHY, "slow.py": SLOW, "chatty.py": CHATTY, "robust.py": ROBUST };

/**
 * A call on which each of crashy, slow and chatty fails open, and what the on_failure "deny" wrapper says
 * of it (slow's timeout of 3 s leaves a deadline of 2.4 s).
 */
export const FAIL_OPEN_CALLS = [
  { name: "crash beyond Latin-1", tool_call: { name: "code_execution", args: { code: "echo 日本語", language: "bash" } }, failure: "crashed with exit 1" },
  { name: "timeout on a long script", tool_call: { name: "code_execution", args: { code: "echo a ".repeat(4000), language: "bash" } }, failure: "ran past its deadline of 2.4 s" },
  { name: "a note instead of a decision", tool_call: { name: "view_file", args: { path: "/workspace/my notes.txt" } }, failure: "printed no decision" },
];
/** Ordinary calls, with the decision of crashy, slow and chatty together. */
export const ORDINARY_CALLS = [
  { name: "crashy denies sudo", tool_call: { name: "code_execution", args: { code: "sudo ls", language: "bash" } }, expect: "deny", reason: "no sudo" },
  { name: "the gates allow echo", tool_call: { name: "code_execution", args: { code: "echo hello", language: "bash" } }, expect: "allow" },
  { name: "chatty denies private records", tool_call: { name: "view_file", args: { path: "/workspace/private/employees.json" } }, expect: "deny", reason: "private records" },
  { name: "chatty allows a public file", tool_call: { name: "view_file", args: { path: "/workspace/public/summary.json" } }, expect: "allow" },
];

/** Writes `hooks` and `scripts` under `dir` as `.agents/` holds them; returns hooks.json's path. */
export function writeAgentsDir(dir: string, hooks: unknown, scripts: Record<string, string>): string {
  mkdirSync(path.join(dir, "hooks-scripts"), { recursive: true });
  writeFileSync(path.join(dir, "hooks.json"), JSON.stringify(hooks, null, 2));
  for (const [name, content] of Object.entries(scripts)) writeFileSync(path.join(dir, "hooks-scripts", name), content);
  return path.join(dir, "hooks.json");
}
