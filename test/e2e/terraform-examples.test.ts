/**
 * Every example of the Terraform registry's pages (examples/terraform/, shown whole by docs/terraform/,
 * scripts/generate-terraform-docs.ts) works as a user copies it: the folder with provider.tf beside it,
 * `terraform init` from a filesystem mirror of the provider's release zip (devtools/terraform.ts, no
 * network), `apply`, the outputs a reader would check, a no-op `plan -detailed-exitcode` (0), for a
 * resource its import.sh (the id put in) followed by a plan with no changes, then `destroy`, after which
 * the API holds nothing it made. Against one in-process emulator; the data sources' objects are made
 * first through the API client, as another tool would. Examples run three at a time, each in its own
 * directory (they share the mirror and the emulator). The examples are `terraform fmt` clean.
 *
 * A module under examples/terraform/modules/ brings its own `terraform test` (tests/*.tftest.hcl, which
 * apply it against the API the provider is configured for): run with Terraform and with OpenTofu
 * (scripts/opentofu's cached build), each engine a job of the same queue; every run block passes, and
 * nothing it made is left behind.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { EnvironmentsClient, type Environment } from "../../client";
import { cachedOpenTofuBinary, cliConfig, PROVIDER_SOURCE, providerMirror, terraformEnv, terraformOnPath, TERRAFORM_TOOLS_TIMEOUT_MS, type EngineName } from "../../devtools/terraform";
import { runCommand, type CommandError } from "../support/commands";
import { startTestEmulator, TEST_KEY, type TestEmulator } from "../support/emulator";
import { describeNeeding, testNeeding } from "../support/prerequisites";

const execFileAsync = promisify(execFile);
const repoRoot = path.resolve(__dirname, "..", "..");
const examplesDir = path.join(repoRoot, "examples", "terraform");
/** Examples run side by side: each command is mostly waiting on the provider and the API. */
const PARALLEL = 3;
const COMMAND_TIMEOUT_MS = 120_000;
const EXAMPLE_TIMEOUT_MS = 5 * 60_000;

type Outputs = Record<string, unknown>;

interface Example {
  /** The folder under examples/terraform/ (the page's example). */
  folder: string;
  /** What the API holds before, as another tool made it; returns the example's variables. */
  setup?: (client: EnvironmentsClient) => Promise<Record<string, string>>;
  /** What a reader checks after apply (before destroy): the outputs, and the API. */
  check: (outputs: Outputs, client: EnvironmentsClient) => Promise<void>;
  /** What `destroy` must have removed (environment ids, `credentials/<id>`), from the outputs. */
  made?: (outputs: Outputs) => string[];
  /** import.sh's placeholder, replaced by the id of the object that apply made. */
  importId?: (outputs: Outputs) => { placeholder: string; id: string };
  /**
   * The inputs the plan after an import changes, and nothing else: the versions of the write-only
   * secrets (an import reads none: the API never returns a secret), whose change sends them once;
   * an apply does, then a plan has nothing to do.
   */
  writeOnlyAfterImport?: string[];
}

const GITHUB_TOKEN = "ghp_example-token-not-a-real-one";

interface Module {
  /** The folder under examples/terraform/. */
  folder: string;
  /** A file every environment the module's tests make holds, none of the other examples': none is left after. */
  marker: string;
}

const MODULES: Module[] = [{ folder: "modules/guarded-environment", marker: ".agents/hooks-scripts/gate.sh" }];

/** The engines a module's tests run with: Terraform from PATH, OpenTofu from scripts/opentofu's cache (built by .ci/run). */
const MODULE_ENGINES: Array<{ name: EngineName; binary: string | undefined; needs: string }> = [
  { name: "terraform", binary: terraformOnPath(), needs: "terraform on PATH" },
  { name: "tofu", binary: cachedOpenTofuBinary(repoRoot), needs: "tofu (scripts/opentofu)" },
];


