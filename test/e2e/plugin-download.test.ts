// The engine fetches the plugin by itself, as it does for every published provider: scripts/release
// writes the plugin tarball of this machine's platform, a local HTTP server stands in for the release
// host, and PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES (`regexp=URL`, matched against the plugin's download
// source) sends the engine there. PULUMI_HOME starts empty and no Pulumi.yaml names a plugin path: a
// Pulumi YAML program that asks for the package's version runs up (the engine downloads and installs
// the plugin), a no-op preview (no second download), destroy; then, with another empty PULUMI_HOME, a
// Python program whose venv holds only `pulumi` and our wheel (whose pulumi-plugin.json names the
// version and the download URL) does the same, with a GuardedEnvironment whose policy case the
// downloaded plugin runs at preview. On Linux the downloaded plugin is the single
// executable, and the programs run with no Node.js on PATH at all. Last, TypeScript programs (with
// Node.js): one on `plugin.*`, whose registrations name the version and download URL, gets the plugin
// installed on demand; one on the dynamic classes alone downloads nothing.
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";

import type { Stack } from "@pulumi/pulumi/automation";

import { runCommand, timeLeftOf } from "../support/commands";
import { pythonSdkVenvBinDir, repoRoot } from "./engine";
import { javascriptProject } from "../../devtools/packed-workspace";
import { E2E_TEST_TIMEOUT_MS, listIds, program, useE2E } from "./_workspace";

const VERSION: string = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version;
const PLATFORM = `${os.platform()}-${{ x64: "amd64", arm64: "arm64" }[os.arch() as string] ?? os.arch()}`;
const TARBALL = `pulumi-resource-gemini-environments-v${VERSION}-${PLATFORM}.tar.gz`;
const RELEASE_TIMEOUT_MS = 600_000;

