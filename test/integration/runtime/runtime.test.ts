/**
 * The hooks runtime against every rule of spec/HOOKS.md, with command hooks in the real sandbox.
 * Each handler appends its tag to /order.log, so the tests see what ran and in which order.
 */
import { existsSync, readFileSync, symlinkSync, mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { DEFAULT_DENY_REASON, discoverHooks, executeWithHooks, runHooks, type HttpDeliverer } from "../../../hooks/runtime";
import { HooksConfig, type HooksConfigInput } from "../../../hooks/schema";
import { sandboxHooks } from "../../../emulator/sandbox";
import { execute, hooksTree, order, tagged } from "./_fixtures";

const echo = { name: "code_execution", args: { code: "echo hi" } };
const DENY = (reason: string) => `{"decision": "deny", "reason": "${reason}"}`;

describe("which handlers run, and in which order", () => {
  test.each<{ rule: string; hooks: HooksConfigInput; ran: string[] }>([
    {
      rule: "every matching group runs, groups in declared order, handlers in declared order",
      hooks: {
        first: { pre_tool_execution: [{ matcher: "code_execution", hooks: [tagged("A"), tagged("B")] }] },
        second: { pre_tool_execution: [{ matcher: ".*", hooks: [tagged("C")] }] },
        other: { pre_tool_execution: [{ matcher: "view_file", hooks: [tagged("X")] }] },
        third: { pre_tool_execution: [{ matcher: "*", hooks: [tagged("D")] }] },
      },
      ran: ["A", "B", "C", "D", "TOOL"],
    },
    {
      rule: "every matching rule of one group runs, in declared order",
      hooks: { g: { pre_tool_execution: [{ matcher: "code_.*", hooks: [tagged("A")] }, { matcher: "", hooks: [tagged("B")] }] } },
      ran: ["A", "B", "TOOL"],
    },
    {
      rule: "enabled: false switches a group off; enabled: true and omitted run",
      hooks: {
        off: { enabled: false, pre_tool_execution: [{ matcher: "*", hooks: [tagged("OFF")] }] },
        on: { enabled: true, pre_tool_execution: [{ matcher: "*", hooks: [tagged("ON")] }] },
        implicit: { pre_tool_execution: [{ matcher: "*", hooks: [tagged("IMPLICIT")] }] },
      },
      ran: ["ON", "IMPLICIT", "TOOL"],
    },
    {
      rule: "an invalid matcher (a glob such as *_exec, a broken regex) skips only its own rule",
      hooks: {
        g: { pre_tool_execution: [{ matcher: "*_exec", hooks: [tagged("GLOB")] }, { matcher: "code_execution|view_file", hooks: [tagged("OK")] }] },
        h: { pre_tool_execution: [{ matcher: "(", hooks: [tagged("BROKEN")] }, { matcher: "code_execution", hooks: [tagged("ALSO")] }] },
      },
      ran: ["OK", "ALSO", "TOOL"],
    },
    {
      rule: "matchers are full matches: .*_file does not select code_execution, code does not either",
      hooks: { g: { pre_tool_execution: [{ matcher: ".*_file", hooks: [tagged("FILE")] }, { matcher: "code", hooks: [tagged("PREFIX")] }] } },
      ran: ["TOOL"],
    },
    {
      rule: "pre and post run around the tool, post in the same order rules",
      hooks: {
        a: { pre_tool_execution: [{ matcher: "*", hooks: [tagged("PRE-A")] }], post_tool_execution: [{ matcher: "*", hooks: [tagged("POST-A", "{}")] }] },
        b: { post_tool_execution: [{ matcher: "code_execution", hooks: [tagged("POST-B", "{}")] }] },
      },
      ran: ["PRE-A", "TOOL", "POST-A", "POST-B"],
    },
  ])("$rule", async ({ hooks, ran }) => {
    const root = hooksTree(hooks);
    const result = await execute(root, { name: "code_execution", args: { code: "echo TOOL >> /order.log; echo hi" } });
    expect(order(root)).toEqual(ran);
    expect(result.decision).toBe("allow");
    expect(result.hooks.map((h) => h.handler.match(/echo (\S+) >>/)?.[1])).toEqual(ran.filter((tag) => tag !== "TOOL"));
    expect(result.hooks.every((h) => h.failure === undefined)).toBe(true);
  });
});

describe("deny", () => {
  test("the first deny cancels the call: later handlers are skipped, the tool and post hooks never run", async () => {
    const root = hooksTree({
      first: { pre_tool_execution: [{ matcher: "*", hooks: [tagged("A"), tagged("B", DENY("no way")), tagged("C")] }] },
      second: {
        pre_tool_execution: [{ matcher: "*", hooks: [tagged("D")] }],
        post_tool_execution: [{ matcher: "*", hooks: [tagged("POST", "{}")] }],
      },
    });
    const tool = jest.fn();
    const result = await execute(root, echo, tool);
    expect(tool).not.toHaveBeenCalled();
    expect(order(root)).toEqual(["A", "B"]);
    expect(result).toMatchObject({ decision: "deny", reason: "no way", error: "no way" });
    expect(result.output).toBeUndefined();
    expect(result.hooks.map((h) => [h.group, h.event, h.decision])).toEqual([
      ["first", "pre_tool_execution", "allow"],
      ["first", "pre_tool_execution", "deny"],
      ["first", "pre_tool_execution", "skipped"],
      ["second", "pre_tool_execution", "skipped"],
    ]);
  });

  test("a deny without a reason still denies; the model sees a default reason", async () => {
    const root = hooksTree({ g: { pre_tool_execution: [{ matcher: "*", hooks: [tagged("A", '{"decision": "deny"}')] }] } });
    const result = await execute(root, echo);
    expect(result.decision).toBe("deny");
    expect(result.reason).toBeUndefined();
    expect(result.error).toBe(DEFAULT_DENY_REASON);
  });

  test("the pre payload on stdin is exactly {tool_call: {name, args}, environment_id}", async () => {
    const root = hooksTree({
      g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "cat > /stdin.json; echo '{}'" }] }] },
    });
    await execute(root, { name: "write_to_file", args: { path: "/workspace/a.txt", content: "x" } });
    expect(JSON.parse(readFileSync(path.join(root, "stdin.json"), "utf8"))).toStrictEqual({
      tool_call: { name: "write_to_file", args: { path: "/workspace/a.txt", content: "x" } },
      environment_id: "env_test",
    });
  });
});