const EXAMPLES: Example[] = [
  {
    folder: "provider",
    check: async (outputs) => expect(outputs).toEqual({}),
  },
  {
    folder: "resources/geminienvironments_environment",
    check: async (outputs, client) => {
      expect(outputs.file_count).toBe(1);
      const environment = await client.get(String(outputs.environment_id));
      expect(environment.network).toEqual({ allowlist: [{ domain: "api.github.com" }, { domain: "*.githubusercontent.com" }] });
      expect(environment.sources).toEqual([{ type: "inline", target: "workspace/README.md", content: "Scratch space for the agent." }]);
    },
    made: (outputs) => [String(outputs.environment_id)],
    importId: (outputs) => ({ placeholder: "env_abc123", id: String(outputs.environment_id) }),
  },
  {
    folder: "resources/geminienvironments_credential",
    check: async (outputs, client) => {
      expect(outputs.credential_status).toBe("active");
      expect(await client.credentials.get("github-token")).toMatchObject({ type: "bearer_token", status: "active" });
      const agent = (await environments(client)).find((environment) => JSON.stringify(environment.network ?? null).includes('"credential":"github-token"'));
      expect(agent?.network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "github-token" }] });
    },
    made: () => ["credentials/github-token"],
    importId: () => ({ placeholder: "github-token", id: "github-token" }),
    writeOnlyAfterImport: ["token_wo_version"],
  },
  {
    folder: "functions/egress_allowed",
    check: async (outputs) => expect(outputs).toEqual({ raw_files_allowed: true, apex_allowed: false, without_policy: true }),
  },
  {
    folder: "data-sources/geminienvironments_environment",
    setup: async (client) => {
      const made = await client.create({ sources: [{ type: "inline", target: "a.txt", content: "a" }, { type: "inline", target: "b.txt", content: "b" }] });
      return { environment_id: made.id };
    },
    check: async (outputs) => expect(outputs).toEqual({ status: "active", file_count: 2 }),
  },
  {
    folder: "data-sources/geminienvironments_environments",
    setup: async (client) => {
      await client.create({ mode: "self_hosted" });
      return {};
    },
    check: async (outputs, client) => {
      const selfHosted = (await environments(client)).filter((environment) => environment.mode === "self_hosted").map((environment) => environment.id);
      expect(selfHosted.length).toBeGreaterThan(0);
      expect(outputs.self_hosted_ids).toEqual(selfHosted);
    },
  },
  {
    folder: "data-sources/geminienvironments_environment_file",
    setup: async (client) => {
      const made = await client.create({ sources: [{ type: "inline", target: "workspace/report.md", content: "# Report\n\nAll checks passed.\n" }] });
      return { environment_id: made.id };
    },
    check: async (outputs) => expect(outputs).toEqual({ report: "# Report\n\nAll checks passed.\n" }),
  },
  {
    folder: "data-sources/geminienvironments_credential",
    setup: async (client) => {
      await client.credentials.create({ id: "deploy-token", type: "bearer_token", token: "deploy-secret" });
      return {};
    },
    check: async (outputs) => expect(outputs).toEqual({ deploy_token_status: "active" }),
  },
  {
    folder: "data-sources/geminienvironments_credentials",
    setup: async (client) => {
      await client.credentials.create({ id: "ci-variable", type: "environment_variable", value: "ci-secret", injection_location: ["header"], trusted_domains: ["ci.example.com"] });
      return {};
    },
    check: async (outputs) => expect(outputs.credential_types).toMatchObject({ "ci-variable": "environment_variable" }),
  },
  {
    folder: "data-sources/geminienvironments_hooks",
    check: async (outputs, client) => {
      const id = String(outputs.environment_id);
      const gate = await fs.promises.readFile(path.join(examplesDir, "data-sources", "geminienvironments_hooks", "gate.py"), "utf8");
      expect((await client.downloadBuffer(id, ".agents/hooks-scripts/gate.py")).data.toString("utf8")).toBe(gate);
      const hooks = JSON.parse((await client.downloadBuffer(id, ".agents/hooks.json")).data.toString("utf8")) as Record<string, { pre_tool_execution: Array<{ matcher: string }> }>;
      expect(hooks["security-gate"].pre_tool_execution[0].matcher).toBe("code_execution");
      expect((await client.get(id)).network).toBe("disabled");
    },
    made: (outputs) => [String(outputs.environment_id)],
  },
];

