/**
 * The probe's engine on given run results (the sandbox's runs are the integration tests'): each run is
 * judged by the runtime itself, so a finding is exactly a run the runtime lets through with a failure,
 * classified by how it failed; what is not probed says why; runs a handler cannot tell apart are made
 * once; findings are grouped with the smallest payload.
 */
import type { CommandRun } from "../../../hooks/runtime";
import { probeCorpus, type ProbeCall } from "../../../hooks/probe/corpus";
import { acknowledgementOf, probeHooks, type CommandRunRequest } from "../../../hooks/probe/run";
import { HooksConfig } from "../../../hooks/schema";

const ok = (stdout: string): CommandRun => ({ exitCode: 0, stdout, stderr: "", timedOut: false });
const gate = (name: string, matcher = "code_execution", timeout = 10) => ({ pre_tool_execution: [{ matcher, hooks: [{ type: "command", command: `python3 /.agents/hooks-scripts/${name}`, timeout }] }] });
const calls: ProbeCall[] = [
  { tool: "code_execution", args: { code: "echo hi" }, label: "a" },
  { tool: "code_execution", args: { code: "echo a much longer line" }, label: "b" },
  { tool: "view_file", args: { path: "/workspace/a" }, label: "c" },
];

/** Probes `config` with `answer` deciding each run's result; returns the report and the runs asked for. */
async function probe(config: unknown, answer: (request: CommandRunRequest) => CommandRun) {
  const asked: CommandRunRequest[] = [];
  const report = await probeHooks(HooksConfig.parse(config), {
    seed: 1,
    calls,
    runCommands: async (requests) => {
      asked.push(...requests);
      return requests.map(answer);
    },
  });
  return { report, asked };
}

test.each<[string, CommandRun, string, Record<string, unknown>]>([
  ["a non-zero exit", { exitCode: 1, stdout: "", stderr: "Traceback …\nKeyError: 'code'", timedOut: false }, "crash", { exitStatus: 1, stderrTail: "Traceback …\nKeyError: 'code'" }],
  ["output past the limit", { exitCode: null, stdout: "", stderr: "", timedOut: false, truncated: true }, "crash", { exitStatus: null }],
  ["a run past the timeout", { exitCode: null, stdout: "", stderr: "", timedOut: true }, "timeout", { timeoutSeconds: 10 }],
  ["a note instead of a decision", ok("checking…\n"), "unrecognized-output", { output: "checking…" }],
  ["JSON that is no decision", ok('{"decision": "maybe"}'), "unrecognized-output", { output: '{"decision": "maybe"}' }],
])("%s is a finding", async (_, run, outcome, detail) => {
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
