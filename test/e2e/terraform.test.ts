// The Terraform provider through the real engines (Terraform 1.11 on PATH; OpenTofu when
// scripts/opentofu has built it), installed by `init` from a filesystem mirror of the release zip
// (scripts/pack-terraform; devtools/terraform.ts's mirror, cached per sources), against the emulator: validate, apply, a no-op plan, an in-place change
// and a replacement, the data sources, the hooks data source's gate denying through :executeTool,
// hook files an agent rewrote, an environment deleted out of band, import, destroy, and a killed apply;
// the write-only token_wo (plan, state, rotation, import), egress_allowed, the provider's stderr in the
// engine's log (GRPCStdio), and import by identity (OpenTofu 1.12). One emulator, one mirror; each engine one working directory, its cases in order.
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { EnvironmentsClient } from "../../client/client";
import { ownerOf } from "../../emulator/api";
import { startTestEmulator, TEST_KEY, type TestEmulator } from "../support/emulator";
import { describeNeeding } from "../support/prerequisites";
import { cachedOpenTofuBinary, cliConfig, PROVIDER_SOURCE, providerMirror, terraformEnv, terraformOnPath, type ProviderMirror } from "../../devtools/terraform";
import { FAIL_OPEN_CALLS, ORDINARY_CALLS, PROBE_SCRIPTS } from "../support/probe-gates";
import { repoRoot } from "./engine";

const TEST_TIMEOUT_MS = 120_000;
const MIRROR_TIMEOUT_MS = 240_000;
const GATE = fs.readFileSync(path.join(repoRoot, "examples/terraform/data-sources/geminienvironments_hooks/gate.py"), "utf8");

/**
 * The engines: Terraform from PATH, OpenTofu from scripts/opentofu's cache (built there by .ci/run,
 * not here). Import by identity is OpenTofu 1.12's (Terraform's is 1.12 too, and this one is 1.11).
 */
const ENGINES = [
  { name: "terraform", binary: terraformOnPath(), identity: false },
  { name: "tofu", binary: cachedOpenTofuBinary(repoRoot), identity: true },
];

// One emulator; the release zip of this machine's platform (the single executable on Linux) in a mirror.
let emulator: TestEmulator;
let client: EnvironmentsClient;
let mirror: ProviderMirror;

beforeAll(async () => {
  [emulator, mirror] = await Promise.all([startTestEmulator(), providerMirror(repoRoot)]);
  client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator.url });
}, MIRROR_TIMEOUT_MS);

afterAll(() => emulator?.close());