describeNeeding({ "terraform on PATH (Terraform 1.11 or newer)": terraformOnPath() !== undefined })("the Terraform examples of docs/terraform/", () => {
  let emulator: TestEmulator;
  let client: EnvironmentsClient;
  let scratch: string;
  let cliConfigFile: string;
  const terraform = terraformOnPath()!;
  const runs = new Map<string, Promise<{ outputs: Outputs; log: string[] }>>();
  /** What `<engine> test` printed, by `<folder> <engine>`. */
  const moduleRuns = new Map<string, Promise<string>>();

  /** `init` and `test` in a copy of the module, with one engine: what `test` printed, whatever its exit code. */
  async function runModuleTests(module: Module, engine: string): Promise<string> {
    const dir = path.join(scratch, `${module.folder.replace("/", "-")}-${path.basename(engine)}`);
    await fs.promises.cp(path.join(examplesDir, module.folder), dir, { recursive: true });
    const env = terraformEnv({ cliConfigFile, baseUrl: emulator.url, apiKey: TEST_KEY });
    await runCommand([engine, "init", "-no-color"], { cwd: dir, env, timeoutMs: COMMAND_TIMEOUT_MS });
    return runCommand([engine, "test", "-no-color"], { cwd: dir, env, timeoutMs: COMMAND_TIMEOUT_MS }).then(
      (done) => done.stdout + done.stderr,
      (error: CommandError) => `${error.message}\n${error.stdout}${error.stderr}`,
    );
  }

  /** init, apply, the outputs, a no-op plan, import, destroy: one example, in its own directory. */
  async function runExample(example: Example): Promise<{ outputs: Outputs; log: string[] }> {
    const dir = path.join(scratch, example.folder.replace("/", "-"));
    await fs.promises.cp(path.join(examplesDir, example.folder), dir, { recursive: true });
    if (example.folder !== "provider") await fs.promises.copyFile(path.join(examplesDir, "provider", "provider.tf"), path.join(dir, "provider.tf"));
    const variables = { github_token: GITHUB_TOKEN, ...(await example.setup?.(client)) };
    const env = { ...terraformEnv({ cliConfigFile, baseUrl: emulator.url, apiKey: TEST_KEY }), ...variablesFor(dir, variables) };
    const log: string[] = [];
    const run = async (args: string[]) => {
      const output = await runCommand([terraform, ...args], { cwd: dir, env, timeoutMs: COMMAND_TIMEOUT_MS });
      log.push(`$ terraform ${args.join(" ")}\n${output.stdout}${output.stderr}`);
      return output;
    };
    await run(["init", "-no-color"]);
    await run(["apply", "-auto-approve", "-no-color"]);
    const outputs = Object.fromEntries(
      Object.entries(JSON.parse((await run(["output", "-json"])).stdout) as Record<string, { value: unknown }>).map(([name, output]) => [name, output.value]),
    );
    await example.check(outputs, client);
    await run(["plan", "-detailed-exitcode", "-no-color"]);
    if (example.importId) {
      // Forget the object, then import it back with the page's command, the id put in: nothing to change after.
      const script = await fs.promises.readFile(path.join(dir, "import.sh"), "utf8");
      const command = script.split("\n").find((line) => line.startsWith("terraform import "))!;
      const { placeholder, id } = example.importId(outputs);
      const [, , address, written] = command.split(" ");
      expect(written).toBe(placeholder);
      await run(["state", "rm", "-no-color", address]);
      await run(["import", "-no-color", address, id]);
      if (example.writeOnlyAfterImport) {
        const plan = await run(["plan", "-detailed-exitcode", "-no-color"]).then(
          () => ({ code: 0, stdout: "" }),
          (error: CommandError) => ({ code: Number(/ exited (\d+);/.exec(error.message)?.[1]), stdout: error.stdout }),
        );
        expect(plan.code).toBe(2);
        const changedInputs = [...plan.stdout.matchAll(/^\s+[+~-] (\w+)\s+= (.*)$/gm)].filter(([, , value]) => !value.includes("(known after apply)")).map(([, name]) => name);
        expect(changedInputs).toEqual(example.writeOnlyAfterImport);
        expect(plan.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
        await run(["apply", "-auto-approve", "-no-color"]);
      }
      await run(["plan", "-detailed-exitcode", "-no-color"]);
    }
    await run(["destroy", "-auto-approve", "-no-color"]);
    return { outputs, log };
  }

  beforeAll(async () => {
    scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-terraform-examples-"));
    const mirror = await providerMirror(repoRoot);
    cliConfigFile = path.join(scratch, "cli.tfrc");
    await fs.promises.writeFile(cliConfigFile, cliConfig([{ dir: mirror.dir, providers: [PROVIDER_SOURCE] }]));
    emulator = await startTestEmulator();
    client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator.url });
    // PARALLEL at a time, the modules' tests first (the longest); each test awaits its own.
    const started: Array<() => void> = [];
    let running = 0;
    const next = () => {
      while (running < PARALLEL && started.length > 0) {
        running++;
        started.shift()!();
      }
    };
    const queued = <T>(job: () => Promise<T>): Promise<T> => {
      const run = new Promise<void>((resolve) => {
        started.push(resolve);
      })
        .then(job)
        .finally(() => {
          running--;
          next();
        });
      // No unhandled rejection before its test awaits it.
      run.catch(() => undefined);
      return run;
    };
    for (const module of MODULES) {
      for (const { name, binary } of MODULE_ENGINES) if (binary) moduleRuns.set(`${module.folder} ${name}`, queued(() => runModuleTests(module, binary)));
    }
    for (const example of EXAMPLES) runs.set(example.folder, queued(() => runExample(example)));
    next();
  }, TERRAFORM_TOOLS_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.allSettled([...runs.values(), ...moduleRuns.values()]);
    await client?.close();
    await emulator?.close();
    if (scratch) await fs.promises.rm(scratch, { recursive: true, force: true });
  }, EXAMPLE_TIMEOUT_MS);

  test("the examples are terraform fmt clean", async () => {
    await expect(execFileAsync(terraform, ["fmt", "-check", "-recursive", "-diff", examplesDir], { env: { ...process.env, TF_CLI_CONFIG_FILE: "/dev/null" } })).resolves.toBeDefined();
  });

  test.each(EXAMPLES)(
    "examples/terraform/$folder: init from the mirror, apply, its outputs, a no-op plan, its import, destroy",
    async (example) => {
      const { outputs } = await runs.get(example.folder)!;
      // destroy removed what it made.
      for (const made of example.made?.(outputs) ?? []) {
        const gone = made.startsWith("credentials/") ? client.credentials.get(made.slice("credentials/".length)) : client.get(made);
        await expect(gone).rejects.toMatchObject({ httpStatus: 404 });
      }
    },
    EXAMPLE_TIMEOUT_MS,
  );

  for (const module of MODULES) {
    for (const engine of MODULE_ENGINES) {
      testNeeding({ [engine.needs]: engine.binary !== undefined })(
        `examples/terraform/${module.folder}: \`${engine.name} test\` passes every run block of its tests`,
        async () => {
          const output = await moduleRuns.get(`${module.folder} ${engine.name}`)!;
          const testsDir = path.join(examplesDir, module.folder, "tests");
          const files = (await fs.promises.readdir(testsDir)).filter((file) => file.endsWith(".tftest.hcl"));
          const runBlocks = (await Promise.all(files.map((file) => fs.promises.readFile(path.join(testsDir, file), "utf8")))).join("\n").match(/^run "/gm)?.length ?? 0;
          expect(runBlocks).toBeGreaterThan(0);
          expect(output).toContain(`Success! ${runBlocks} passed, 0 failed.`);
        },
        EXAMPLE_TIMEOUT_MS,
      );
    }
    test(`examples/terraform/${module.folder}: its tests leave no environment behind`, async () => {
      await Promise.allSettled(MODULE_ENGINES.map((engine) => moduleRuns.get(`${module.folder} ${engine.name}`)));
      const left = (await environments(client)).filter((environment) => environment.sources?.some((source) => source.target === module.marker));
      expect(left.map((environment) => environment.id)).toEqual([]);
    }, EXAMPLE_TIMEOUT_MS);
  }
});

async function environments(client: EnvironmentsClient): Promise<Environment[]> {
  const all: Environment[] = [];
  for await (const environment of client.listAll()) all.push(environment);
  return all;
}

/** The example's variables as TF_VAR_… for those it declares (Terraform warns of the others). */
function variablesFor(dir: string, values: Record<string, string>): Record<string, string> {
  const declared = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith(".tf"))
    .flatMap((file) => [...fs.readFileSync(path.join(dir, file), "utf8").matchAll(/^variable "([a-z_]+)"/gm)].map((match) => match[1]));
  return Object.fromEntries(declared.map((name) => [`TF_VAR_${name}`, values[name]]));
}