describe("fail open: the tool runs whatever a broken hook does", () => {
  test.each([
    { case: "non-zero exit, even with a deny on stdout", stdout: DENY("ignored"), extra: "exit 3", failure: /^exited with status 3/ },
    { case: "a crashing script (Python traceback)", stdout: "", extra: "python3 -c 'raise RuntimeError(\"boom\")'", failure: /^exited with status 1: Traceback.*RuntimeError: boom/s },
    { case: "unrecognised JSON", stdout: '{"decision": "block", "reason": "x"}', failure: /^unrecognised output, counted as allow: \{"decision": "block"/ },
    { case: "plain text", stdout: "deny", failure: /^unrecognised output, counted as allow: deny$/ },
    { case: "deny with log lines before it on stdout", stdout: 'checking...\n{"decision": "deny"}', failure: /^unrecognised output/ },
    { case: "no output at all", stdout: "", failure: /\(empty\)$/ },
  ])("$case", async ({ stdout, extra, failure }) => {
    const root = hooksTree({ g: { pre_tool_execution: [{ matcher: "*", hooks: [tagged("A", stdout, { extra }), tagged("B")] }] } });
    const result = await execute(root, echo);
    expect(result).toMatchObject({ decision: "allow", output: "hi\n", exit_code: 0 });
    expect(result.hooks[0]).toMatchObject({ decision: "allow", failure: expect.stringMatching(failure) });
    expect(result.hooks[1]).toMatchObject({ decision: "allow" });
    expect(result.hooks[1].failure).toBeUndefined();
    expect(order(root)).toEqual(["A", "B"]);
  });

  test("a timeout kills the hook's process tree at `timeout` seconds and allows", async () => {
    // The background child would write /late.log after 2 s if the tree were not killed at 1 s.
    const slow = { type: "command" as const, command: "(sleep 2; echo late > /late.log) & sleep 30; echo '{\"decision\": \"deny\"}'", timeout: 1 };
    const root = hooksTree({ g: { pre_tool_execution: [{ matcher: "*", hooks: [slow] }] } });
    const started = Date.now();
    const result = await execute(root, echo);
    // Time is the point: the call goes on after the 1 s timeout, not after the hook's `sleep 30`; 5 s
    // leaves a loaded machine room. The late.log check below proves the kill itself.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result).toMatchObject({ decision: "allow", output: "hi\n" });
    expect(result.hooks[0]).toMatchObject({ decision: "allow", failure: "timed out after 1 s; the process tree was killed" });
    expect(result.hooks[0].duration_ms).toBeGreaterThanOrEqual(1000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(path.join(root, "late.log"))).toBe(false);
  });

  test("a script that cannot be found (python3 exits 2): allow", async () => {
    const root = hooksTree({ g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/missing.py" }] }] } });
    const result = await execute(root, echo);
    expect(result.decision).toBe("allow");
    expect(result.hooks[0].failure).toMatch(/^exited with status 2: .*missing\.py/);
  });
});

describe("post hooks", () => {
  const capture = { type: "command" as const, command: "cat >> /post.jsonl; echo >> /post.jsonl; echo '{\"decision\": \"deny\"}'" };
  const posted = (root: string) => readFileSync(path.join(root, "post.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));

  test.each([
    { case: "success: no error field", call: echo, error: undefined },
    { case: "stderr written: error holds it", call: { name: "code_execution", args: { code: "echo oops >&2" } }, error: "oops\n" },
    { case: "a filesystem error", call: { name: "view_file", args: { path: "/workspace/none.txt" } }, error: "/workspace/none.txt: No such file or directory" },
  ])("$case", async ({ call, error }) => {
    const root = hooksTree({ audit: { post_tool_execution: [{ matcher: "*", hooks: [capture] }] } });
    const result = await execute(root, call);
    expect(result.decision).toBe("allow");
    const [payload] = posted(root);
    expect(payload).toStrictEqual({ tool_call: call, environment_id: "env_test", ...(error !== undefined && { error }) });
    expect(Object.hasOwn(payload, "error")).toBe(error !== undefined);
    // A post hook's deny is ignored: the tool's result stands.
    expect(result.hooks).toEqual([expect.objectContaining({ event: "post_tool_execution", decision: "ignored" })]);
    expect(result.hooks[0].failure).toBeUndefined();
  });

  test("a failing post hook is recorded and changes nothing", async () => {
    const root = hooksTree({ audit: { post_tool_execution: [{ matcher: "*", hooks: [tagged("P", "", { extra: "exit 9" })] }] } });
    const result = await execute(root, echo);
    expect(result).toMatchObject({ decision: "allow", output: "hi\n" });
    expect(result.hooks[0]).toMatchObject({ decision: "ignored", failure: "exited with status 9" });
  });
});

describe("HTTP hooks", () => {
  const telemetry = { type: "http" as const, url: "https://telemetry.example.com/api/v1/agent-events", timeout: 10 };

  test("are not delivered without an egress proxy (as in genv hooks test): reported, fail open", async () => {
    const root = hooksTree({ audit: { pre_tool_execution: [{ matcher: "*", hooks: [telemetry] }] } });
    const result = await execute(root, echo);
    expect(result).toMatchObject({ decision: "allow", output: "hi\n" });
    expect(result.hooks).toEqual([
      {
        group: "audit",
        event: "pre_tool_execution",
        handler: "http: https://telemetry.example.com/api/v1/agent-events",
        decision: "allow",
        duration_ms: expect.any(Number),
        failure: expect.stringMatching(/^http hooks are not delivered here: .*POST https:\/\/telemetry\.example\.com/),
      },
    ]);
  });

  test("a deliverer plugs in: its 2xx deny denies, a non-2xx answer allows", async () => {
    const config = HooksConfig.parse({ audit: { pre_tool_execution: [{ matcher: "*", hooks: [telemetry, telemetry] }] } });
    const bodies: string[] = [];
    const answers = [{ status: 500, body: '{"decision": "deny"}' }, { status: 200, body: DENY("remote says no") }];
    const deliverHttp: HttpDeliverer = async ({ body }) => {
      bodies.push(body);
      return answers.shift()!;
    };
    const payload = { tool_call: echo, environment_id: "env_test" };
    const verdict = await runHooks(config, "pre_tool_execution", payload, { runCommand: jest.fn(), deliverHttp });
    expect(verdict).toMatchObject({ decision: "deny", reason: "remote says no" });
    expect(verdict.hooks.map((h) => [h.decision, h.failure])).toEqual([
      ["allow", "answered HTTP 500"],
      ["deny", undefined],
    ]);
    expect(bodies.map((b) => JSON.parse(b))).toEqual([payload, payload]);
  });
});

describe("discovery of .agents/hooks.json", () => {
  test("no file: no hooks, no entries", async () => {
    const root = hooksTree(undefined);
    expect(await discoverHooks(root)).toEqual({ config: {} });
    expect(await execute(root, echo)).toEqual({ decision: "allow", output: "hi\n", exit_code: 0, hooks: [] });
  });

  test.each([
    { case: "invalid JSON", file: "{ not json", failure: /^hooks\.json not used: invalid JSON/ },
    { case: "a schema error (unknown event)", file: JSON.stringify({ g: { pre_tool_use: [] } }), failure: /^hooks\.json not used: .*pre_tool_use/ },
    { case: "not an object of groups", file: "[]", failure: /^hooks\.json not used: / },
  ])("$case: no hooks run, one failure entry, the tool runs", async ({ file, failure }) => {
    const root = hooksTree(file);
    const result = await execute(root, echo);
    expect(result).toMatchObject({ decision: "allow", output: "hi\n" });
    expect(result.hooks).toEqual([
      { group: "", event: "pre_tool_execution", handler: ".agents/hooks.json", decision: "allow", duration_ms: 0, failure: expect.stringMatching(failure) },
    ]);
  });

  test("a symlink that climbs out of the tree is refused, not followed", async () => {
    const root = hooksTree(undefined);
    mkdirSync(path.join(root, ".agents"));
    symlinkSync("../../../../../../../../etc/passwd", path.join(root, ".agents/hooks.json"));
    const result = await execute(root, echo);
    expect(result.decision).toBe("allow");
    expect(result.hooks[0].failure).toMatch(/leads out of the environment tree/);
  });

  test("symlinks inside the tree are followed as the sandbox sees them (absolute = from the tree's root)", async () => {
    const root = hooksTree(undefined, {
      "config/hooks.json": JSON.stringify({ g: { pre_tool_execution: [{ matcher: "*", hooks: [tagged("LINKED", DENY("via link"))] }] } }),
    });
    symlinkSync("/config", path.join(root, ".agents"));
    const result = await execute(root, echo);
    expect(result).toMatchObject({ decision: "deny", reason: "via link" });
  });

  test("a directory at the hooks.json path is reported", async () => {
    const root = hooksTree(undefined);
    mkdirSync(path.join(root, ".agents/hooks.json"), { recursive: true });
    const result = await execute(root, echo);
    expect(result.hooks[0].failure).toMatch(/not a regular file/);
  });

  test("the snapshot read before the pre hooks serves the post hooks of the same call", async () => {
    const root = hooksTree({ g: { post_tool_execution: [{ matcher: "*", hooks: [tagged("POST", "{}")] }] } });
    writeFileSync(path.join(root, "empty.json"), "{}");
    const result = await executeWithHooks(
      {
        root,
        environmentId: "env_test",
        toolCall: echo,
        runTool: async () => {
          writeFileSync(path.join(root, ".agents/hooks.json"), "{}");
          return { output: "", failed: false };
        },
      },
      sandboxHooks(root),
    );
    expect(order(root)).toEqual(["POST"]);
    expect(result.hooks).toHaveLength(1);
  });
});