for (const engine of ENGINES) {
  describeNeeding({ [`${engine.name} (${engine.name === "tofu" ? "scripts/opentofu" : "Terraform 1.11 on PATH"})`]: engine.binary !== undefined })(`the Terraform provider through ${engine.name}`, () => {
    let dir: string;
    let environmentId: string;

    /** Runs the engine in the working directory; resolves with its exit code and output, whatever the code. */
    const environment = (baseUrl = emulator.url) => {
      // The key in GEMINI_API_KEY, the provider's default (terraformEnv gives GOOGLE_API_KEY, its other name).
      const { GOOGLE_API_KEY: _, ...env } = terraformEnv({ cliConfigFile: path.join(dir, "cli.tfrc"), baseUrl, apiKey: TEST_KEY });
      return { ...env, GEMINI_API_KEY: TEST_KEY, TF_VAR_written_token: written!.writtenToken };
    };
    const run = (...args: string[]) => runWith(environment(baseUrl), ...args);
    const runWith = async (env: NodeJS.ProcessEnv, ...args: string[]) => {
      try {
        const { stdout, stderr } = await promisify(execFile)(engine.binary!, [...args, "-no-color"], { cwd: dir, env, timeout: TEST_TIMEOUT_MS - 20_000, maxBuffer: 64 << 20 });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code?: number; stdout?: string; stderr?: string };
        if (typeof failed.code !== "number") throw error;
        return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
      }
    };
    /** The emulator the next commands use (the killed apply's has slow creates). */
    let baseUrl: string | undefined;
    const ok = async (...args: string[]) => {
      const result = await run(...args);
      if (result.code !== 0) throw new Error(`${engine.name} ${args.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
      return result.stdout;
    };
    /** The write-only token and its version the configuration declares now (the write-only test changes them). */
    let written: Pick<Declared, "writtenToken" | "writtenVersion"> | undefined;
    const configure = (options: Partial<Declared> = {}) => fs.writeFileSync(path.join(dir, "main.tf"), configuration({ ...DECLARED, ...written, ...options }));
    const outputs = async () => JSON.parse(await ok("output", "-json")) as Record<string, { value: unknown }>;
    const liveEnvironments = async () => (await client.list()).environments?.map((environment) => environment.id) ?? [];
    const fileText = async (id: string, file: string) => (await client.files.downloadBuffer(id, file)).data.toString("utf8");

    beforeAll(() => {
      written = { writtenToken: DECLARED.writtenToken, writtenVersion: DECLARED.writtenVersion };
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `tf-${engine.name}-`));
      fs.writeFileSync(path.join(dir, "gate.py"), GATE);
      fs.writeFileSync(path.join(dir, "cli.tfrc"), cliConfig([{ dir: mirror.dir, providers: [PROVIDER_SOURCE] }]));
    });
    afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

    test("init installs the provider from a filesystem mirror of the release zip", async () => {
      configure();
      expect(await ok("init")).toMatch(new RegExp(`Installed gemini-environments/geminienvironments v${mirror.version.replace(/\./g, "\\.")}`));
    }, TEST_TIMEOUT_MS);

    test("bad input: validate names sources[0].target at its line, a plan names sources[2].target, and nothing is created", async () => {
      // Known at validate: a literal list.
      configure({ escaping: "../escape.md" });
      const validate = await run("validate", "-json");
      expect(validate.code).toBe(1);
      const diagnostics = JSON.parse(validate.stdout).diagnostics as Array<{ severity: string; summary: string; range?: { start: { line: number } } }>;
      const error = diagnostics.find((diagnostic) => diagnostic.severity === "error");
      expect(error?.summary).toMatch(/^sources\[0\]\.target: "\.\.\/escape\.md" .*escapes/);
      // Terraform points at the source's own line in the configuration (not the resource's).
      const lines = fs.readFileSync(path.join(dir, "main.tf"), "utf8").split("\n");
      expect(lines[error!.range!.start.line - 1]).toContain("../escape.md");
      // Known at plan only (after the hooks data source's two sources): the plan stops, naming it.
      configure({ readmeTarget: "../escape.md" });
      const posts = emulator.requests.length;
      const apply = await run("apply", "-auto-approve");
      expect(apply.code).toBe(1);
      expect(apply.stderr).toMatch(/sources\[2\]\.target: "\.\.\/escape\.md" .*escapes/);
      expect(emulator.requests.slice(posts).filter((request) => request.method === "POST")).toEqual([]);
    }, TEST_TIMEOUT_MS);

    test("apply: a credential, a gated environment and the data sources; the gate denies through :executeTool", async () => {
      configure();
      const applied = await ok("apply", "-auto-approve");
      // Sensitive: hidden in the plan (Terraform's state keeps it, in clear, as it keeps every secret).
      expect(applied).toMatch(/token += \(sensitive value\)/);
      expect(applied).not.toContain("ghp_example");
      const values = await outputs();
      environmentId = values.environment_id.value as string;
      expect(await liveEnvironments()).toEqual([environmentId]);
      expect(await fileText(environmentId, "workspace/README.md")).toBe("first\n");
      expect(await fileText(environmentId, ".agents/hooks-scripts/gate.py")).toBe(GATE);
      expect(values).toMatchObject({
        file_content: { value: "first\n" },
        listed: { value: true },
        file_count: { value: 3 },
        credential_type: { value: "bearer_token" },
        credential_listed: { value: true },
        egress_allowed: { value: true },
        egress_denied: { value: false },
      });
      const denied = await client.executeTool(environmentId, { name: "code_execution", args: { code: "rm -rf /workspace", language: "bash" } });
      expect(denied).toMatchObject({ decision: "deny", reason: "Destructive command blocked by security gate." });
    }, TEST_TIMEOUT_MS);

    test("a second plan changes nothing (-detailed-exitcode 0)", async () => {
      const plan = await run("plan", "-detailed-exitcode");
      expect(plan.stdout).toContain("No changes.");
      expect(plan.code).toBe(0);
    }, TEST_TIMEOUT_MS);

    test("write-only token_wo: the API gets it; neither plan, state nor show -json holds it; a new value alone plans nothing, a new version sends it in place; import then apply sends it once", async () => {
      const owner = ownerOf(TEST_KEY);
      const state = () => fs.readFileSync(path.join(dir, "terraform.tfstate"), "utf8");
      const patches = async (during: () => Promise<unknown>) => {
        const from = emulator.requests.length;
        await during();
        return emulator.requests.slice(from).filter((request) => request.method === "PATCH").map((request) => request.path);
      };
      expect(emulator.credentials.reveal(owner, "written-token")).toMatchObject({ token: "wo-secret-1" });
      expect(state()).toContain('"token_wo_version": 1');
      expect(state()).not.toContain("wo-secret");
      expect(await ok("show", "-json")).not.toContain("wo-secret");

      // Both of a pair: an error naming both.
      configure({ writtenBoth: true });
      const both = await run("validate", "-json");
      expect(both.code).toBe(1);
      expect((JSON.parse(both.stdout).diagnostics as Array<{ summary: string }>).map((diagnostic) => diagnostic.summary)).toContain(
        "token and token_wo: set one of them, not both (token_wo is write-only: the secret stays out of plan and state)",
      );

      // A new value, the same version: nothing to do.
      written = { writtenToken: "wo-secret-2", writtenVersion: 1 };
      configure();
      expect((await run("plan", "-detailed-exitcode")).code).toBe(0);

      // A new version: an update in place, which sends the token (and only it), kept out of the saved plan.
      written = { writtenToken: "wo-secret-2", writtenVersion: 2 };
      configure();
      const plan = await run("plan", "-detailed-exitcode", "-out=rotate.tfplan");
      expect(plan.code).toBe(2);
      expect(plan.stdout).toMatch(/geminienvironments_credential\.written will be updated in-place/);
      expect(plan.stdout).toMatch(/~ token_wo_version += 1 -> 2/);
      expect(plan.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
      expect(plan.stdout + (await ok("show", "-json", "rotate.tfplan"))).not.toContain("wo-secret");
      expect(await patches(() => ok("apply", "rotate.tfplan"))).toEqual(["/v1beta/credentials/written-token?update_mask=token"]);
      expect(emulator.credentials.reveal(owner, "written-token")).toMatchObject({ token: "wo-secret-2" });
      expect(state()).not.toContain("wo-secret");

      // Imported (no secret, no version in the state): the first apply sends the token once, then nothing is left to do.
      await ok("state", "rm", "geminienvironments_credential.written");
      await client.credentials.update("written-token", { type: "bearer_token", token: "rotated-elsewhere" }, { updateMask: ["token"] });
      expect(await ok("import", "geminienvironments_credential.written", "written-token")).toContain("Import successful!");
      expect(await patches(() => ok("apply", "-auto-approve"))).toEqual(["/v1beta/credentials/written-token?update_mask=token"]);
      expect(emulator.credentials.reveal(owner, "written-token")).toMatchObject({ token: "wo-secret-2" });
      expect((await run("plan", "-detailed-exitcode")).code).toBe(0);
      expect(state()).not.toContain("wo-secret");
    }, TEST_TIMEOUT_MS);

    test("egress_allowed: a bad URL is an error naming the url argument, at validate", async () => {
      // Not through `console`: OpenTofu 1.12's closes the provider before it calls a provider function.
      configure({ badUrl: "api.example.com/v1" });
      const validate = await run("validate");
      configure();
      expect(validate.code).toBe(1);
      expect(validate.stderr.replace(/\s+/g, " ")).toContain('Invalid value for "url" parameter: url: "api.example.com/v1" is not a URL: write it whole, e.g. "https://api.github.com/user".');
    }, TEST_TIMEOUT_MS);

    test("GRPCStdio: what the provider writes on stderr (an unexpected error's stack) reaches the engine's log as a Go provider's does", async () => {
      const plan = await runWith({ ...environment(), GEMINI_API_KEY: "not-a-key", TF_LOG: "debug" }, "plan", "-refresh-only");
      expect(plan.code).toBe(1);
      expect(plan.stderr).toMatch(
        /\[WARN\] +unexpected data:\s+registry\.(terraform\.io|opentofu\.org)\/gemini-environments\/geminienvironments:stderr=\s+\| terraform-provider-geminienvironments: ReadResource: EnvironmentsApiError: API key not valid\.[^\n]*\n\s+\|\s+at /,
      );
      expect(plan.stderr).not.toContain("does not implement the method /plugin.GRPCStdio/StreamStdio");
    }, TEST_TIMEOUT_MS);

    test("an edited file updates the environment in place: the same id, the new content", async () => {
      configure({ readme: "second\n" });
      const plan = await run("plan", "-detailed-exitcode");
      expect(plan.code).toBe(2);
      expect(plan.stdout).toMatch(/geminienvironments_environment\.gated will be updated in-place/);
      await ok("apply", "-auto-approve");
      expect((await outputs()).environment_id.value).toBe(environmentId);
      expect(await fileText(environmentId, "workspace/README.md")).toBe("second\n");
    }, TEST_TIMEOUT_MS);

    test("a network change replaces the environment, naming the attribute: a new id, the old one gone", async () => {
      configure({ readme: "second\n", domain: "api.example.org" });
      const plan = await run("plan", "-detailed-exitcode");
      expect(plan.stdout).toMatch(/geminienvironments_environment\.gated must be replaced/);
      expect(plan.stdout).toMatch(/domain += "api\.example\.com" -> "api\.example\.org" # forces replacement/);
      await ok("apply", "-auto-approve");
      const replaced = (await outputs()).environment_id.value as string;
      expect(replaced).not.toBe(environmentId);
      expect(await liveEnvironments()).toEqual([replaced]);
      environmentId = replaced;
    }, TEST_TIMEOUT_MS);

    test("a hook script the agent rewrote is found by refresh and restored by apply", async () => {
      await client.files.upload({ environment: environmentId, path: ".agents/hooks-scripts/gate.py", data: Buffer.from("print('{\"decision\": \"allow\"}')\n"), overwrite: true });
      const plan = await run("plan", "-detailed-exitcode");
      expect(plan.code).toBe(2);
      expect(plan.stdout).toMatch(/drifted_hook_files = \[\s+- "\.agents\/hooks-scripts\/gate\.py",\s+\] -> null/);
      await ok("apply", "-auto-approve");
      expect(await fileText(environmentId, ".agents/hooks-scripts/gate.py")).toBe(GATE);
      expect((await run("plan", "-detailed-exitcode")).code).toBe(0);
    }, TEST_TIMEOUT_MS);

    test("an environment deleted outside Terraform leaves the state at refresh, and apply makes it again", async () => {
      await client.delete(environmentId);
      const plan = await run("plan", "-detailed-exitcode");
      expect(plan.stdout).toMatch(/geminienvironments_environment\.gated will be created/);
      await ok("apply", "-auto-approve");
      environmentId = (await outputs()).environment_id.value as string;
      expect(await liveEnvironments()).toEqual([environmentId]);
    }, TEST_TIMEOUT_MS);

    if (engine.identity) {
      test("import by identity: an import block's identity = { id } adopts an environment, the next plan is empty, and the state records the identity", async () => {
        const made = await client.create({ sources: [{ type: "inline", target: "notes.md", content: "made elsewhere\n" }], network: "disabled" });
        configure({ readme: "second\n", domain: "api.example.org", importedByIdentity: made.id });
        const plan = await run("plan", "-detailed-exitcode");
        expect(plan.stdout).toContain("Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.");
        await ok("apply", "-auto-approve");
        expect((await run("plan", "-detailed-exitcode")).code).toBe(0);
        const state = JSON.parse(fs.readFileSync(path.join(dir, "terraform.tfstate"), "utf8")) as { resources: Array<{ type: string; name: string; instances: Array<{ identity?: unknown }> }> };
        const identity = (type: string, name: string) => state.resources.find((resource) => resource.type === type && resource.name === name)?.instances[0].identity;
        expect(identity("geminienvironments_environment", "by_identity")).toEqual({ id: made.id });
        expect(identity("geminienvironments_credential", "written")).toEqual({ credential_id: "written-token" });
        await ok("state", "rm", "geminienvironments_environment.by_identity");
        await client.delete(made.id);
      }, TEST_TIMEOUT_MS);
    }

    test("import: an import block takes an environment made outside Terraform, and its configuration plans no change", async () => {
      const made = await client.create({ sources: [{ type: "inline", target: "notes.md", content: "made elsewhere\n" }], network: "disabled" });
      configure({ readme: "second\n", domain: "api.example.org", imported: made.id });
      const plan = await run("plan", "-detailed-exitcode");
      expect(plan.stdout).toContain("Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.");
      await ok("apply", "-auto-approve");
      expect((await run("plan", "-detailed-exitcode")).code).toBe(0);
      expect((await liveEnvironments()).sort()).toEqual([environmentId, made.id].sort());
      // And by the command: `terraform import ADDRESS ID`.
      await ok("state", "rm", "geminienvironments_environment.imported");
      expect(await ok("import", "geminienvironments_environment.imported", made.id)).toContain("Import successful!");
      expect((await run("plan", "-detailed-exitcode")).code).toBe(0);
    }, TEST_TIMEOUT_MS);

    test("a state written by an earlier version of the provider (an attribute it lacked, one since removed) plans no change", async () => {
      const file = path.join(dir, "terraform.tfstate");
      const state = JSON.parse(fs.readFileSync(file, "utf8"));
      for (const resource of state.resources.filter((candidate: { type: string }) => candidate.type === "geminienvironments_environment")) {
        for (const instance of resource.instances) {
          delete instance.attributes.last_accessed;
          instance.attributes.retired_attribute = "from an older provider";
        }
      }
      fs.writeFileSync(file, JSON.stringify(state));
      expect((await run("plan", "-detailed-exitcode", "-refresh=false")).code).toBe(0);
    }, TEST_TIMEOUT_MS);

    test("destroy leaves no environment and no credential", async () => {
      await ok("destroy", "-auto-approve");
      expect(await liveEnvironments()).toEqual([]);
      expect((await client.credentials.list()).credentials ?? []).toEqual([]);
    }, TEST_TIMEOUT_MS);

    test("on_failure = \"deny\" on geminienvironments_hooks: the gates that fail open deny those calls, and keep their own decisions; without it they allow", async () => {
      for (const [name, content] of Object.entries(PROBE_SCRIPTS)) fs.writeFileSync(path.join(dir, name), content);
      fs.writeFileSync(path.join(dir, "main.tf"), ON_FAILURE_CONFIGURATION);
      await ok("apply", "-auto-approve");
      const values = await outputs();
      const [closed, open] = [values.closed_id.value as string, values.open_id.value as string];
      expect(values.closed_hooks_json.value).not.toContain("on_failure");
      for (const { tool_call, failure } of FAIL_OPEN_CALLS) {
        const denied = await client.executeTool(closed, tool_call);
        expect([tool_call.args, denied.decision, denied.reason]).toEqual([tool_call.args, "deny", expect.stringContaining(failure)]);
        expect([tool_call.args, (await client.executeTool(open, tool_call)).decision]).toEqual([tool_call.args, "allow"]);
      }
      for (const { tool_call, expect: decision, reason } of ORDINARY_CALLS) {
        const own = await client.executeTool(closed, tool_call);
        expect([tool_call.args, own.decision, own.reason]).toEqual([tool_call.args, decision, reason === undefined ? undefined : expect.stringContaining(reason)]);
      }
      await ok("destroy", "-auto-approve");
      expect(await liveEnvironments()).toEqual([]);
    }, TEST_TIMEOUT_MS);

    test("a killed apply, then a second apply: the environment the first made is adopted, none orphaned, none doubled", async () => {
      // Creates answered 5 s late: the environment exists while Terraform still waits, and is killed.
      const slow = await startTestEmulator({ faults: "rate=1,kinds=slow,routes=create,delay=5s" });
      const slowClient = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: slow.url });
      const slowEnvironments = async () => (await slowClient.list()).environments?.map((item) => item.id) ?? [];
      baseUrl = slow.url;
      try {
        fs.writeFileSync(path.join(dir, "main.tf"), KILLED_CONFIGURATION);
        const apply = spawn(engine.binary!, ["apply", "-auto-approve", "-no-color"], { cwd: dir, env: environment(slow.url), detached: true, stdio: "ignore" });
        const exited = new Promise((resolve) => apply.once("exit", resolve));
        for (const until = Date.now() + 30_000; (await slowEnvironments()).length === 0 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 100));
        const [made] = await slowEnvironments();
        expect(made).toBeDefined();
        process.kill(-apply.pid!, "SIGKILL"); // Terraform and its provider, as a cancelled CI job is
        await exited;
        expect(fs.readFileSync(path.join(dir, "terraform.tfstate"), "utf8")).not.toContain(made);

        await ok("apply", "-auto-approve");
        expect((await outputs()).killed_id.value).toBe(made);
        expect(await slowEnvironments()).toEqual([made]);
        const plan = await run("plan", "-detailed-exitcode");
        expect(plan.stderr).toBe("");
        expect(plan.code).toBe(0);
        await ok("destroy", "-auto-approve");
        expect(await slowEnvironments()).toEqual([]);
      } finally {
        baseUrl = undefined;
        await slow.close();
      }
    }, TEST_TIMEOUT_MS);

    test("a killed apply, then a second apply: the credential the first made is adopted with the declared secret, not refused as taken", async () => {
      // Credential calls answered 1 s late: the credential exists while Terraform still waits, and is killed.
      const slow = await startTestEmulator({ faults: "rate=1,kinds=slow,routes=credentials,delay=1s" });
      const slowClient = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: slow.url });
      const credentials = async () => (await slowClient.credentials.list()).credentials?.map((item) => item.id) ?? [];
      baseUrl = slow.url;
      try {
        fs.writeFileSync(path.join(dir, "main.tf"), KILLED_CREDENTIAL_CONFIGURATION);
        const apply = spawn(engine.binary!, ["apply", "-auto-approve", "-no-color"], { cwd: dir, env: environment(slow.url), detached: true, stdio: "ignore" });
        const exited = new Promise((resolve) => apply.once("exit", resolve));
        // The create reached the emulator (a slow answer dealt; the log has it only once answered), and was handled at once.
        const reached = () => (slow.faults?.dealt.get("slow") ?? 0) > 0;
        for (const until = Date.now() + 30_000; !reached() && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 20));
        await new Promise((resolve) => setTimeout(resolve, 300));
        process.kill(-apply.pid!, "SIGKILL");
        await exited;
        expect(await credentials()).toEqual(["killed-token"]);
        expect(fs.readFileSync(path.join(dir, "terraform.tfstate"), "utf8")).not.toContain("killed-token");

        await ok("apply", "-auto-approve");
        expect(await credentials()).toEqual(["killed-token"]);
        const patched = slow.requests.filter((request) => request.method === "PATCH");
        expect(patched.map((request) => request.path)).toEqual([expect.stringMatching(/\/credentials\/killed-token\?/)]);
        expect((await run("plan", "-detailed-exitcode")).code).toBe(0);
        await ok("destroy", "-auto-approve");
        expect(await credentials()).toEqual([]);
      } finally {
        baseUrl = undefined;
        await slow.close();
      }
    }, TEST_TIMEOUT_MS);
  });
}

// ---------------------------------------------------------------------------------------------
// on_failure: the three gates of test/support/probe-gates.ts, with on_failure = "deny" (crashy's own,
// the others by the data source's default) and without
// ---------------------------------------------------------------------------------------------

const gatesConfig = (crashyOnFailure: string) => `jsonencode({
    crashy = { pre_tool_execution = [{ matcher = "code_execution", hooks = [{ type = "command", command = "python3 /.agents/hooks-scripts/crashy.py", timeout = 10${crashyOnFailure} }] }] }
    slow   = { pre_tool_execution = [{ matcher = "code_execution", hooks = [{ type = "command", command = "python3 /.agents/hooks-scripts/slow.py", timeout = 3 }] }] }
    chatty = { pre_tool_execution = [{ matcher = "view_file|list_dir", hooks = [{ type = "command", command = "python3 /.agents/hooks-scripts/chatty.py", timeout = 10 }] }] }
  })`;
const GATE_SCRIPTS = `{ for name in ["crashy.py", "slow.py", "chatty.py"] : name => file("\${path.module}/\${name}") }`;

const ON_FAILURE_CONFIGURATION = `
terraform {
  required_providers {
    geminienvironments = { source = "gemini-environments/geminienvironments" }
  }
}

provider "geminienvironments" {}

data "geminienvironments_hooks" "closed" {
  config     = ${gatesConfig(', on_failure = "deny"')}
  scripts    = ${GATE_SCRIPTS}
  on_failure = "deny"
}

data "geminienvironments_hooks" "open" {
  config  = ${gatesConfig("")}
  scripts = ${GATE_SCRIPTS}
}

resource "geminienvironments_environment" "closed" {
  sources = data.geminienvironments_hooks.closed.sources
  network = { disabled = true }
}

resource "geminienvironments_environment" "open" {
  sources = data.geminienvironments_hooks.open.sources
  network = { disabled = true }
}

output "closed_id" { value = geminienvironments_environment.closed.id }
output "open_id" { value = geminienvironments_environment.open.id }
output "closed_hooks_json" { value = data.geminienvironments_hooks.closed.hooks_json }
`;

// ---------------------------------------------------------------------------------------------
// The configuration
// ---------------------------------------------------------------------------------------------

interface Declared {
  readme: string;
  readmeTarget: string;
  domain: string;
  /** An environment to import, declared as it was made. */
  imported?: string;
  /** The target of a second environment's one file, declared literally (known at validate). */
  escaping?: string;
  /** The write-only token of the credential `written` (TF_VAR_written_token, an ephemeral variable), and its version. */
  writtenToken: string;
  writtenVersion: number;
  /** Its plain `token` set too (an error). */
  writtenBoth?: boolean;
  /** An environment to import by its identity, declared as it was made. */
  importedByIdentity?: string;
  /** A URL egress_allowed is asked of (an error unless it is one). */
  badUrl?: string;
}

const DECLARED: Declared = { readme: "first\n", readmeTarget: "workspace/README.md", domain: "api.example.com", writtenToken: "wo-secret-1", writtenVersion: 1 };

function configuration({ readme, readmeTarget, domain, imported, importedByIdentity, escaping, writtenVersion, writtenBoth, badUrl }: Declared): string {
  return `
terraform {
  required_providers {
    geminienvironments = { source = "gemini-environments/geminienvironments" }
  }
}

provider "geminienvironments" {}

data "geminienvironments_hooks" "gate" {
  config = jsonencode({
    "security-gate" = {
      pre_tool_execution = [{
        matcher = "code_execution"
        hooks   = [{ type = "command", command = "python3 /.agents/hooks-scripts/gate.py", timeout = 10 }]
      }]
    }
  })
  scripts = { "gate.py" = file("\${path.module}/gate.py") }
}

resource "geminienvironments_credential" "github" {
  credential_id = "github-token"
  type          = "bearer_token"
  token         = "ghp_example"
}

# Ephemeral: as a user passes a secret (a literal would be in the plan's copy of the configuration).
variable "written_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "geminienvironments_credential" "written" {
  credential_id    = "written-token"
  type             = "bearer_token"
  token_wo         = var.written_token
  token_wo_version = ${writtenVersion}${writtenBoth ? '\n  token            = "plain-too"' : ""}
}

resource "geminienvironments_environment" "gated" {
  sources = concat(data.geminienvironments_hooks.gate.sources, [
    { type = "inline", target = ${JSON.stringify(readmeTarget)}, content = ${JSON.stringify(readme)} },
  ])
  network = {
    allowlist = [{ domain = ${JSON.stringify(domain)}, credential = geminienvironments_credential.github.credential_id }]
  }
}

data "geminienvironments_environment" "gated" {
  id = geminienvironments_environment.gated.id
}

data "geminienvironments_environments" "all" {
  depends_on = [geminienvironments_environment.gated]
}

data "geminienvironments_environment_file" "readme" {
  environment_id = geminienvironments_environment.gated.id
  path           = "workspace/README.md"
}

data "geminienvironments_credential" "github" {
  credential_id = geminienvironments_credential.github.id
}

data "geminienvironments_credentials" "all" {
  depends_on = [geminienvironments_credential.github]
}

output "environment_id" { value = geminienvironments_environment.gated.id }
output "file_count" { value = data.geminienvironments_environment.gated.file_count }
output "listed" { value = contains(data.geminienvironments_environments.all.environments[*].id, geminienvironments_environment.gated.id) }
output "file_content" { value = data.geminienvironments_environment_file.readme.content }
output "credential_type" { value = data.geminienvironments_credential.github.type }
output "credential_listed" { value = contains(data.geminienvironments_credentials.all.credentials[*].credential_id, "github-token") }
output "egress_allowed" { value = nonsensitive(provider::geminienvironments::egress_allowed(geminienvironments_environment.gated.network, "https://${domain}/v1/items")) }
output "egress_denied" { value = nonsensitive(provider::geminienvironments::egress_allowed(geminienvironments_environment.gated.network, "https://pastebin.com/")) }${
  badUrl === undefined ? "" : `\noutput "bad_url" { value = provider::geminienvironments::egress_allowed(null, ${JSON.stringify(badUrl)}) }`
}
${
  escaping === undefined
    ? ""
    : `
resource "geminienvironments_environment" "escaping" {
  sources = [{ type = "inline", target = ${JSON.stringify(escaping)}, content = "x" }]
}
`
}${
  imported === undefined
    ? ""
    : `
import {
  to = geminienvironments_environment.imported
  id = "${imported}"
}

resource "geminienvironments_environment" "imported" {
  sources = [{ type = "inline", target = "notes.md", content = "made elsewhere\\n" }]
  network = { disabled = true }
}
`
}${
  importedByIdentity === undefined
    ? ""
    : `
import {
  to       = geminienvironments_environment.by_identity
  identity = { id = "${importedByIdentity}" }
}

resource "geminienvironments_environment" "by_identity" {
  sources = [{ type = "inline", target = "notes.md", content = "made elsewhere\\n" }]
  network = { disabled = true }
}
`
}`;
}

const KILLED_CONFIGURATION = `
terraform {
  required_providers {
    geminienvironments = { source = "gemini-environments/geminienvironments" }
  }
}

resource "geminienvironments_environment" "killed" {
  sources = [{ type = "inline", target = "workspace/notes.md", content = "made by a killed apply\\n" }]
  network = { disabled = true }
}

output "killed_id" { value = geminienvironments_environment.killed.id }
`;

const KILLED_CREDENTIAL_CONFIGURATION = `
terraform {
  required_providers {
    geminienvironments = { source = "gemini-environments/geminienvironments" }
  }
}

resource "geminienvironments_credential" "killed" {
  credential_id = "killed-token"
  type          = "bearer_token"
  token         = "declared-secret"
}
`;
