/** `genv exec` against a real emulator, and `genv hooks test` with the examples' scripts. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Command } from "commander";
import { CLIError } from "../../../cli/errors";
import * as exec from "../../../cli/commands/exec";
import * as hooksTest from "../../../cli/commands/hooks-test";
import { inline, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";
import { PRIVACY_GATE, REPO, SECURITY_GATE } from "./_fixtures";

const scratch = mkdtempSync(path.join(os.tmpdir(), "genv-cli-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function file(name: string, value: unknown): string {
  const target = path.join(scratch, name);
  writeFileSync(target, typeof value === "string" ? value : JSON.stringify(value));
  return target;
}

const SECURITY_HOOKS = {
  "security-gate": { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] },
};

describe("genv exec", () => {
  let emulator: TestEmulator;
  let id: string;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    const created = await emulator.json("/v1beta/environments", {
      method: "POST",
      body: JSON.stringify({
        sources: [inline(".agents/hooks.json", JSON.stringify(SECURITY_HOOKS)), inline(".agents/hooks-scripts/gate.py", readFileSync(SECURITY_GATE, "utf8"))],
      }),
    });
    id = created.body.id;
  });
  afterAll(() => emulator.close());
  const env = () => ({ GOOGLE_GEMINI_BASE_URL: emulator.url, GEMINI_API_KEY: TEST_KEY });

  test("an allowed call prints the output and the hooks table, exit 0", async () => {
    const { output, exitCode } = await exec.runExec({ environment: id, tool: "code_execution", argsJson: '{"code": "echo hello"}', env: env() });
    expect(exitCode).toBe(0);
    expect(output).toMatch(/^decision: allow\nexit_code: 0\noutput:\n  hello\nhooks:\n  pre  security-gate  command: python3 \/\.agents\/hooks-scripts\/gate\.py  allow  \d+ ms\n$/);
  });

  test("a denied call prints the reason, exit 3", async () => {
    const { output, exitCode } = await exec.runExec({ environment: id, tool: "code_execution", argsJson: '{"code": "rm -rf /"}', env: env() });
    expect(exitCode).toBe(exec.EXIT_DENIED);
    expect(output).toContain("decision: deny\nreason: Destructive command blocked by security gate.\n");
  });

  test("--json prints the response; flags override the environment", async () => {
    const { output } = await exec.runExec({
      environment: `environments/${id}`,
      tool: "list_dir",
      argsJson: '{"path": "/.agents"}',
      baseUrl: emulator.url,
      apiKey: TEST_KEY,
      json: true,
      env: {},
    });
    expect(JSON.parse(output)).toEqual({ decision: "allow", output: "hooks-scripts/\nhooks.json", hooks: [] });
  });

  test.each([
    { case: "ARGS_JSON not JSON", argsJson: "{code", exitCode: 2, message: /^ARGS_JSON is not valid JSON/ },
    { case: "ARGS_JSON not an object", argsJson: "[1]", exitCode: 2, message: /^ARGS_JSON must be a JSON object/ },
    { case: "an unknown tool (the API's 400)", argsJson: "{}", tool: "read_file", exitCode: 1, message: /tool_call\.name: unknown tool "read_file"/ },
  ])("$case: CLIError exit $exitCode", async ({ argsJson, tool, exitCode, message }) => {
    const error = await exec.runExec({ environment: id, tool: tool ?? "code_execution", argsJson, env: env() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CLIError);
    expect(error).toMatchObject({ exitCode, message: expect.stringMatching(message) });
  });

  test("no API key: exit 2 naming the variables", async () => {
    const error = await exec.runExec({ environment: id, tool: "list_dir", argsJson: '{"path": "/"}', env: { GOOGLE_GEMINI_BASE_URL: emulator.url } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2, message: expect.stringMatching(/GOOGLE_API_KEY or GEMINI_API_KEY/) });
  });

  test("registers as `genv exec ENV TOOL ARGS`", async () => {
    const program = new Command("genv").exitOverride();
    exec.register(program);
    let printed = "";
    const write = jest.spyOn(process.stdout, "write").mockImplementation((chunk) => ((printed += String(chunk)), true));
    try {
      await program.parseAsync(["exec", id, "code_execution", '{"code": "echo via-commander"}', "--base-url", emulator.url, "--api-key", TEST_KEY], { from: "user" });
    } finally {
      write.mockRestore();
    }
    expect(printed).toContain("  via-commander\n");
  });
});

describe("genv hooks test", () => {
  const securityScripts = path.dirname(SECURITY_GATE);
  const cases = [
    { name: "rm -rf is blocked", tool_call: { name: "code_execution", args: { code: "rm -rf /workspace" } }, expect: "deny", reason: "security gate" },
    { name: "echo runs", tool_call: { name: "code_execution", args: { code: "echo hello" } }, expect: "allow" },
    { name: "files are not gated", tool_call: { name: "write_to_file", args: { path: "/x", content: "rm -rf /" } }, expect: "allow" },
  ];

  test("all cases pass: a table, exit 0", async () => {
    const { output, exitCode } = await hooksTest.runHooksTest({
      hooksFile: file("security.json", SECURITY_HOOKS),
      scriptsDir: securityScripts,
      casesFile: file("cases.json", cases),
    });
    expect(exitCode).toBe(0);
    expect(output).toMatch(/^ok    rm -rf is blocked    expect deny   got deny \(Destructive command blocked by security gate\.\)\n      pre  security-gate  command: python3 \/\.agents\/hooks-scripts\/gate\.py  deny  \d+ ms\n/);
    expect(output).toContain("ok    files are not gated  expect allow  got allow\n      (no hooks matched)\n");
    expect(output).toMatch(/3 passed, 0 failed\n$/);
  });

  test("a mismatch (decision or reason) fails the run: exit 1", async () => {
    const wrong = [
      { name: "expects allow", tool_call: { name: "code_execution", args: { code: "rm -rf /" } }, expect: "allow" },
      { name: "wrong reason", tool_call: { name: "code_execution", args: { code: "rm -rf /" } }, expect: "deny", reason: "PII" },
    ];
    const { output, exitCode, outcomes } = await hooksTest.runHooksTest({
      hooksFile: file("security.json", SECURITY_HOOKS),
      scriptsDir: securityScripts,
      casesFile: file("wrong.json", wrong),
    });
    expect(exitCode).toBe(1);
    expect(outcomes.map((o) => o.mismatch)).toEqual([
      "expected allow, got deny",
      'expected a reason containing "PII", got "Destructive command blocked by security gate."',
    ]);
    expect(output).toContain("FAIL  expects allow  expect allow  got deny");
    expect(output).toMatch(/0 passed, 2 failed\n$/);
  });

  test("the privacy gate's example: view_file of /private/ denied, /public/ allowed", async () => {
    const privacy = { "privacy-gate": { pre_tool_execution: [{ matcher: "view_file", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/check_privacy.py" }] }] } };
    const { exitCode, output } = await hooksTest.runHooksTest({
      hooksFile: file("privacy.json", privacy),
      scriptsDir: path.dirname(PRIVACY_GATE),
      casesFile: file("privacy-cases.json", [
        { tool_call: { name: "view_file", args: { path: "/workspace/private/employees.json" } }, expect: "deny", reason: "Query approved `/public/` summary tables instead." },
        { tool_call: { name: "view_file", args: { path: "/workspace/public/summary.json" } }, expect: "allow" },
      ]),
    });
    expect(output).toMatch(/2 passed, 0 failed\n$/);
    expect(exitCode).toBe(0);
  });

  test("a missing script fails open: passes, but --strict fails it", async () => {
    const args = {
      hooksFile: file("security.json", SECURITY_HOOKS),
      casesFile: file("echo.json", [{ tool_call: { name: "code_execution", args: { code: "echo hi" } }, expect: "allow" }]),
    };
    const lenient = await hooksTest.runHooksTest(args);
    expect(lenient.exitCode).toBe(0);
    expect(lenient.output).toMatch(/failed open: exited with status 2: .*gate\.py/);
    const strict = await hooksTest.runHooksTest({ ...args, strict: true });
    expect(strict.exitCode).toBe(1);
    expect(strict.outcomes[0].mismatch).toBe("1 hook(s) failed open (--strict)");
  });

  test("post cases run only the post hooks, with the given error in the payload", async () => {
    const audit = {
      audit: { post_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "python3 -c 'import json,sys; e=json.load(sys.stdin); sys.exit(0 if e.get(\"error\") == \"boom\" else 5)'" }] }] },
    };
    const { outcomes } = await hooksTest.runHooksTest({
      hooksFile: file("audit.json", audit),
      casesFile: file("post.json", [
        { tool_call: { name: "code_execution", args: { code: "false" } }, event: "post_tool_execution", error: "boom", expect: "allow" },
        { tool_call: { name: "code_execution", args: { code: "true" } }, event: "post_tool_execution", expect: "allow" },
      ]),
    });
    expect(outcomes.map((o) => o.verdict.hooks.map((h) => [h.event, h.decision, h.failure]))).toEqual([
      [["post_tool_execution", "ignored", undefined]],
      [["post_tool_execution", "ignored", "exited with status 5"]],
    ]);
  });

  test.each([
    { case: "hooks file with a schema error", hooks: { g: { pre_tool_use: [] } }, cases: [], message: /would not be used by the runtime: \/g\/pre_tool_use: unknown event/ },
    { case: "a case with an unknown tool", hooks: SECURITY_HOOKS, cases: [{ tool_call: { name: "read_file", args: {} }, expect: "allow" }], message: /case 1 .*tool_call\.name: unknown tool/ },
    { case: "a case without expect", hooks: SECURITY_HOOKS, cases: [{ tool_call: { name: "list_dir", args: { path: "/" } } }], message: /expect: must be "allow" or "deny"/ },
  ])("$case: CLIError exit 2", async ({ hooks, cases: bad, message }) => {
    const error = await hooksTest.runHooksTest({ hooksFile: file("h.json", hooks), casesFile: file("c.json", bad) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CLIError);
    expect(error).toMatchObject({ exitCode: 2, message: expect.stringMatching(message) });
  });

  test("the examples directory's own scripts are the ones tested", () => {
    expect(SECURITY_GATE.startsWith(path.join(REPO, "examples"))).toBe(true);
  });
});
