/**
 * The shipped policy pack (`node_modules/pulumi-gemini-environments/policy-pack`, installed from the
 * package's tarball) on the real engine, as a pipeline runs it: `pulumi preview --policy-pack DIR
 * [--policy-pack-config FILE]`. The same pack checks a JavaScript program (the dynamic provider's
 * type token), a Pulumi YAML program and a Python program with the generated SDK (both the plugin's):
 * - one compliant and one non-compliant environment (a wildcard allowlist outside the allowed domains,
 *   no hooks.json): the preview fails naming both rules and only the non-compliant resource; with the
 *   rules advisory it succeeds and warns; either way the compliant one's hooks, copied from a
 *   repository, are listed as unchecked (hooks-unchecked, advisory);
 * - an advisory rule (hooks-read-only, on a GuardedEnvironment's inline hooks) warns and the preview
 *   succeeds, for the TypeScript component and the plugin's (YAML); the config makes it mandatory and
 *   the preview fails.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";

import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, pluginProject, program, useE2E } from "./_workspace";
import { pythonSdkVenvBinDir } from "./engine";

const execFileAsync = promisify(execFile);

const ALLOWED = { "egress-within-allowed-domains": { allowedDomains: ["*.acme.com", "api.github.com"] } };

/** `approved` (hooks mounted read-only from a repository, egress to an allowed host) and `rogue` (no hooks, `*.github.com`). */
const PROGRAMS = {
  "JavaScript (dynamic provider)": {
    stackName: "js",
    python: false,
    type: "pulumi-nodejs:dynamic/gemini-environments:Environment",
    files: () =>
      program(`
new genv.Environment("approved", {
  sources: [{ type: "repository", source: "github://acme/guardrails", target: ".agents" }],
  network: { allowlist: [{ domain: "api.github.com" }] },
});
new genv.Environment("rogue", { network: { allowlist: [{ domain: "*.github.com" }] } });
`),
    pulumiYaml: undefined as ((pluginBinDir: string) => string) | undefined,
  },
  "Pulumi YAML (plugin)": {
    stackName: "yaml",
    python: false,
    type: "gemini-environments:index:Environment",
    files: () => ({ "index.js": "" }),
    pulumiYaml: (pluginBinDir: string) =>
      `${pluginProject("policy-yaml", pluginBinDir, "runtime: yaml")}resources:
  approved:
    type: gemini-environments:index:Environment
    properties:
      sources:
        - type: repository
          source: github://acme/guardrails
          target: .agents
      network:
        allowlist:
          - domain: api.github.com
  rogue:
    type: gemini-environments:index:Environment
    properties:
      network:
        allowlist:
          - domain: "*.github.com"
`,
  },
  // Run by the Python language host with the venv of scripts/python-sdk-venv (`pulumi` and our wheel) first on PATH.
  "Python (generated SDK, plugin)": {
    stackName: "python",
    python: true,
    type: "gemini-environments:index:Environment",
    files: () => ({
      "index.js": "",
      "__main__.py": `import pulumi_gemini_environments as genv

genv.Environment(
    "approved",
    sources=[genv.SourceArgs(type="repository", source="github://acme/guardrails", target=".agents")],
    network=genv.EgressPolicyArgs(allowlist=[genv.AllowlistEntryArgs(domain="api.github.com")]),
)
genv.Environment("rogue", network=genv.EgressPolicyArgs(allowlist=[genv.AllowlistEntryArgs(domain="*.github.com")]))
`,
    }),
    pulumiYaml: (pluginBinDir: string) => pluginProject("policy-python", pluginBinDir, "runtime: python"),
  },
};

interface Reported {
  level: string;
  rule: string;
  type: string;
  name: string;
}

/** The violations the engine lists under "Policies:", e.g. `- [mandatory]  environment-has-hooks  (TYPE: NAME)`, by rule and name. */
function reported(output: string): Reported[] {
  return [...output.matchAll(/^\s+- \[(\w+)\]\s+([\w-]+)\s+\((.+): ([^)]+)\)$/gm)]
    .map(([, level, rule, type, name]) => ({ level, rule, type, name }))
    .sort((a, b) => a.rule.localeCompare(b.rule) || a.name.localeCompare(b.name));
}

