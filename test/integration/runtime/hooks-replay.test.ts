/**
 * `genv hooks diff --calls`: recorded calls replayed through two sides' pre hooks in the real sandbox.
 * The flips found are exactly those the two gates imply (generated calls, fast-check); the calls the
 * emulator recorded over real HTTP replay; a malformed line is named and the rest replay; an HTTP hook
 * is not called unless `--http live`; `--fail-on` sets the exit code, through the real CLI.
 */
import fc from "fast-check";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runEnvCalls } from "../../../cli/commands/env-calls";
import { runHooksDiff } from "../../../cli/commands/hooks-diff";
import { buildProgram, runProgram } from "../../../cli/main";
import { inline, startTestEmulator, TEST_KEY } from "../../support/emulator";

const WORDS = ["rm -rf", "curl", "wget", "sudo", "echo", "ls"];
const GATE_HOOKS = {
  gate: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] },
};
/** Denies the first word of `blocked` (in order) that the code contains: `<word> is blocked`. */
const gate = (blocked: readonly string[]) => `import json, sys
code = json.load(sys.stdin)["tool_call"]["args"].get("code", "")
for word in ${JSON.stringify(blocked)}:
    if word in code:
        print(json.dumps({"decision": "deny", "reason": f"{word} is blocked"}))
        sys.exit(0)
print(json.dumps({"decision": "allow"}))
`;

