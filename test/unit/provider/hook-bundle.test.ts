import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { command, group, http } from "../../../hooks/builders";
import { HookBundle, HookBundleError } from "../../../provider/components/hook-bundle";

const fixtures = path.join(__dirname, "fixtures");
const gate = command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 });

describe("HookBundle", () => {
  test("ships hooks.json and the scripts, from disk and inline, as inline sources sorted by name", () => {
    const bundle = new HookBundle({
      hooks: { "security-gate": group().before("code_execution", gate, command("bash /.agents/hooks-scripts/audit.sh")) },
      scripts: { "gate.py": { file: "gate.py" }, "audit.sh": { content: "echo '{}'\n" } },
      baseDir: fixtures,
    });
    expect(bundle.sources.map((source) => source.target)).toEqual([".agents/hooks.json", ".agents/hooks-scripts/audit.sh", ".agents/hooks-scripts/gate.py"]);
    expect(bundle.sources[0]).toEqual({ type: "inline", target: ".agents/hooks.json", content: bundle.hooksJson });
    expect(bundle.sources[1]).toEqual({ type: "inline", target: ".agents/hooks-scripts/audit.sh", content: "echo '{}'\n" });
    expect(bundle.sources[2]?.content).toContain('json.dumps({"decision": "allow"})');
  });

  test("hooks.json is deterministic whatever the key order of the input", () => {
    const a = new HookBundle({
      hooks: { g: { pre_tool_execution: [{ matcher: "view_file", hooks: [{ type: "http", url: "https://h.example.com", timeout: 5, headers: { b: "1", A: "2" } }] }] } },
    });
    const b = new HookBundle({
      hooks: { g: { pre_tool_execution: [{ hooks: [{ headers: { A: "2", b: "1" }, timeout: 5, url: "https://h.example.com", type: "http" }], matcher: "view_file" }] } },
    });
    expect(a.hooksJson).toBe(b.hooksJson);
    expect(a.hooksJson).toMatchInlineSnapshot(`
"{
  "g": {
    "pre_tool_execution": [
      {
        "matcher": "view_file",
        "hooks": [
          {
            "type": "http",
            "url": "https://h.example.com",
            "headers": {
              "A": "2",
              "b": "1"
            },
            "timeout": 5
          }
        ]
      }
    ]
  }
}
"
`);
  });

  test("binary script files are shipped as base64", () => {
    const bundle = new HookBundle({ hooks: {}, scripts: { "blob.bin": { file: "blob.bin" } }, baseDir: fixtures });
    expect(bundle.sources[1]).toMatchObject({ target: ".agents/hooks-scripts/blob.bin", encoding: "base64" });
  });

  test("a missing script is an error naming the handler's pointer and the script", () => {
    const build = () => new HookBundle({ hooks: { "security-gate": group().before("code_execution", gate) }, scripts: { "other.py": { content: "" } } });
    expect(build).toThrow(HookBundleError);
    expect(build).toThrow(
      '/security-gate/pre_tool_execution/0/hooks/0/command: runs /.agents/hooks-scripts/gate.py, but the bundle has other.py: add scripts["gate.py"] (a file or inline content)',
    );
  });

  test("relative and foreign script paths are refused unless provided by another source", () => {
    const hooks = { g: group().after(".*", command("sh ./fmt.sh"), command("python3 /workspace/tools/check.py")) };
    const problems = (() => {
      try {
        new HookBundle({ hooks });
      } catch (error) {
        return (error as HookBundleError).problems;
      }
    })();
    expect(problems).toEqual([
      expect.stringMatching(/^hooks: \/g\/post_tool_execution\/0\/hooks\/0\/command: runs \.\/fmt\.sh by a relative path/),
      expect.stringMatching(/^hooks: \/g\/post_tool_execution\/0\/hooks\/1\/command: runs \/workspace\/tools\/check\.py, which the bundle does not ship/),
    ]);
    expect(() => new HookBundle({ hooks: { g: group().after(".*", command("python3 /workspace/tools/check.py")) }, providedScripts: ["/workspace/tools/check.py"] })).not.toThrow();
  });

  test("an unreadable file and a bad script name are reported together", () => {
    const build = () => new HookBundle({ hooks: {}, scripts: { "gone.py": { file: "nope/gone.py" }, "../escape.py": { content: "" } }, baseDir: fixtures });
    expect(build).toThrow(/scripts\["\.\.\/escape\.py"\]: the name "\.\.\/escape\.py" escapes the environment root/);
    expect(build).toThrow(/scripts\["gone\.py"\]: cannot read .*nope\/gone\.py \(ENOENT\)/);
  });

  test("a structural error in the config throws at construction", () => {
    expect(() => new HookBundle({ hooks: { g: group().before("view_file", command("x", { timeout: 0 })) } })).toThrow(/invalid hook bundle:\n  - hooks\.g\.pre_tool_execution\[0\]\.hooks\[0\]\.timeout: /);
  });

  test("httpHosts lists each HTTP hook's host once", () => {
    const bundle = new HookBundle({
      hooks: { a: group().after("view_file", http("https://telemetry.example.com/a"), http("https://telemetry.example.com/b")), b: group().before("list_dir", http("https://audit.example.org/x")) },
    });
    expect(bundle.httpHosts()).toEqual(["telemetry.example.com", "audit.example.org"]);
  });

  describe("fromRepository", () => {
    const checkout = () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "genv-guardrails-"));
      mkdirSync(path.join(dir, "hooks-scripts"));
      writeFileSync(path.join(dir, "hooks-scripts", "gate.py"), "print('{}')\n");
      return dir;
    };

    test("one repository source at .agents, read-only for the agent; no checkout means nothing to lint", () => {
      const bundle = HookBundle.fromRepository({ source: "github://acme/guardrails@v3" });
      expect(bundle.sources).toEqual([{ type: "repository", source: "github://acme/guardrails@v3", target: ".agents" }]);
      expect(bundle).toMatchObject({ config: {}, writableByAgent: false });
      expect(bundle.httpHosts()).toEqual([]);
    });

    test("a local checkout is read so that the hooks are checked and their HTTP hosts known", () => {
      const dir = checkout();
      writeFileSync(
        path.join(dir, "hooks.json"),
        JSON.stringify({ g: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py" }] }], post_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://audit.example.org/e" }] }] } }),
      );
      const bundle = HookBundle.fromRepository({ source: `file://${dir}`, checkout: dir });
      expect(bundle.httpHosts()).toEqual(["audit.example.org"]);
      writeFileSync(path.join(dir, "hooks.json"), JSON.stringify({ g: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/other.py" }] }] } }));
      expect(() => HookBundle.fromRepository({ source: `file://${dir}`, checkout: dir })).toThrow(/runs \/\.agents\/hooks-scripts\/other\.py, but the bundle has gate\.py/);
      rmSync(dir, { recursive: true, force: true });
      expect(() => HookBundle.fromRepository({ source: `file://${dir}`, checkout: dir })).toThrow(/checkout: cannot read .*hooks\.json \(ENOENT\)/);
    });
  });
});

