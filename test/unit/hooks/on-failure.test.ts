/**
 * `on_failure` compiled (hooks/on-failure.ts): the held hooks.json in the runtime's format, the
 * deadline before the runtime's timeout, the bundle-wide default; the linter's word on an HTTP
 * handler and on a held hooks.json; and the wrapper itself, run by bash as the sandbox runs it,
 * outside the sandbox (the sandbox runs are in test/integration/runtime/on-failure.test.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { command, group, hooksConfig, http } from "../../../hooks/builders";
import { lintHooks } from "../../../hooks/lint";
import { compileHooks, deadlineMs, FAIL_CLOSED_SCRIPT, FAIL_CLOSED_SCRIPT_NAME, failureClosed, withOnFailure } from "../../../hooks/on-failure";
import { discoverHooks } from "../../../hooks/runtime";
import { HookDecision, parseDecision } from "../../../hooks/schema";
import { serializeHooks } from "../../../hooks/serialize";

const scratch = mkdtempSync(path.join(os.tmpdir(), "genv-on-failure-unit-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const wrapper = path.join(scratch, FAIL_CLOSED_SCRIPT_NAME);
writeFileSync(wrapper, FAIL_CLOSED_SCRIPT);

describe("compileHooks", () => {
  const config = hooksConfig({
    gate: group()
      .before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10, onFailure: "deny" }), command("python3 /.agents/hooks-scripts/it's.py"))
      .after("*", http("https://telemetry.example.com/e"), command("python3 /.agents/hooks-scripts/fmt.py", { onFailure: "deny" })),
  });

  test("a deny pre handler runs the wrapper, its timeout written out; the others stay; no on_failure is left", () => {
    const compiled = compileHooks(config);
    const text = serializeHooks(compiled.config);
    expect(text).not.toContain("on_failure");
    expect(compiled.config.gate.pre_tool_execution![0].hooks).toEqual([
      { type: "command", command: "bash /.agents/hooks-scripts/genv-on-failure-deny.sh 8 'python3 /.agents/hooks-scripts/gate.py'", timeout: 10 },
      { type: "command", command: "python3 /.agents/hooks-scripts/it's.py" },
    ]);
    expect(compiled.scripts).toEqual({ [FAIL_CLOSED_SCRIPT_NAME]: FAIL_CLOSED_SCRIPT });
    // A post hook's output is ignored: it is not wrapped.
    expect(compiled.config.gate.post_tool_execution![0].hooks).toEqual([http("https://telemetry.example.com/e"), { type: "command", command: "python3 /.agents/hooks-scripts/fmt.py" }]);
    expect(compileHooks(hooksConfig({ gate: group().before("*", command("true")) })).scripts).toEqual({});
  });

  test("the bundle-wide default reaches the command handlers that set none; a quote in a command survives", () => {
    const defaulted = withOnFailure(hooksConfig({ gate: group().before("*", command("python3 /x/it's.py"), command("b", { onFailure: "allow" }), http("https://t.example.com")) }), "deny");
    expect(defaulted.gate.pre_tool_execution![0].hooks.map((handler) => handler.on_failure)).toEqual(["deny", "allow", undefined]);
    const wrapped = compileHooks(defaulted).config.gate.pre_tool_execution![0].hooks[0] as { command: string; timeout: number };
    expect(wrapped.timeout).toBe(30);
    expect(wrapped.command).toBe(`bash /.agents/hooks-scripts/genv-on-failure-deny.sh 25 'python3 /x/it'\\''s.py'`);
    // bash gives the wrapper the command line as written.
    const argv = spawnSync("/bin/bash", ["-c", wrapped.command.replace(/^bash \S+/, "printf '%s\\n'")], { encoding: "utf8" }).stdout;
    expect(argv).toBe("25\npython3 /x/it's.py\n");
  });

  test("the deadline leaves a fifth of the timeout, at least 0.5 s and at most 5 s", () => {
    expect([1, 3, 10, 30, 60].map(deadlineMs)).toEqual([500, 2400, 8000, 25000, 55000]);
  });
});

describe("lint", () => {
  test("an http handler with on_failure deny is an error saying why and what to do instead", () => {
    const findings = lintHooks({ audit: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://t.example.com", on_failure: "deny" }] }] } });
    expect(findings).toEqual([expect.objectContaining({ severity: "error", code: "http-on-failure-deny", path: "/audit/pre_tool_execution/0/hooks/0/on_failure" })]);
    expect(findings[0].message).toMatch(/made by the service.*Use a command handler that calls the URL/);
    expect(lintHooks({ audit: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://t.example.com", on_failure: "allow" }] }] } })).toEqual([]);
  });

  test("on_failure in a hooks.json an environment holds as it is: an error, and the runtime does not use the file", async () => {
    const held = { gate: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "true", on_failure: "deny" }] }] } };
    expect(lintHooks(held, { held: true }).map((finding) => finding.code)).toEqual(["on-failure-not-compiled"]);
    expect(lintHooks(held)).toEqual([]);
    const root = mkdtempSync(path.join(scratch, "tree-"));
    require("node:fs").mkdirSync(path.join(root, ".agents"));
    writeFileSync(path.join(root, ".agents/hooks.json"), JSON.stringify(held));
    const discovered = await discoverHooks(root);
    expect(discovered.config).toBeUndefined();
    expect((discovered as { failure: string }).failure).toMatch(/^hooks\.json not used: \/gate\/pre_tool_execution\/0\/hooks\/0\/on_failure: the runtime reads hooks\.json as it is/);
  });
});

describe("the wrapper", () => {
  const EVENT = JSON.stringify({ tool_call: { name: "code_execution", args: { code: "echo hi" } }, environment_id: "env_1" });
  const run = (handler: string, deadline = 2000, stdin = EVENT) => {
    const result = spawnSync("bash", [wrapper, String(deadline / 1000), handler], { input: stdin, encoding: "utf8", maxBuffer: 8 * 1024 * 1024 });
    return { status: result.status, stdout: result.stdout, decision: parseDecision(result.stdout), failure: failureClosed(result.stderr), stderr: result.stderr };
  };

  test("a decision passes through byte for byte, the event on the handler's stdin", () => {
    const allow = run(`python3 -c 'import json,sys; e=json.load(sys.stdin); print(json.dumps({"decision": "allow", "reason": e["tool_call"]["args"]["code"]}))'`);
    expect([allow.status, allow.stdout, allow.failure]).toEqual([0, '{"decision": "allow", "reason": "echo hi"}\n', undefined]);
    const deny = run(`cat >/dev/null; printf '  {"decision":"deny","reason":"no \\\\"quoted\\\\" \\\\u00e9"}  '`);
    expect([deny.stdout, deny.failure]).toEqual(['  {"decision":"deny","reason":"no \\"quoted\\" \\u00e9"}  ', undefined]);
    // Another order of keys, extra ones: read by python3 as the runtime reads it, passed through.
    const other = run(`printf '{"reason": "r", "decision": "deny", "by": 1}'`);
    expect([other.stdout, other.failure]).toEqual(['{"reason": "r", "decision": "deny", "by": 1}', undefined]);
    // 4 MiB of event reach a handler that reads it all.
    const big = JSON.stringify({ tool_call: { name: "write_to_file", args: { content: "x".repeat(4 << 20) } }, environment_id: "e" });
    expect(run(`python3 -c 'import sys; n=len(sys.stdin.read()); print("{\\"decision\\": \\"allow\\", \\"reason\\": \\"%d\\"}" % n)'`, 10_000, big).stdout).toBe(`{"decision": "allow", "reason": "${big.length}"}\n`);
  });

  test.each([
    ["exit 3", "crashed with exit 3"],
    ["kill -9 $$", "crashed with signal 9 (SIGKILL)"],
    ["echo note; echo '{\"decision\": \"allow\"}'", "printed no decision"],
    ["echo '{\"decision\": \"deny\", \"x\": NaN}'", "printed no decision"],
    ["echo '{\"decision\": \"deny\", \"reason\": 7}'", "printed no decision"],
    ["printf '{\"decision\": \"allow\"}\\0junk'", "printed no decision"],
    ["printf '{\"decision\": \"deny\",\\v\"reason\": \"x\"}'", "printed no decision"],
    ["python3 -c 'print(\"[\" * 100000)'", "printed no decision"],
    ["true", "printed no decision"],
    ["head -c 1048577 /dev/zero | tr '\\0' ' '", "printed more than 1 MiB"],
    ["sleep 30", "ran past its deadline of 0.5 s"],
  ])("%s: denied, the reason naming the failure (%s)", (handler, failure) => {
    const result = run(handler, 500);
    expect(result.status).toBe(0);
    expect(HookDecision.parse(JSON.parse(result.stdout))).toEqual({ decision: "deny", reason: `Denied: the hook \`${handler}\` ${failure} (on_failure: deny).` });
    expect(result.failure).toBe(failure);
  });

  test("past the deadline the handler's whole process group is killed; a background process does not hold the answer", () => {
    const marker = path.join(scratch, "survived");
    const started = Date.now();
    const result = run(`(sleep 1.5; touch ${marker}) & sleep 30`, 500);
    expect(result.failure).toBe("ran past its deadline of 0.5 s");
    expect(Date.now() - started).toBeLessThan(1400);
    spawnSync("sleep", ["1.6"]);
    expect(require("node:fs").existsSync(marker)).toBe(false);
    // The runtime's sandbox ends a handler's leftovers with it: so does the wrapper, and answers at once.
    const answered = Date.now();
    expect(run(`sleep 10 & echo '{"decision": "allow"}'`).decision).toEqual({ decision: "allow" });
    expect(Date.now() - answered).toBeLessThan(1500);
  });
});