describe("the shipped policy pack on the real engine", () => {
  const e2e = useE2E();
  let pack: string;

  beforeAll(() => {
    pack = path.join(e2e().workspace.root, "node_modules", "pulumi-gemini-environments", "policy-pack");
  });

  /**
   * `pulumi preview --policy-pack <the shipped pack>` of `dir`'s stack, with `config` as its
   * --policy-pack-config; `python`: the SDK venv first on PATH, as for the stack.
   */
  async function previewWithPack(dir: string, stackName: string, config?: object, python = false): Promise<{ code: number; output: string }> {
    const args = ["preview", "--stack", stackName, "--non-interactive", "--color", "never", "--policy-pack", pack];
    if (config) {
      const file = path.join(dir, `policy-config-${Object.keys(config).join("-")}.json`);
      await fs.promises.writeFile(file, JSON.stringify(config));
      args.push("--policy-pack-config", file);
    }
    const { engine, emulator } = e2e();
    const env: NodeJS.ProcessEnv = { ...engine.env, GOOGLE_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: emulator.url };
    if (python) env.PATH = [await pythonSdkVenvBinDir(), env.PATH].join(path.delimiter);
    return execFileAsync(path.join(engine.binDir, "pulumi"), args, { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
    );
  }

  describe.each(Object.entries(PROGRAMS))("%s", (_label, { stackName, python, type, files, pulumiYaml }) => {
    let dir: string;

    beforeAll(async () => {
      dir = await e2e().workspace.addProgram(`policy-${stackName}`, files(), pulumiYaml?.(e2e().pluginBinDir));
      await e2e().stack(dir, stackName, { python: python && "sdk" });
    }, E2E_TEST_TIMEOUT_MS);

    test("mandatory: the preview fails naming both rules and only the non-compliant resource", async () => {
      const { code, output } = await previewWithPack(dir, stackName, ALLOWED, python);
      expect({ code: code !== 0, reported: reported(output) }).toEqual({
        code: true,
        reported: [
          { level: "mandatory", rule: "egress-within-allowed-domains", type, name: "rogue" },
          { level: "mandatory", rule: "environment-has-hooks", type, name: "rogue" },
          // The approved hooks pass unseen, and the user is told so; the note does not fail the preview.
          { level: "advisory", rule: "hooks-unchecked", type, name: "approved" },
        ],
      });
      expect(output).toContain("unchecked (hooks from a repository source: github://acme/guardrails): sources[0] (repository github://acme/guardrails) copies .agents/hooks.json in");
      expect(output).toContain("no .agents/hooks.json: the agent's tool calls run without hooks. Add one with at least one pre_tool_execution rule");
      expect(output).toContain('network.allowlist[0] "*.github.com" reaches every subdomain of github.com, outside the allowed domains (*.acme.com, api.github.com)');
    }, E2E_TEST_TIMEOUT_MS);

    test("advisory (config all: advisory): the preview succeeds with the same violations as warnings", async () => {
      const { code, output } = await previewWithPack(dir, stackName, { all: "advisory", ...ALLOWED }, python);
      expect({ code, reported: reported(output) }).toEqual({
        code: 0,
        reported: [
          { level: "advisory", rule: "egress-within-allowed-domains", type, name: "rogue" },
          { level: "advisory", rule: "environment-has-hooks", type, name: "rogue" },
          { level: "advisory", rule: "hooks-unchecked", type, name: "approved" },
        ],
      });
    }, E2E_TEST_TIMEOUT_MS);
  });

  describe("an advisory rule, and config that makes it mandatory (GuardedEnvironment with inline hooks)", () => {
    let dir: string;

    beforeAll(async () => {
      dir = await e2e().workspace.addProgram(
        "policy-guarded",
        program(`
const hooks = new genv.HookBundle({
  hooks: { gate: genv.group().before("code_execution", genv.command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })) },
  scripts: { "gate.py": { content: "print('{\\"decision\\": \\"allow\\"}')" } },
});
new genv.GuardedEnvironment("guarded", { hooks, network: genv.NetworkPolicy.disabled(), acknowledgedWarnings: ["inline-hooks-writable"] });
`),
      );
      await e2e().stack(dir, "guarded");
    }, E2E_TEST_TIMEOUT_MS);

    test("hooks-read-only is advisory by default: a warning on the inline hooks.json and script, and the preview succeeds", async () => {
      const { code, output } = await previewWithPack(dir, "guarded");
      const type = "pulumi-nodejs:dynamic/gemini-environments:Environment";
      const warning = { level: "advisory", rule: "hooks-read-only", type, name: "guarded" };
      expect({ code, reported: reported(output) }).toEqual({ code: 0, reported: [warning, warning] });
      expect(output).toContain("sources[0] (.agents/hooks.json) is inline, so an agent with write or shell access can rewrite it and disarm its hooks: mount .agents from a read-only repository source");
      expect(output).toContain("sources[1] (.agents/hooks-scripts/gate.py) is inline");
    }, E2E_TEST_TIMEOUT_MS);

    test("the same component in Pulumi YAML (the plugin's construct) is checked through the Environment it creates", async () => {
      const yaml = `${pluginProject("policy-guarded-yaml", e2e().pluginBinDir, "runtime: yaml")}resources:
  guarded:
    type: gemini-environments:index:GuardedEnvironment
    properties:
      hooks:
        config:
          gate:
            preToolExecution:
              - matcher: code_execution
                hooks:
                  - command:
                      command: python3 /.agents/hooks-scripts/gate.py
        scripts:
          gate.py: "print('{}')\\n"
      network: { disabled: true }
      acknowledgedWarnings: [inline-hooks-writable]
`;
      const yamlDir = await e2e().workspace.addProgram("policy-guarded-yaml", { "index.js": "" }, yaml);
      await e2e().stack(yamlDir, "guarded-yaml");
      const { code, output } = await previewWithPack(yamlDir, "guarded-yaml");
      const warning = { level: "advisory", rule: "hooks-read-only", type: "gemini-environments:index:Environment", name: "guarded" };
      expect({ code, reported: reported(output) }).toEqual({ code: 0, reported: [warning, warning] });
    }, E2E_TEST_TIMEOUT_MS);

    test('--policy-pack-config {"hooks-read-only": "mandatory"} fails the same preview', async () => {
      const { code, output } = await previewWithPack(dir, "guarded", { "hooks-read-only": "mandatory" });
      expect(code).not.toBe(0);
      const violation = { level: "mandatory", rule: "hooks-read-only", type: "pulumi-nodejs:dynamic/gemini-environments:Environment", name: "guarded" };
      expect(reported(output)).toEqual([violation, violation]);
    }, E2E_TEST_TIMEOUT_MS);
  });
});