/** A stand-in for the release host: `dir`'s files over HTTP on 127.0.0.1, every request's path logged. */
async function serveReleaseDir(dir: string): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url ?? "/", "http://host").pathname.slice(1));
    requests.push(`${request.method} /${name}`);
    const file = path.join(dir, path.basename(name));
    fs.stat(file, (error, stat) => {
      if (error || !stat.isFile() || name.includes("/")) {
        response.writeHead(404).end("not found\n");
        return;
      }
      response.writeHead(200, { "content-type": "application/gzip", "content-length": stat.size });
      fs.createReadStream(file).pipe(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const YAML_PROGRAM = `name: downloaded-yaml
runtime: yaml
resources:
  token:
    type: gemini-environments:Credential
    properties:
      credentialId: downloaded-token
      type: bearer_token
      token:
        fn::secret: ghp_downloaded-4b1e
    options:
      version: ${VERSION}
  agent:
    type: gemini-environments:Environment
    properties:
      sources:
        - type: inline
          target: workspace/TASK.md
          content: "Triage the open issues.\\n"
    options:
      version: ${VERSION}
outputs:
  environmentId: \${agent.id}
  status: \${agent.status}
  credentialId: \${token.credentialId}
  credentialStatus: \${token.status}
`;

const PYTHON_PROGRAM = `"""Typed classes of the generated SDK; the engine downloads the plugin that serves them."""
import pulumi
import pulumi_gemini_environments as genv

token = genv.Credential("token", credential_id="downloaded-py-token", type="bearer_token", token=pulumi.Output.secret("ghp_downloaded-py"))
agent = genv.Environment(
    "agent",
    sources=[genv.SourceArgs(type=genv.SourceType.INLINE, target="workspace/TASK.md", content="Triage the open issues.\\n")],
    network=genv.EgressPolicyArgs(allowlist=[genv.AllowlistEntryArgs(domain="api.github.com", credential=token.credential_id)]),
)
GATE = "import json, sys\\ncode = json.load(sys.stdin)['tool_call']['args'].get('code', '')\\nprint(json.dumps({'decision': 'deny', 'reason': 'destructive'} if 'rm -rf' in code else {'decision': 'allow'}))\\n"
guarded = genv.GuardedEnvironment(
    "guarded",
    hooks=genv.HookBundleArgs(
        config={"gate": genv.HooksGroupArgs(pre_tool_execution=[genv.HooksRuleArgs(matcher="code_execution", hooks=[genv.CommandHandlerArgs(type="command", command="python3 /.agents/hooks-scripts/gate.py", timeout=10)])])},
        scripts={"gate.py": GATE},
        tests=[genv.HooksTestCaseArgs(name="rm is blocked", tool_call={"name": "code_execution", "args": {"code": "rm -rf /"}}, expect="deny", reason="destructive")],
    ),
    network=genv.EgressPolicyArgs(disabled=True),
)
pulumi.export("environmentId", agent.id)
pulumi.export("status", agent.status)
pulumi.export("credentialId", token.credential_id)
pulumi.export("guardedId", guarded.environment_id)
`;

/** A TypeScript program on the plugin's classes and functions: the package registers their version and download URL, as a generated SDK does. */
const TYPESCRIPT_PLUGIN_PROGRAM = program(`
const token = new genv.plugin.Credential("token", { credentialId: "downloaded-ts-token", type: "bearer_token", token: pulumi.secret("ghp_downloaded-ts") });
const agent = new genv.plugin.Environment("agent", {
  sources: [{ type: "inline", target: "workspace/TASK.md", content: "Triage the open issues.\\n" }],
  network: { allowlist: [{ domain: "api.github.com", credential: token.credentialId }] },
});
exports.environmentId = agent.id;
exports.lookedUpStatus = genv.plugin.getEnvironmentOutput({ id: agent.id }).status;
`);

/** The same program on the dynamic classes, which need no plugin. */
const TYPESCRIPT_DYNAMIC_PROGRAM = program(`
const agent = new genv.Environment("agent", { sources: [{ type: "inline", target: "workspace/TASK.md", content: "Triage.\\n" }] });
exports.environmentId = agent.id;
`);

describe("the engine downloads the plugin from the release host (empty PULUMI_HOME, no plugin path)", () => {
  const e2e = useE2E();
  let scratch: string;
  let host: Awaited<ReturnType<typeof serveReleaseDir>>;
  /** The programs' environment: the download override, and on Linux a PATH with no Node.js. */
  let env: Record<string, string>;

  beforeAll(async () => {
    scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-plugin-download-"));
    const release = path.join(scratch, "release");
    await runCommand([path.join(repoRoot, "scripts", "release"), "--out", release, "--platforms", PLATFORM], { cwd: repoRoot, timeoutMs: timeLeftOf(RELEASE_TIMEOUT_MS)() });
    host = await serveReleaseDir(release);
    env = { PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `gemini-environments=${host.url}` };
    // The single executable needs no Node.js: the engine and its YAML language host need nothing on PATH.
    if (os.platform() === "linux") env.PATH = e2e().engine.binDir;
  }, RELEASE_TIMEOUT_MS);

  afterAll(async () => {
    await host?.close();
    await fs.promises.rm(scratch, { recursive: true, force: true });
  });

  describe("a Pulumi YAML program", () => {
    let stack: Stack;
    let dir: string;

    beforeAll(async () => {
      dir = path.join(e2e().workspace.root, "programs", "downloaded-yaml");
      await fs.promises.mkdir(dir, { recursive: true });
      await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), YAML_PROGRAM);
      stack = await e2e().stack(dir, "downloaded", { env });
    }, E2E_TEST_TIMEOUT_MS);

    test("up downloads the plugin once from the release host, installs it, and creates the resources", async () => {
      const plugins = path.join(e2e().engine.env.PULUMI_HOME, "plugins");
      expect(fs.existsSync(path.join(plugins, `resource-gemini-environments-v${VERSION}`))).toBe(false);

      const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
      expect(up.summary.resourceChanges).toEqual({ create: 3 });
      expect(up.outputs.status.value).toBe("active");
      expect(up.outputs.credentialStatus.value).toBe("active");
      expect(up.outputs.credentialId.value).toBe("downloaded-token");
      expect(host.requests).toEqual([`GET /${TARBALL}`]);

      const installed = path.join(plugins, `resource-gemini-environments-v${VERSION}`, "pulumi-resource-gemini-environments");
      const listed = await e2e().pulumi(["plugin", "ls"], dir);
      expect(listed).toMatch(new RegExp(`gemini-environments\\s+resource\\s+${VERSION.replace(/\./g, "\\.")}`));
      // On Linux the engine runs the single executable (an ELF binary), not the shell launcher.
      const magic = (await fs.promises.readFile(installed)).subarray(0, 4);
      expect(magic.toString("latin1")).toBe(os.platform() === "linux" ? "\x7fELF" : "#!/b");
      expect(await e2e().client.get(up.outputs.environmentId.value)).toMatchObject({ status: "active" });
    }, E2E_TEST_TIMEOUT_MS);

    test("a no-op preview shows no change and downloads nothing more", async () => {
      const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
      expect(preview.changeSummary).toEqual({ same: 3 });
      expect(host.requests).toEqual([`GET /${TARBALL}`]);
    }, E2E_TEST_TIMEOUT_MS);

    test("destroy leaves nothing", async () => {
      const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
      expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
      expect(await listIds(e2e().client)).toEqual([]);
      await expect(e2e().client.credentials.get("downloaded-token")).rejects.toThrow();
    }, E2E_TEST_TIMEOUT_MS);
  });

  describe("a Python program, its venv holding only pulumi and our wheel", () => {
    let stack: Stack;
    let dir: string;
    let home: string;
    let pythonEnv: Record<string, string>;

    beforeAll(async () => {
      dir = path.join(e2e().workspace.root, "programs", "downloaded-python");
      await fs.promises.mkdir(dir, { recursive: true });
      await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), "name: downloaded-python\nruntime: python\n");
      await fs.promises.writeFile(path.join(dir, "__main__.py"), PYTHON_PROGRAM);
      home = path.join(scratch, "python-home");
      await fs.promises.mkdir(home);
      const venvBin = await pythonSdkVenvBinDir();
      pythonEnv = { ...env, PULUMI_HOME: home, PATH: [venvBin, env.PATH ?? e2e().engine.env.PATH].join(path.delimiter) };
      stack = await e2e().stack(dir, "downloaded", { env: pythonEnv });
    }, RELEASE_TIMEOUT_MS);

    test("up downloads the plugin into the empty PULUMI_HOME and creates the credential, the environment that references it, and the guarded environment", async () => {
      const before = host.requests.length;
      const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
      // The stack, the credential, the environment, the component and its environment.
      expect(up.summary.resourceChanges).toEqual({ create: 5 });
      expect(up.outputs.status.value).toBe("active");
      expect(up.outputs.credentialId.value).toBe("downloaded-py-token");
      expect(host.requests.slice(before)).toEqual([`GET /${TARBALL}`]);
      expect(fs.existsSync(path.join(home, "plugins", `resource-gemini-environments-v${VERSION}`, "pulumi-resource-gemini-environments"))).toBe(true);
      const environment = await e2e().client.get(up.outputs.environmentId.value);
      expect(environment.network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "downloaded-py-token" }] });
      expect((await e2e().client.get(up.outputs.guardedId.value)).status).toBe("active");
    }, E2E_TEST_TIMEOUT_MS);

    test("a no-op preview shows no change, makes no API call and downloads nothing more", async () => {
      const before = host.requests.length;
      let preview: Awaited<ReturnType<Stack["preview"]>> | undefined;
      const requests = await e2e().requestsDuring(async () => {
        preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
      });
      expect(preview!.changeSummary).toEqual({ same: 5 });
      expect(requests).toEqual([]);
      expect(host.requests.length).toBe(before);
    }, E2E_TEST_TIMEOUT_MS);

    test("the downloaded plugin runs the policy cases at preview: a case the gate does not meet fails it", async () => {
      const program = path.join(dir, "__main__.py");
      await fs.promises.writeFile(program, PYTHON_PROGRAM.replace('expect="deny", reason="destructive"', 'expect="allow"'));
      try {
        await expect(e2e().run(stack, (s, onOutput) => s.preview({ onOutput }))).rejects.toThrow(/policy tests failed \(1 of 1\):\s+- rm is blocked: expected allow, got deny/);
      } finally {
        await fs.promises.writeFile(program, PYTHON_PROGRAM);
      }
    }, E2E_TEST_TIMEOUT_MS);

    test("destroy leaves nothing", async () => {
      const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
      expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
      expect(await listIds(e2e().client)).toEqual([]);
      await expect(e2e().client.credentials.get("downloaded-py-token")).rejects.toThrow();
    }, E2E_TEST_TIMEOUT_MS);
  });

  describe("a TypeScript program: plugin.* registers the plugin's version and download URL; the dynamic classes need no plugin", () => {
    /** A Node.js program's environment: its own empty PULUMI_HOME, Node.js on PATH for the language host. */
    const nodeEnv = async (name: string) => {
      const home = path.join(scratch, name);
      await fs.promises.mkdir(home);
      return { home, env: { ...env, PULUMI_HOME: home, PATH: [path.dirname(process.execPath), e2e().engine.binDir].join(path.delimiter) } };
    };
    const installed = (home: string) => fs.existsSync(path.join(home, "plugins", `resource-gemini-environments-v${VERSION}`));

    test("a program on the dynamic classes alone runs up and destroy with nothing downloaded", async () => {
      const { home, env: programEnv } = await nodeEnv("dynamic-home");
      const dir = await e2e().workspace.addProgram("downloaded-dynamic", TYPESCRIPT_DYNAMIC_PROGRAM, javascriptProject("downloaded-dynamic"));
      const stack = await e2e().stack(dir, "downloaded", { env: programEnv });
      const before = host.requests.length;
      const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
      expect(up.summary.resourceChanges).toEqual({ create: 2 });
      await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
      expect(host.requests.length).toBe(before);
      expect(installed(home)).toBe(false);
    }, E2E_TEST_TIMEOUT_MS);

    test("a program on plugin.* gets the plugin installed on demand (one download, no plugins: in Pulumi.yaml), runs up, a no-op preview, destroy", async () => {
      const { home, env: programEnv } = await nodeEnv("plugin-home");
      const dir = await e2e().workspace.addProgram("downloaded-ts", TYPESCRIPT_PLUGIN_PROGRAM, javascriptProject("downloaded-ts"));
      expect(await fs.promises.readFile(path.join(dir, "Pulumi.yaml"), "utf8")).not.toContain("plugins:");
      const stack = await e2e().stack(dir, "downloaded", { env: programEnv });
      const before = host.requests.length;
      const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
      expect(up.summary.resourceChanges).toEqual({ create: 3 });
      expect(up.outputs.lookedUpStatus.value).toBe("active");
      expect(host.requests.slice(before)).toEqual([`GET /${TARBALL}`]);
      expect(installed(home)).toBe(true);
      const environment = await e2e().client.get(up.outputs.environmentId.value);
      expect(environment.network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "downloaded-ts-token" }] });

      const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
      expect(preview.changeSummary).toEqual({ same: 3 });
      expect(host.requests.length).toBe(before + 1);
      const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
      expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
      expect(await listIds(e2e().client)).toEqual([]);
    }, E2E_TEST_TIMEOUT_MS);
  });
});
