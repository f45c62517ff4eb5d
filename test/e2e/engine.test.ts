// Smoke test of the Pulumi engine from scripts/pulumi-engine, driven through the Automation API:
// an inline program with one dynamic resource — up, check outputs, destroy — and the same through a local
// program dir, which goes through the pulumi-language-nodejs language host; and the language hosts stop
// when the engine interrupts them even if started with SIGINT ignored.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import * as pulumi from "@pulumi/pulumi";
import { LocalWorkspace } from "@pulumi/pulumi/automation";

import { ENGINE_BUILD_TIMEOUT_MS, PulumiEngine, pulumiCommand, pulumiEngine, repoRoot } from "./engine";

interface ThingArgs {
  name: pulumi.Input<string>;
}

describe("pulumi engine (Automation API smoke test)", () => {
  let engine: PulumiEngine;

  beforeAll(async () => {
    engine = await pulumiEngine();
  }, ENGINE_BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await engine?.cleanup();
  });

  test("inline program with a dynamic resource: up, outputs, destroy", async () => {
    const program = async () => {
      const provider: pulumi.dynamic.ResourceProvider = {
        async create(inputs: any) {
          return { id: `thing-${inputs.name}`, outs: { name: inputs.name, greeting: `hello ${inputs.name}` } };
        },
        async delete() {
          // nothing to delete
        },
      };
      class Thing extends pulumi.dynamic.Resource {
        declare readonly greeting: pulumi.Output<string>;
        constructor(name: string, args: ThingArgs, opts?: pulumi.CustomResourceOptions) {
          super(provider, name, { greeting: undefined, ...args }, opts);
        }
      }
      const thing = new Thing("t1", { name: "world" });
      return { thingId: thing.id, greeting: thing.greeting };
    };

    const stack = await LocalWorkspace.createOrSelectStack(
      { stackName: "e2e", projectName: "engine-smoke", program },
      {
        envVars: engine.env,
        pulumiCommand: await pulumiCommand(engine.binDir),
        projectSettings: {
          name: "engine-smoke",
          runtime: "nodejs",
          backend: { url: engine.env.PULUMI_BACKEND_URL },
        },
      },
    );

    let log = "";
    const onOutput = (s: string) => {
      log += s;
    };
    try {
      const up = await stack.up({ onOutput });
      expect(up.summary.result).toBe("succeeded");
      expect(up.outputs.thingId?.value).toBe("thing-world");
      expect(up.outputs.greeting?.value).toBe("hello world");
      expect(up.summary.resourceChanges?.create).toBe(2); // the stack + the dynamic resource

      const state = await stack.exportStack();
      const types = (state.deployment.resources as Array<{ type: string }>).map((r) => r.type);
      expect(types).toContain("pulumi-nodejs:dynamic:Resource");

      const destroy = await stack.destroy({ onOutput });
      expect(destroy.summary.result).toBe("succeeded");
      expect(destroy.summary.resourceChanges?.delete).toBe(2);
    } catch (err) {
      throw new Error(`${String(err)}\n--- pulumi output ---\n${log}`);
    } finally {
      await stack.workspace.removeStack("e2e").catch(() => undefined);
    }
  }, 5 * 60 * 1000);

  test("local program dir (language host) with a dynamic resource: up, outputs, destroy", async () => {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pulumi-e2e-prog-"));
    try {
      // The program needs @pulumi/pulumi in its own node_modules; link ours.
      await fs.promises.mkdir(path.join(dir, "node_modules", "@pulumi"), { recursive: true });
      await fs.promises.symlink(
        fs.realpathSync(path.join(repoRoot, "node_modules", "@pulumi", "pulumi")),
        path.join(dir, "node_modules", "@pulumi", "pulumi"),
      );
      await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), "name: engine-smoke-dir\nruntime: nodejs\n");
      await fs.promises.writeFile(path.join(dir, "package.json"), '{"name":"engine-smoke-dir","main":"index.js"}\n');
      await fs.promises.writeFile(
        path.join(dir, "index.js"),
        [
          'const pulumi = require("@pulumi/pulumi");',
          "const provider = {",
          '  async create(inputs) { return { id: "dir-" + inputs.name, outs: { name: inputs.name, size: inputs.name.length } }; },',
          "};",
          "class Thing extends pulumi.dynamic.Resource {",
          "  constructor(name, args) { super(provider, name, { size: undefined, ...args }); }",
          "}",
          'const t = new Thing("t1", { name: "abcd" });',
          "exports.thingId = t.id;",
          "exports.size = t.size;",
          "",
        ].join("\n"),
      );

      const stack = await LocalWorkspace.createOrSelectStack(
        { stackName: "e2e", workDir: dir },
        { envVars: engine.env, pulumiCommand: await pulumiCommand(engine.binDir) },
      );
      let log = "";
      const onOutput = (s: string) => {
        log += s;
      };
      try {
        const up = await stack.up({ onOutput });
        expect(up.outputs.thingId?.value).toBe("dir-abcd");
        expect(up.outputs.size?.value).toBe(4);
        const destroy = await stack.destroy({ onOutput });
        expect(destroy.summary.resourceChanges?.delete).toBe(2);
      } catch (err) {
        throw new Error(`${String(err)}\n--- pulumi output ---\n${log}`);
      } finally {
        await stack.workspace.removeStack("e2e").catch(() => undefined);
      }
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }, 5 * 60 * 1000);

  // The engine stops a plugin with SIGINT to its process group, then waits 5 s before SIGKILL. A host
  // started with SIGINT ignored (`pulumi up &` in a script, nohup) must still exit on it, or every
  // command that runs a program waits those 5 s (scripts/langhost/patch-host.js).
  const ignoringSigint = (command: string, ...args: string[]) => spawn("bash", ["-c", 'trap "" INT; exec "$0" "$@"', command, ...args], { stdio: ["ignore", "pipe", "inherit"] });

  test.each(["nodejs", "python", "yaml"])("the %s language host, started with SIGINT ignored, exits on the engine's SIGINT", async (language) => {
    // The way it is started leaves SIGINT ignored across exec (SigIgn bit 2), as a background shell job does.
    const probe = ignoringSigint("grep", "^SigIgn", "/proc/self/status");
    const [probed] = await Promise.all([new Promise<string>((resolve) => probe.stdout!.once("data", (data: Buffer) => resolve(data.toString()))), new Promise((resolve) => probe.once("exit", resolve))]);
    expect(BigInt(`0x${probed.split(/\s+/)[1]}`) & 2n).toBe(2n);

    // With an engine address, as the engine starts it (a health check that fails only minutes later).
    const host = ignoringSigint(path.join(engine.binDir, `pulumi-language-${language}`), "127.0.0.1:1");
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => host.once("exit", (code, signal) => resolve(signal ?? code)));
    try {
      await new Promise((resolve, reject) => {
        host.stdout!.once("data", resolve); // its port: it serves
        host.once("exit", () => reject(new Error(`pulumi-language-${language} exited before serving`)));
      });
      host.kill("SIGINT");
      // Waiting longer than the engine's 5 s: a host that ignores SIGINT never exits by itself.
      const outcome = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 15_000))]);
      expect(outcome).not.toBe("still running");
    } finally {
      host.kill("SIGKILL");
    }
  }, 60 * 1000);
});
