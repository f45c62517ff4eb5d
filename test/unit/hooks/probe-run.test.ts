/**
 * The probe's engine on given run results (the sandbox's runs are the integration tests'): each run is
 * judged by the runtime itself, so a finding is exactly a run the runtime lets through with a failure,
 * classified by how it failed; what is not probed says why; runs a handler cannot tell apart are made
 * once; findings are grouped with the smallest payload; after TIMEOUT_CAP timeouts of a handler on a
 * tool, its larger payloads of that tool are left out.
 */
import type { CommandRun } from "../../../hooks/runtime";
import { probeCorpus, type ProbeCall } from "../../../hooks/probe/corpus";
import { acknowledgementOf, probeHooks, TIMEOUT_CAP, type CommandRunRequest, type ProbeOptions } from "../../../hooks/probe/run";
import { HooksConfig } from "../../../hooks/schema";

const ok = (stdout: string): CommandRun => ({ exitCode: 0, stdout, stderr: "", timedOut: false });
const gate = (name: string, matcher = "code_execution", timeout = 10) => ({ pre_tool_execution: [{ matcher, hooks: [{ type: "command", command: `python3 /.agents/hooks-scripts/${name}`, timeout }] }] });
// The smaller payload second: a finding must replace the first payload it met to report the smallest.
const calls: ProbeCall[] = [
  { tool: "code_execution", args: { code: "echo a much longer line" }, label: "b" },
  { tool: "code_execution", args: { code: "echo hi" }, label: "a" },
  { tool: "view_file", args: { path: "/workspace/a" }, label: "c" },
];

/**
 * `runCommands` as the sandbox's runner keeps its contract (emulator/sandbox/policy-cases.ts's
 * runCommandHandlers, one run at a time): each request in turn, `control.skip` asked first and a
 * skipped one not run, `control.done` told each result. `asked` gets the requests actually run.
 */
function runInTurn(answer: (request: CommandRunRequest) => CommandRun, asked: CommandRunRequest[]): ProbeOptions["runCommands"] {
  return async (requests, control) =>
    requests.map((request, index) => {
      if (control.skip(index)) return { skipped: true };
      asked.push(request);
      const result = answer(request);
      control.done(index, result);
      return result;
    });
}

/** Probes `config` with `answer` deciding each run's result; returns the report and the runs asked for. */
async function probe(config: unknown, answer: (request: CommandRunRequest) => CommandRun, probeCalls: readonly ProbeCall[] = calls) {
  const asked: CommandRunRequest[] = [];
  const report = await probeHooks(HooksConfig.parse(config), { seed: 1, calls: probeCalls, runCommands: runInTurn(answer, asked) });
  return { report, asked };
}

test.each<[string, CommandRun, string, Record<string, unknown>]>([
  ["a non-zero exit", { exitCode: 1, stdout: "", stderr: "Traceback …\nKeyError: 'code'", timedOut: false }, "crash", { exitStatus: 1, stderrTail: "Traceback …\nKeyError: 'code'" }],
  ["output past the limit", { exitCode: null, stdout: "", stderr: "", timedOut: false, truncated: true }, "crash", { exitStatus: null }],
  ["a run past the timeout", { exitCode: null, stdout: "", stderr: "", timedOut: true }, "timeout", { timeoutSeconds: 10 }],
  ["a note instead of a decision", ok("checking…\n"), "unrecognized-output", { output: "checking…" }],
  ["JSON that is no decision", ok('{"decision": "maybe"}'), "unrecognized-output", { output: '{"decision": "maybe"}' }],
])("%s is a finding, grouped with its smallest payload", async (_, run, outcome, detail) => {
  const { report } = await probe({ g: gate("g.py") }, () => run);
  expect(report.findings).toEqual([
    expect.objectContaining({ group: "g", event: "pre_tool_execution", handler: "command: python3 /.agents/hooks-scripts/g.py", tool: "code_execution", outcome, count: 2, input: "a", payload: { name: "code_execution", args: { code: "echo hi" } }, detail: expect.objectContaining(detail) }),
  ]);
  expect(report.summary.findings[outcome as keyof typeof report.summary.findings]).toBe(2);
});