const scratch = mkdtempSync(path.join(os.tmpdir(), "genv-hooks-replay-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let sides = 0;

/** A directory laid out like `.agents/`. */
function side(hooks: unknown, scripts: Record<string, string> = {}): string {
  const dir = path.join(scratch, `side-${++sides}`);
  mkdirSync(path.join(dir, "hooks-scripts"), { recursive: true });
  writeFileSync(path.join(dir, "hooks.json"), JSON.stringify(hooks));
  for (const [name, content] of Object.entries(scripts)) writeFileSync(path.join(dir, "hooks-scripts", name), content);
  return dir;
}
const gateSide = (blocked: readonly string[]) => side(GATE_HOOKS, { "gate.py": gate(blocked) });

function jsonl(lines: ReadonlyArray<unknown>): string {
  const file = path.join(scratch, `calls-${++sides}.jsonl`);
  writeFileSync(file, lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n") + "\n");
  return file;
}
const codeCall = (code: string, extra: Record<string, unknown> = {}) => ({ tool_call: { name: "code_execution", args: { code } }, environment_id: "env_rec", ...extra });

/** What `gate(blocked)` decides on `code`. */
function expected(blocked: readonly string[], code: string): { decision: "allow" | "deny"; reason?: string } {
  const word = blocked.find((candidate) => code.includes(candidate));
  return word === undefined ? { decision: "allow" } : { decision: "deny", reason: `${word} is blocked` };
}

test("the flips found are exactly those the two gates imply, on generated calls", async () => {
  const blockedList = fc.uniqueArray(fc.constantFrom(...WORDS), { maxLength: 3 });
  const code = fc.array(fc.constantFrom(...WORDS, "x", "/tmp"), { minLength: 1, maxLength: 3 }).map((parts) => parts.join(" "));
  await fc.assert(
    fc.asyncProperty(blockedList, blockedList, fc.array(code, { minLength: 1, maxLength: 8 }), fc.nat({ max: 3 }), async (baseBlocked, headBlocked, codes, repeats) => {
      // Each call recorded once or more: the report counts recorded calls, replays distinct ones.
      const lines = codes.flatMap((text, index) => Array.from({ length: 1 + ((index + repeats) % 3) }, () => codeCall(text)));
      const { calls } = await runHooksDiff({ base: gateSide(baseBlocked), head: gateSide(headBlocked), callsFile: jsonl(lines), format: "json" });
      const want = { total: lines.length, allowToDeny: 0, denyToAllow: 0, reasonChanged: 0, unchanged: 0, notReplayed: 0, errors: 0 };
      const flipped = new Map<string, { kind: string; count: number; base: object; head: object }>();
      for (const line of lines) {
        const text = line.tool_call.args.code;
        const before = expected(baseBlocked, text);
        const after = expected(headBlocked, text);
        const kind = before.decision !== after.decision ? (after.decision === "deny" ? "allowToDeny" : "denyToAllow") : before.reason !== after.reason ? "reasonChanged" : "unchanged";
        want[kind as keyof typeof want] += 1;
        if (kind !== "unchanged") flipped.set(text, { kind, count: (flipped.get(text)?.count ?? 0) + 1, base: before, head: after });
      }
      expect(calls!.summary).toEqual(want);
      expect(calls!.distinct).toBe(new Set(codes).size);
      const found = new Map(calls!.flips.map((flip) => [(flip.call.tool_call as { args: { code: string } }).args.code, { kind: flip.kind, count: flip.count, base: { decision: flip.base.decision, ...(flip.base.reason && { reason: flip.base.reason }) }, head: { decision: flip.head.decision, ...(flip.head.reason && { reason: flip.head.reason }) } }]));
      expect(found).toEqual(flipped);
    }),
    { numRuns: 6, seed: 34 },
  );
}, 300_000);

test("the calls the emulator recorded replay: against the same hooks nothing flips and the decisions are the recorded ones; against the change, what it denies", async () => {
  const emulator = await startTestEmulator();
  try {
    const created = await emulator.json("/v1beta/environments", {
      method: "POST",
      body: JSON.stringify({ sources: [inline(".agents/hooks.json", JSON.stringify(GATE_HOOKS)), inline(".agents/hooks-scripts/gate.py", gate(["rm -rf"]))] }),
    });
    const id = created.body.id as string;
    for (const code of ["echo hi", "rm -rf /tmp/x", "curl example.com", "echo hi"]) {
      await emulator.json(`/v1beta/environments/${id}:executeTool`, { method: "POST", body: JSON.stringify({ tool_call: { name: "code_execution", args: { code } } }) });
    }
    await emulator.json(`/v1beta/environments/${id}:executeTool`, { method: "POST", body: JSON.stringify({ tool_call: { name: "list_dir", args: { path: "/workspace" } } }) });
    const file = path.join(scratch, "recorded.jsonl");
    writeFileSync(file, (await runEnvCalls({ environment: id, env: { GOOGLE_GEMINI_BASE_URL: emulator.url, GEMINI_API_KEY: TEST_KEY } })).output);
    const recorded = readFileSync(file, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(recorded.map((call) => call.decision)).toEqual(["allow", "deny", "allow", "allow", "allow"]);

    const deployed = gateSide(["rm -rf"]);
    const same = await runHooksDiff({ base: deployed, head: deployed, callsFile: file, format: "json" });
    expect(same.calls!.summary).toEqual({ total: 5, allowToDeny: 0, denyToAllow: 0, reasonChanged: 0, unchanged: 5, notReplayed: 0, errors: 0 });
    // Against no hooks at all, the replayed base decisions show: the recorded deny, with its reason.
    const open = await runHooksDiff({ base: deployed, head: side({}), callsFile: file, format: "json" });
    expect(open.calls!.flips.map((flip) => [flip.kind, flip.lines, flip.base.reason])).toEqual([["denyToAllow", [2], recorded[1].reason]]);

    const change = await runHooksDiff({ base: deployed, head: gateSide(["rm -rf", "curl"]), callsFile: file, format: "json" });
    expect(change.calls!.summary).toEqual({ total: 5, allowToDeny: 1, denyToAllow: 0, reasonChanged: 0, unchanged: 4, notReplayed: 0, errors: 0 });
    expect(change.calls!.distinct).toBe(4);
    expect(change.calls!.flips).toEqual([
      {
        kind: "allowToDeny",
        call: { ...recorded[2] },
        count: 1,
        lines: [3],
        base: { decision: "allow", failedOpen: [] },
        head: { decision: "deny", reason: "curl is blocked", failedOpen: [] },
      },
    ]);
    expect(change.exitCode).toBe(0); // report only, without --fail-on
  } finally {
    await emulator.close();
  }
}, 120_000);

test("a malformed line is named by its number and the rest replay; post events replay as the same call's pre decision; extra fields are kept", async () => {
  const file = jsonl([
    codeCall("rm -rf /", { event: "pre_tool_execution", time: "2026-12-01T00:00:00Z" }),
    "{not json",
    { environment_id: "env_rec" },
    codeCall("rm -rf /", { event: "post_tool_execution", error: "x" }),
    "",
    codeCall("curl x", { event: "post_tool_execution", team: "infra" }),
  ]);
  const { calls, output } = await runHooksDiff({ base: gateSide(["rm -rf"]), head: gateSide(["curl"]), callsFile: file, format: "text" });
  expect(calls!.summary).toEqual({ total: 5, allowToDeny: 1, denyToAllow: 2, reasonChanged: 0, unchanged: 0, notReplayed: 0, errors: 2 });
  expect(calls!.errors).toEqual([
    { line: 2, message: expect.stringMatching(/^not JSON/) },
    { line: 3, message: expect.stringMatching(/^tool_call: is required/) },
  ]);
  expect(calls!.flips.map((flip) => [flip.kind, flip.count, flip.lines])).toEqual([
    ["allowToDeny", 1, [6]],
    ["denyToAllow", 2, [1, 4]],
  ]);
  expect(calls!.flips[0].call).toEqual(codeCall("curl x", { event: "post_tool_execution", team: "infra" }));
  expect(output).toContain("error  line 2: not JSON");
  expect(output).toMatch(/5 recorded calls \(2 distinct\): 1 allow → deny, 2 deny → allow, 0 reason changed, 0 unchanged, 0 not replayed, 2 errors\n$/);
}, 120_000);

test("each call sees its side's tree as built, whatever the calls before it wrote there", async () => {
  // Denies once it finds what an earlier call left; a fresh tree never holds it.
  const marking = side({
    mark: { pre_tool_execution: [{ matcher: ".*", hooks: [{ type: "command", command: `if [ -e /workspace/mark ] || [ -e /.agents/mark ]; then echo '{"decision": "deny", "reason": "left over"}'; else touch /workspace/mark /.agents/mark; echo '{"decision": "allow"}'; fi`, timeout: 10 }] }] },
  });
  const file = jsonl(["a", "b", "c", "d"].map((code) => codeCall(code)));
  const { calls } = await runHooksDiff({ base: gateSide([]), head: marking, callsFile: file, format: "json", concurrency: 1 });
  expect(calls!.summary).toMatchObject({ total: 4, unchanged: 4, errors: 0 });
}, 120_000);

test("a pull-request comment lists at most 50 distinct calls and sums up the rest", async () => {
  const file = jsonl(Array.from({ length: 60 }, (_, i) => codeCall(`sudo step ${i}`)));
  const { calls, output } = await runHooksDiff({ base: gateSide(["sudo"]), head: side({}), callsFile: file, format: "markdown" });
  expect(calls!.summary).toMatchObject({ total: 60, denyToAllow: 60 });
  expect(output.split("\n").filter((line) => line.startsWith("| 1 | deny → allow |"))).toHaveLength(50);
  expect(output).toContain("…and 10 more distinct calls (10 recorded: 10 deny → allow); `--format json` lists every one.");
  expect(output).toContain("| 1 | deny → allow | code_execution {\"code\":\"sudo step 0\"} in env_rec | deny (sudo is blocked) | allow |");
}, 180_000);

describe("HTTP hooks", () => {
  let server: Server;
  let posts: unknown[];
  let url: string;
  beforeAll(async () => {
    posts = [];
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        posts.push(JSON.parse(body));
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ decision: "deny", reason: "the audit service says no" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const httpSide = () => side({ audit: { pre_tool_execution: [{ matcher: ".*", hooks: [{ type: "http", url, timeout: 5 }] }] } });

  test("are not called: the calls that reach one are reported as not replayed", async () => {
    const file = jsonl([codeCall("echo a"), codeCall("echo b"), codeCall("echo a")]);
    const { calls, output } = await runHooksDiff({ base: gateSide([]), head: httpSide(), callsFile: file, format: "markdown" });
    expect(posts).toEqual([]);
    expect(calls!.summary).toMatchObject({ total: 3, notReplayed: 3, unchanged: 0 });
    expect(calls!.notReplayed[0]).toMatchObject({ count: 2, lines: [1, 3], why: expect.stringContaining(url) });
    expect(output).toContain(`Not replayed: 3 × HTTP hooks not called (--http live calls them): ${url}.`);
  }, 120_000);

  test("with --http live they are called, and their answer decides", async () => {
    const file = jsonl([codeCall("echo a")]);
    const { calls } = await runHooksDiff({ base: gateSide([]), head: httpSide(), callsFile: file, format: "json", http: "live" });
    expect(posts).toEqual([{ tool_call: { name: "code_execution", args: { code: "echo a" } }, environment_id: "env_rec" }]);
    expect(calls!.summary).toMatchObject({ total: 1, allowToDeny: 1 });
    expect(calls!.flips[0].head).toEqual({ decision: "deny", reason: "the audit service says no", failedOpen: [] });
  }, 120_000);
});

describe("--fail-on through the real command line", () => {
  const exitOf = async (...argv: string[]) => {
    const write = process.stdout.write;
    let printed = "";
    process.stdout.write = ((chunk: string) => ((printed += chunk), true)) as typeof process.stdout.write;
    const stderr = process.stderr.write;
    process.stderr.write = ((chunk: string) => ((printed += chunk), true)) as typeof process.stderr.write;
    process.exitCode = undefined;
    try {
      await runProgram(buildProgram(), ["node", "genv", ...argv], "genv");
      return { code: process.exitCode ?? 0, printed };
    } finally {
      process.stdout.write = write;
      process.stderr.write = stderr;
      process.exitCode = undefined;
    }
  };

  test("1 on a flip that way, 0 on the other way or without --fail-on, 2 for a replay error or a usage error", async () => {
    const base = gateSide(["rm -rf"]);
    const head = gateSide(["curl"]);
    const clean = jsonl([codeCall("curl x"), codeCall("ls")]); // allow → deny only
    const both = jsonl([codeCall("curl x"), codeCall("rm -rf /")]); // one each way
    const broken = jsonl([codeCall("ls"), "nope"]);
    const diff = (calls: string, ...more: string[]) => exitOf("hooks", "diff", "--base", base, "--head", head, "--calls", calls, "--format", "json", ...more);
    expect((await diff(clean)).code).toBe(0);
    expect((await diff(clean, "--fail-on", "allow-to-deny")).code).toBe(1);
    expect((await diff(clean, "--fail-on", "any")).code).toBe(1);
    expect((await diff(clean, "--fail-on", "deny-to-allow")).code).toBe(0);
    expect((await diff(both, "--fail-on", "deny-to-allow")).code).toBe(1);
    const replayError = await diff(broken, "--fail-on", "any");
    expect(replayError.code).toBe(2);
    expect(JSON.parse(replayError.printed).summary).toEqual({ total: 2, allowToDeny: 0, denyToAllow: 0, reasonChanged: 0, unchanged: 1, notReplayed: 0, errors: 1 });
    expect(await diff(clean, "--fail-on", "sometimes")).toMatchObject({ code: 2, printed: expect.stringContaining('--fail-on: "sometimes" is not one of any, allow-to-deny, deny-to-allow') });
    expect(await exitOf("hooks", "diff", "--base", base, "--head", head)).toMatchObject({ code: 2, printed: expect.stringContaining("give --cases FILE") });
    expect(await exitOf("hooks", "diff", "--base", base, "--head", head, "--calls", path.join(scratch, "missing.jsonl"))).toMatchObject({ code: 2, printed: expect.stringContaining("cannot read calls file") });
  }, 180_000);
});
