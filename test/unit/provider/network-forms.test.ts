/**
 * A network declared in the form every language binds (schema.json's EgressPolicy: `allowlist`, a
 * list; `disabled`, a boolean; `transform`, a list of maps) and in the API's own forms (`"disabled"`,
 * `{allowlist: "disabled"}`, one transform map): check takes both, a change of form alone is no change,
 * an import declares the bindable form; and hooks declared with schema.json's camelCase names reach the
 * hooks.json shape.
 */
import { environmentCore } from "../../../provider/environment/core";
import { networkFromWire, networkToWire, type EnvironmentInputs, type EnvironmentOutputs } from "../../../provider/environment/inputs";
import { HookBundleInput } from "../../../provider/components/guarded-environment-inputs";
import { hooksConfigToWire } from "../../../provider/components/hooks-config-inputs";
import { schemaPath, withWireNames } from "../../../provider/contracts/resource-schema";
import { generateSchema } from "../../../scripts/generate-schema";

const SOURCES = [{ type: "inline" as const, target: "workspace/a.txt", content: "a\n" }];
const check = (network: unknown) => environmentCore.check({}, { sources: SOURCES, network } as EnvironmentInputs).failures;
const diff = (old: unknown, now: unknown) =>
  environmentCore.diff({ sources: SOURCES, network: old, status: "active" } as unknown as EnvironmentOutputs, { sources: SOURCES, network: now } as EnvironmentInputs);

describe("a network in the bindable form and in the API's forms", () => {
  test.each([
    ["an allowlist with a list of transforms", { allowlist: [{ domain: "api.github.com", transform: [{ Authorization: "Bearer t" }] }] }],
    ["disabled: true", { disabled: true }],
    ["disabled: false with an allowlist", { disabled: false, allowlist: [{ domain: "*" }] }],
    ['the API\'s "disabled"', "disabled"],
    ['the API\'s {allowlist: "disabled"}', { allowlist: "disabled" }],
    ["the API's single transform map", { allowlist: [{ domain: "api.github.com", transform: { Authorization: "Bearer t" } }] }],
  ])("check accepts %s", (_, network) => {
    expect(check(network)).toEqual([]);
  });

  test("check names the field and the fix for a bindable network that says two things, or nothing", () => {
    expect(check({ disabled: true, allowlist: [] })).toEqual([
      { property: "network", reason: expect.stringContaining("network.allowlist: must be left out when disabled is true") },
    ]);
    expect(check({})).toEqual([{ property: "network", reason: expect.stringContaining("network.allowlist: is required unless disabled is true") }]);
    expect(check({ allowlist: [{ domain: "not a domain" }] })).toEqual([{ property: "network", reason: expect.stringContaining('"not a domain" is not a domain') }]);
  });

  test("the API receives its own form", () => {
    expect(networkToWire({ disabled: true })).toBe("disabled");
    expect(networkToWire({ disabled: false, allowlist: [{ domain: "a.example.com", transform: [{ "X-A": "1" }] }] })).toEqual({
      allowlist: [{ domain: "a.example.com", transform: [{ "X-A": "1" }] }],
    });
    expect(networkToWire("disabled")).toBe("disabled");
    expect(networkToWire({ allowlist: "disabled" })).toEqual({ allowlist: "disabled" });
  });

  test("an import declares the bindable form", () => {
    expect(networkFromWire("disabled")).toEqual({ disabled: true });
    expect(networkFromWire({ allowlist: "disabled" })).toEqual({ disabled: true });
    expect(networkFromWire({ allowlist: [{ domain: "a.example.com", transform: { "X-A": "1" } }, { domain: "*" }] })).toEqual({
      allowlist: [{ domain: "a.example.com", transform: [{ "X-A": "1" }] }, { domain: "*" }],
    });
  });

  test("the same policy in another form is no change; another policy replaces the environment", () => {
    expect(diff("disabled", { disabled: true }).changes.size).toBe(0);
    expect(diff({ allowlist: "disabled" }, { disabled: true }).changes.size).toBe(0);
    expect(diff({ allowlist: [{ domain: "a.example.com", transform: { "X-A": "1" } }] }, { allowlist: [{ domain: "a.example.com", transform: [{ "X-A": "1" }] }] }).changes.size).toBe(0);
    const changed = diff("disabled", { allowlist: [{ domain: "a.example.com" }] });
    expect([...changed.changes.values()].every((change) => change.replace)).toBe(true);
    expect(changed.changes.size).toBeGreaterThan(0);
  });
});