test("a decision, allow or deny, is no finding; nor is the matcher's other tools' payloads run", async () => {
  const { report, asked } = await probe({ g: gate("g.py") }, (request) => ok(request.stdin.includes("longer") ? '{"decision": "deny", "reason": "no"}' : '{"decision": "allow"}'));
  expect(report.findings).toEqual([]);
  expect(asked.map((request) => JSON.parse(request.stdin).tool_call.name)).toEqual(["code_execution", "code_execution"]);
  expect(report.summary).toMatchObject({ handlers: 1, payloads: 2, runs: 2, skipped: 0, errors: 0 });
});

test("a disabled group, a matcher that matches no tool, and an HTTP handler without a deliverer are not probed, each with why", async () => {
  const { report, asked } = await probe(
    {
      off: { enabled: false, ...gate("off.py") },
      typo: gate("typo.py", "read_file"),
      audit: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://telemetry.example.com/e" }] }] },
    },
    () => ok("junk"),
  );
  expect(asked).toEqual([]);
  expect(report.findings).toEqual([]);
  expect(report.summary.notProbed.map((entry) => [entry.group, entry.why])).toEqual([
    ["off", "the group is disabled"],
    ["typo", 'its matcher "read_file" matches no sandbox tool'],
    ["audit", "HTTP handlers are probed only with --http live (the calls leave this machine)"],
  ]);
});

test("the same command in two groups and two rules runs once per payload; each group has its finding", async () => {
  const { report, asked } = await probe({ a: gate("g.py", "code_execution|view_file"), b: { pre_tool_execution: [...gate("g.py").pre_tool_execution, ...gate("g.py", "view_file").pre_tool_execution] } }, () => ok(""));
  expect(asked).toHaveLength(3);
  expect(report.summary).toMatchObject({ handlers: 2, payloads: 6, runs: 3 });
  expect(report.findings.map((finding) => [finding.group, finding.tool, finding.count])).toEqual([["a", "code_execution", 2], ["a", "view_file", 1], ["b", "code_execution", 2], ["b", "view_file", 1]]);
  expect(acknowledgementOf(report.findings[0])).toBe("fail-open:a:code_execution:unrecognized-output");
});

test("after 3 timeouts a handler's larger payloads of a tool are left out, the smallest still reported", async () => {
  const codes = ["echo 1", "echo 22222", "echo 333", "echo 4444444", "echo 55", "echo 666666"];
  const { report, asked } = await probe({ g: gate("g.py", "code_execution|view_file") }, () => ({ exitCode: null, stdout: "", stderr: "", timedOut: true }), [
    ...codes.map((code, index) => ({ tool: "code_execution" as const, args: { code }, label: `code ${index}` })),
    { tool: "view_file", args: { path: "/workspace/a" }, label: "view" },
  ]);
  expect(TIMEOUT_CAP).toBe(3);
  // The three smallest code payloads run, the larger three are left out; view_file's timeouts are counted apart.
  const run = asked.map((request) => JSON.parse(request.stdin).tool_call as { name: string; args: { code?: string } });
  expect(run.filter((call) => call.name === "code_execution").map((call) => call.args.code)).toEqual(["echo 1", "echo 55", "echo 333"]);
  expect(run.filter((call) => call.name === "view_file")).toHaveLength(1);
  expect(report.summary).toMatchObject({ payloads: 7, runs: 4, skipped: 3 });
  expect(report.findings.map((finding) => [finding.tool, finding.outcome, finding.count, finding.input])).toEqual([
    ["code_execution", "timeout", 3, "code 0"],
    ["view_file", "timeout", 1, "view"],
  ]);
});

test("a run that could not happen is an error, not a finding", async () => {
  const report = await probeHooks(HooksConfig.parse({ g: gate("g.py") }), { seed: 1, calls, runCommands: async (requests) => requests.map(() => ({ error: "the tree could not be built" })) });
  expect(report.findings).toEqual([]);
  expect(report.errors).toHaveLength(2);
  expect(report.errors[0]).toMatchObject({ group: "g", tool: "code_execution", message: "the tree could not be built" });
});

test("the whole corpus through a handler that answers: every call of the matched tools, no finding", async () => {
  const report = await probeHooks(HooksConfig.parse({ g: gate("g.py", ".*") }), { seed: 43, calls: probeCorpus(43), runCommands: async (requests) => requests.map(() => ok('{"decision": "allow"}')) });
  expect(report.summary.payloads).toBe(probeCorpus(43).length);
  expect(report.findings).toEqual([]);
});
