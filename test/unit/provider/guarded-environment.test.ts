import * as pulumi from "@pulumi/pulumi";
import { command, group, http } from "../../../hooks/builders";
import { GuardedEnvironment } from "../../../provider/components/guarded-environment";
import { HookBundle } from "../../../provider/components/hook-bundle";
import { NetworkPolicy } from "../../../provider/components/network-policy";

// The real Environment is a dynamic resource whose provider Pulumi closure-serializes on registration;
// here it is replaced by a plain custom resource of the same shape, so the test sees what it receives.
jest.mock("../../../provider/environment/resource", () => {
  const { CustomResource } = jest.requireActual("@pulumi/pulumi");
  class Environment extends CustomResource {
    constructor(name: string, args: Record<string, unknown>, opts?: object) {
      super("gemini-environments:index:Environment", name, { ...args, status: undefined, fileCount: undefined, sizeBytes: undefined, created: undefined, lastAccessed: undefined }, opts);
    }
  }
  return { Environment };
});

const created: pulumi.runtime.MockResourceArgs[] = [];

beforeAll(() => {
  pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        created.push(args);
        return { id: "env_mock123", state: { ...args.inputs, status: "active", fileCount: 3, sizeBytes: 42 } };
      },
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    false,
  );
});

const value = <T>(output: pulumi.Output<T>) => new Promise<T>((resolve) => output.apply(resolve));

const bundle = new HookBundle({
  hooks: {
    "security-gate": group().before("code_execution", command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })),
    audit: group().after("view_file|read_file", http("https://telemetry.example.com/api/v1/agent-events", { timeout: 10 })),
  },
  scripts: { "gate.py": { content: "print('{}')\n" } },
});

describe("GuardedEnvironment", () => {
  test("the child Environment receives the bundle's sources, the extra sources and the network", async () => {
    const env = new GuardedEnvironment("agent", {
      hooks: bundle,
      network: NetworkPolicy.allowlist().allowHookHosts(bundle),
      sources: [{ type: "inline", target: "workspace/main.py", content: "print('hi')" }],
      acknowledgedWarnings: ["inline-hooks-writable", "unknown-tool"],
    });
    expect(await value(env.environmentId)).toBe("env_mock123");
    expect(await value(env.status)).toBe("active");
    expect(await value(env.fileCount)).toBe(3);

    const child = created.find((resource) => resource.name === "agent" && resource.type === "gemini-environments:index:Environment");
    expect(child?.inputs.sources.map((source: { target: string }) => source.target)).toEqual([
      ".agents/hooks.json",
      ".agents/hooks-scripts/gate.py",
      "workspace/main.py",
    ]);
    expect(child?.inputs.sources[0].content).toBe(bundle.hooksJson);
    expect(child?.inputs.network).toEqual({ allowlist: [{ domain: "telemetry.example.com" }] });
    expect(created.map((resource) => resource.type)).toContain("gemini-environments:index:GuardedEnvironment");
  });

  test("warnings are logged on the component at program time; acknowledged codes are not", () => {
    const warn = jest.spyOn(pulumi.log, "warn").mockImplementation(async () => undefined);
    try {
      const env = new GuardedEnvironment("noisy", { hooks: bundle, network: NetworkPolicy.unrestricted(), acknowledgedWarnings: ["inline-hooks-writable"] });
      expect(env.warnings.map((finding) => finding.code)).toEqual(["unknown-tool"]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^\.agents\/hooks\.json \/audit\/post_tool_execution\/0\/matcher: unknown-tool: alternative "read_file"/), env);
    } finally {
      warn.mockRestore();
    }
  });

  test("an unrestricted network is omitted; a raw network value passes through", async () => {
    created.length = 0;
    new GuardedEnvironment("open", { hooks: bundle, network: NetworkPolicy.unrestricted(), acknowledgedWarnings: ["inline-hooks-writable", "unknown-tool"] });
    new GuardedEnvironment("closed", { hooks: bundle, network: "disabled", acknowledgedWarnings: ["inline-hooks-writable", "unknown-tool"] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const inputsOf = (name: string) => created.find((resource) => resource.name === name && resource.type === "gemini-environments:index:Environment")?.inputs;
    expect(inputsOf("open")?.network).toBeUndefined();
    expect(inputsOf("closed")?.network).toBe("disabled");
  });
});