describe("schema.json's names", () => {
  test("every property of every type and resource is camelCase", () => {
    const schema = generateSchema() as { types: Record<string, { properties?: object }>; resources: Record<string, { properties: object; inputProperties: object }> };
    const names = [
      ...Object.values(schema.types).flatMap((type) => Object.keys(type.properties ?? {})),
      ...Object.values(schema.resources).flatMap((resource) => [...Object.keys(resource.properties), ...Object.keys(resource.inputProperties)]),
    ];
    expect(names).toContain("preToolExecution");
    expect(names).toContain("toolCall");
    expect(names.filter((name) => !/^[a-z][A-Za-z0-9]*$/.test(name))).toEqual([]);
  });

  test("hooks declared with them reach the hooks.json shape; group, script and header names stay as written", () => {
    const declared = {
      config: {
        "security-gate": {
          preToolExecution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate_check.py" }] }],
          post_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://t.example.com/e", headers: { "X-Event_Source": "sandbox" } }] }],
        },
      },
      scripts: { "gate_check.py": "print('{}')\n" },
      tests: [{ name: "rm", toolCall: { name: "code_execution", args: { code: "rm -rf /" } }, expect: "deny" }],
    };
    const wire = withWireNames(HookBundleInput, declared);
    expect(wire).toEqual({
      config: {
        "security-gate": {
          pre_tool_execution: declared.config["security-gate"].preToolExecution,
          post_tool_execution: declared.config["security-gate"].post_tool_execution,
        },
      },
      scripts: { "gate_check.py": "print('{}')\n" },
      tests: [{ name: "rm", tool_call: { name: "code_execution", args: { code: "rm -rf /" } }, expect: "deny" }],
    });
    expect(HookBundleInput.safeParse(wire).success).toBe(true);
  });

  test("a handler declared as every language binds it ({command: {…}}, {http: {…}}, `type` left out) is hooks.json's handler; hooks.json's own form is read too", () => {
    const declared = {
      config: {
        gate: {
          preToolExecution: [
            {
              matcher: "code_execution",
              hooks: [{ command: { command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 } }, { http: { url: "https://t.example.com/e" } }, { type: "command", command: "true" }],
            },
          ],
        },
      },
    };
    const wire = withWireNames(HookBundleInput, declared) as HookBundleInput;
    expect(HookBundleInput.safeParse(wire).success).toBe(true);
    expect(hooksConfigToWire(wire.config)).toEqual({
      gate: {
        pre_tool_execution: [
          {
            matcher: "code_execution",
            hooks: [
              { type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 },
              { type: "http", url: "https://t.example.com/e" },
              { type: "command", command: "true" },
            ],
          },
        ],
      },
    });
  });

  test("a handler that sets both kinds, or none, fails naming the fix", () => {
    const issues = (hooks: unknown[]) => {
      const parsed = HookBundleInput.safeParse(withWireNames(HookBundleInput, { config: { gate: { preToolExecution: [{ matcher: "*", hooks }] } } }));
      return (parsed.error?.issues ?? []).map((issue) => `${schemaPath(HookBundleInput, issue.path as Array<string | number>).join(".")}: ${issue.message}`);
    };
    expect(issues([{ command: { command: "x" }, http: { url: "https://t.example.com" } }])).toEqual(["config.gate.preToolExecution.0.hooks.0: must set exactly one of command and http (both are set)"]);
    expect(issues([{}])).toEqual(["config.gate.preToolExecution.0.hooks.0: must set exactly one of command and http (none is set)"]);
    expect(issues([{ command: { command: "" } }])).toEqual([expect.stringMatching(/^config\.gate\.preToolExecution\.0\.hooks\.0\.command\.command: must not be empty/)]);
  });

  test("a problem's path names the fields as declared, map keys as written", () => {
    const declared = {
      config: { security_gate: { preToolExecution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "" }] }] } },
      tests: [{ toolCall: { name: "" }, expect: "deny" }],
    };
    const parsed = HookBundleInput.safeParse(withWireNames(HookBundleInput, declared));
    expect(parsed.success).toBe(false);
    const paths = (parsed.error?.issues ?? []).map((issue) => schemaPath(HookBundleInput, issue.path as Array<string | number>).join("."));
    expect(paths).toEqual(expect.arrayContaining(["config.security_gate.preToolExecution.0.hooks.0.command", "tests.0.toolCall.name"]));
  });
});
