import { group, command, hooksConfig, http } from "../../../hooks/builders";
import { referencedScripts } from "../../../hooks/scripts";
import { serializeHooks } from "../../../hooks/serialize";

describe("serializeHooks", () => {
  test("same config, different key order → identical text", () => {
    const a = {
      "security-gate": {
        enabled: true,
        pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command" as const, command: "python3 gate.py", timeout: 10 }] }],
        post_tool_execution: [{ matcher: "*", hooks: [{ type: "http" as const, url: "https://t.example.com", headers: { B: "2", a: "1" }, timeout: 5 }] }],
      },
    };
    const b = {
      "security-gate": {
        post_tool_execution: [{ hooks: [{ timeout: 5, headers: { a: "1", B: "2" }, url: "https://t.example.com", type: "http" as const }], matcher: "*" }],
        pre_tool_execution: [{ hooks: [{ timeout: 10, command: "python3 gate.py", type: "command" as const }], matcher: "code_execution" }],
        enabled: true,
      },
    };
    expect(serializeHooks(b)).toBe(serializeHooks(a));
    expect(serializeHooks(a)).toMatchInlineSnapshot(`
"{
  "security-gate": {
    "enabled": true,
    "pre_tool_execution": [
      {
        "matcher": "code_execution",
        "hooks": [
          {
            "type": "command",
            "command": "python3 gate.py",
            "timeout": 10
          }
        ]
      }
    ],
    "post_tool_execution": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "http",
            "url": "https://t.example.com",
            "headers": {
              "a": "1",
              "B": "2"
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

  test("groups keep their declared order; omitted defaults stay omitted", () => {
    const text = serializeHooks({ zeta: {}, alpha: { enabled: false } });
    expect(text).toBe('{\n  "zeta": {},\n  "alpha": {\n    "enabled": false\n  }\n}\n');
  });
});

describe("builders", () => {
  test("build the spec's security-gate exactly as its hooks.json", () => {
    const config = hooksConfig({ "security-gate": group().before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })) });
    expect(config).toEqual({
      "security-gate": {
        pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }],
      },
    });
  });

  test("groups are immutable and chainable", () => {
    const base = group();
    const audited = base.after(".*", http("https://t.example.com/e", { headers: { "X-Event-Source": "agent-sandbox" } })).enabled(false);
    expect(base.build()).toEqual({});
    expect(audited.build()).toEqual({
      enabled: false,
      post_tool_execution: [{ matcher: ".*", hooks: [{ type: "http", url: "https://t.example.com/e", headers: { "X-Event-Source": "agent-sandbox" } }] }],
    });
  });

  test("hooksConfig rejects structural errors", () => {
    expect(() => hooksConfig({ g: group().before("*", command("x", { timeout: 0 })) })).toThrow(/invalid hooks config[\s\S]*timeout/);
  });
});

describe("referencedScripts", () => {
  test("extracts script paths from command lines, once each", () => {
    const config = hooksConfig({
      a: group()
        .before("code_execution", command("python3 /.agents/hooks-scripts/gate.py --strict", { timeout: 10 }))
        .after("*", command("bash ./scripts/fmt.sh && node tools/report.js"), command("/usr/bin/env python3 /.agents/hooks-scripts/gate.py")),
      b: group().before("view_file", command("'.agents/hooks-scripts/check privacy.py'"), http("https://x.example.com")),
    });
    expect(referencedScripts(config)).toEqual(["/.agents/hooks-scripts/gate.py", "./scripts/fmt.sh", "tools/report.js", ".agents/hooks-scripts/check privacy.py"]);
  });
});