test("policy cases are validated at construction, naming the case and field", () => {
  const build = (tests: unknown) => () =>
    new HookBundle({ hooks: { g: group().before("code_execution", command("true")) }, tests: tests as never });
  expect(build([{ tool_call: { name: "code_execution", args: { code: "x" } }, expect: "maybe" }])).toThrow(/tests\[0\]\.expect: must be "allow" or "deny"/);
  expect(build([{ tool_call: { name: "code_execution", args: {} }, expect: "deny", extra: 1 }])).toThrow(/tests\[0\]\.extra: is not a known field/);
  expect(new HookBundle({ hooks: { g: group().before("code_execution", command("true")) }, tests: [{ tool_call: { name: "view_file", args: { path: "/a" } }, expect: "allow" }] }).tests).toEqual([
    { tool_call: { name: "view_file", args: { path: "/a" } }, expect: "allow", event: "pre_tool_execution" },
  ]);
});

describe("HookBundle's on_failure", () => {
  const script = { "gate.py": { content: "print('{}')\n" } };

  test("onFailure deny reaches every command handler that sets none: hooks.json runs the wrapper, shipped beside the scripts, and holds no on_failure", () => {
    const bundle = new HookBundle({
      hooks: { g: group().before("code_execution", gate, command("python3 /.agents/hooks-scripts/gate.py --second", { onFailure: "allow" })) },
      scripts: script,
      onFailure: "deny",
    });
    expect(bundle.config.g).toMatchObject({ pre_tool_execution: [{ hooks: [{ on_failure: "deny" }, { on_failure: "allow" }] }] });
    const held = JSON.parse(bundle.hooksJson);
    expect(bundle.hooksJson).not.toContain("on_failure");
    expect(held.g.pre_tool_execution[0].hooks).toEqual([
      { type: "command", command: "bash /.agents/hooks-scripts/genv-on-failure-deny.sh 8 'python3 /.agents/hooks-scripts/gate.py'", timeout: 10 },
      { type: "command", command: "python3 /.agents/hooks-scripts/gate.py --second" },
    ]);
    expect(bundle.sources.map((source) => source.target)).toEqual([".agents/hooks.json", ".agents/hooks-scripts/gate.py", ".agents/hooks-scripts/genv-on-failure-deny.sh"]);
    // Without it, nothing changes: no wrapper shipped.
    expect(new HookBundle({ hooks: { g: group().before("code_execution", gate) }, scripts: script }).sources).toHaveLength(2);
  });

  test("refused with the field named: a script of the wrapper's name, a bad onFailure, deny on an http handler, on_failure in a repository's hooks.json", () => {
    const problems = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return (error as HookBundleError).issues.map((issue) => [issue.path.join("."), issue.code]);
      }
      return [];
    };
    expect(problems(() => new HookBundle({ hooks: { g: group().before("*", command("python3 /.agents/hooks-scripts/gate.py", { onFailure: "deny" })) }, scripts: { ...script, "genv-on-failure-deny.sh": { content: "" } } }))).toEqual([["scripts.genv-on-failure-deny.sh", "reserved-name"]]);
    expect(problems(() => new HookBundle({ hooks: { g: group().before("*", gate) }, scripts: script, onFailure: "never" as never }))).toEqual([["onFailure", "invalid-value"]]);
    expect(problems(() => new HookBundle({ hooks: { g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://h.example.com", on_failure: "deny" }] }] } } }))).toEqual([["hooks", "http-on-failure-deny"]]);
    const checkout = mkdtempSync(path.join(os.tmpdir(), "genv-bundle-on-failure-"));
    try {
      writeFileSync(path.join(checkout, "hooks.json"), JSON.stringify({ g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "true", on_failure: "deny" }] }] } }));
      expect(problems(() => HookBundle.fromRepository({ source: "github://acme/guardrails@v1", checkout }))).toEqual([["checkout", "on-failure-not-compiled"]]);
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });
});
