import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { register, runHooksLint } from "../../../cli/commands/hooks-lint";
import { hooksCommand } from "../../../cli/commands/hooks";
import { CLIError } from "../../../cli/errors";
import { auditLogging, auditNetwork, securityGate } from "./examples";

let dir: string;
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "genv-hooks-lint-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bad = { "security-gate": { pre_tool_execution: [{ matcher: "*_file", hooks: [{ type: "command", command: "x" }] }, { matcher: "read_file", hooks: [] }] } };

describe("runHooksLint", () => {
  test("text: one line per finding, exit 1 on an error", () => {
    const { output, exitCode } = runHooksLint({ file: file("hooks.json", bad) });
    expect(exitCode).toBe(1);
    expect(output).toMatchInlineSnapshot(`
"error  /security-gate/pre_tool_execution/0/matcher  glob-matcher  "*_file" is a shell glob, but matchers are RE2 regular expressions (it matches nothing useful): write ".*_file" (bare "*" alone is the catch-all)
warning  /security-gate/pre_tool_execution/1/matcher  unknown-tool  "read_file" matches none of the sandbox tools (code_execution, view_file, write_to_file, replace_file_content, list_dir, delete_file; matched against the whole name): did you mean view_file?
"
`);
  });

  test("json format", () => {
    const path = file("hooks.json", bad);
    const { output, exitCode } = runHooksLint({ file: path, format: "json" });
    expect(exitCode).toBe(1);
    const parsed = JSON.parse(output);
    expect(parsed.file).toBe(path);
    expect(parsed.findings.map((f: { code: string; severity: string }) => [f.severity, f.code])).toEqual([
      ["error", "glob-matcher"],
      ["warning", "unknown-tool"],
    ]);
  });

  test("clean file: empty text output, exit 0", () => {
    expect(runHooksLint({ file: file("hooks.json", securityGate) })).toEqual({ output: "", exitCode: 0 });
  });

  test("warnings alone exit 0", () => {
    expect(runHooksLint({ file: file("hooks.json", securityGate), inlineSourced: true }).exitCode).toBe(0);
  });

  test("--network: the audit-logging allowlist lets telemetry.example.com through; disabled blocks it", () => {
    const hooks = file("hooks.json", auditLogging);
    expect(runHooksLint({ file: hooks, networkFile: file("net.json", auditNetwork) })).toEqual({ output: "", exitCode: 0 });
    const blocked = runHooksLint({ file: hooks, networkFile: file("off.json", '"disabled"'), format: "json" });
    expect(blocked.exitCode).toBe(1);
    expect(JSON.parse(blocked.output).findings[0].code).toBe("http-host-not-allowlisted");
  });

  test("a bad network file is a CLIError naming the problem", () => {
    const hooks = file("hooks.json", auditLogging);
    expect(() => runHooksLint({ file: hooks, networkFile: file("n1.json", { allowlist: [{ domain: "a b" }] }) })).toThrow(/not a network value.*domain/);
    expect(() => runHooksLint({ file: hooks, networkFile: file("n2.json", "{nope") })).toThrow(/not valid JSON/);
    expect(() => runHooksLint({ file: hooks, networkFile: join(dir, "missing.json") })).toThrow(CLIError);
  });

  test("invalid JSON in the hooks file is an error finding", () => {
    const { output, exitCode } = runHooksLint({ file: file("hooks.json", "{") });
    expect(exitCode).toBe(1);
    expect(output).toMatch(/^error {2}\(root\) {2}schema {2}is not valid JSON/);
  });

  test("a missing hooks file or bad format is a CLIError", () => {
    expect(() => runHooksLint({ file: join(dir, "nope.json") })).toThrow(/cannot read hooks file/);
    expect(() => runHooksLint({ file: file("hooks.json", securityGate), format: "yaml" as "json" })).toThrow(/--format/);
  });
});

describe("register", () => {
  test("adds `hooks lint` under one shared `hooks` command", () => {
    const program = new Command("genv");
    const hooks = hooksCommand(program);
    register(program);
    expect(hooksCommand(program)).toBe(hooks);
    expect(program.commands.filter((c) => c.name() === "hooks")).toHaveLength(1);
    expect(hooks.commands.map((c) => c.name())).toEqual(["lint"]);
  });

  test("parses arguments and sets the exit code", async () => {
    const program = new Command("genv").exitOverride();
    register(program);
    const write = jest.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      await program.parseAsync(["hooks", "lint", file("hooks.json", bad), "--format", "json"], { from: "user" });
      expect(process.exitCode).toBe(1);
      expect(JSON.parse(String(write.mock.calls[0]?.[0])).findings).toHaveLength(2);
    } finally {
      write.mockRestore();
      process.exitCode = undefined;
    }
  });
});
