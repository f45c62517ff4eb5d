// Interrupted deploys through the real engine: `pulumi up` killed (its whole process group, SIGKILL)
// while its creates are in flight — the emulator answers the killed run's creates 4 s late (`slow`
// fault; dealt only while a run that is to be killed runs, so set-up, recovery and checks go at full
// speed) — then `pulumi cancel`, `genv recover` and `pulumi up` again: exactly the declared environments
// exist, every one in state, and `destroy` leaves none. Through the dynamic provider and through the
// plugin; with identical environments in another stack of the same account (never touched); with a
// stranger's identical environment made meanwhile (refused, named, nothing changed); with another
// pulumi command writing the state while the recovery decides (refused, that write kept). A killed
// destroy, retried, leaves none; a killed in-place update (the upload), retried, converges; and
// examples/gitops' `ci/check.sh deploy`, retried, recovers first. The recovery's two guards apart (an
// identical environment outside the stack kept by the window alone, another by the held ids alone: the
// test fails when either is taken out), and each of its decisions: a self_hosted environment deleted and
// its create cleared, a create that never reached the API cleared, a Credential adopted or refused, and
// another provider's pending create refused. The acceptance run (20 environments) is the same
// shape; these keep the fleets small for a loaded 2-core machine.
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { promisify } from "node:util";

import type { Stack } from "@pulumi/pulumi/automation";

import { TEST_KEY } from "../support/emulator";
import { listIds, pluginProject, program, useE2E } from "./_workspace";

const execFileAsync = promisify(execFile);

/** Per test: a killed run that waits out 4 s answers, then several `pulumi` runs, on a loaded machine. */
const TEST_TIMEOUT_MS = 600_000;
const FLEET = 3;
const SPEC = { sources: [{ type: "inline", target: "task.txt", content: "same for all\n" }] };

/** A program of `count` (config, default FLEET) identical environments (one spec: they are interchangeable), through `api`. */
function fleetProgram(api: "genv" | "genv.plugin"): Record<string, string> {
  const count = `new pulumi.Config().getNumber("count") ?? ${FLEET}`;
  return program(`exports.ids = Array.from({ length: ${count} }, (_, i) => new ${api}.Environment("agent-" + i, ${JSON.stringify(SPEC)}).id);`);
}

describe("an interrupted deploy (real engine, the killed runs' creates answered 4 s late)", () => {
  const e2e = useE2E({ emulator: { faults: "rate=1,kinds=slow,routes=create+delete+upload+credentials,delay=4s" } });
  const started: number[] = [];
  const slowAnswers = () => e2e().emulator.faults!;

  beforeAll(() => {
    slowAnswers().dealing = false;
  });

  afterAll(() => {
    // What the killed runs left that is Pulumi's own and never exits (the language host): ended here, by pid.
    for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
  });

  const env = () => ({ ...e2e().engine.env, GOOGLE_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: e2e().emulator.url });
  const pulumi = (dir: string, ...args: string[]) => e2e().pulumi([...args, "--non-interactive"], dir, { GOOGLE_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: e2e().emulator.url });
  const genv = async (dir: string, ...args: string[]) => {
    try {
      const { stdout } = await execFileAsync(path.join(e2e().workspace.root, "node_modules", ".bin", "genv"), args, { cwd: dir, env: env() });
      return { code: 0, output: stdout };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, output: `${stdout}${stderr}` };
    }
  };
  const stateIds = async (dir: string, stack: string) => {
    const { deployment } = JSON.parse(await pulumi(dir, "stack", "export", "--stack", stack));
    return (deployment.resources ?? []).filter((resource: { type: string; custom?: boolean }) => resource.custom && /Environment$/.test(resource.type)).map((resource: { id: string }) => resource.id).sort();
  };

  /**
   * Runs `pulumi ARGS` in a process group of its own (`envOverride` added to its environment) and
   * SIGKILLs the group once `ready()` holds; returns the pids of its process tree at the kill (the plugins among them are in groups of their own).
   */
  async function killDuring(dir: string, args: string[], ready: () => Promise<boolean>, envOverride: NodeJS.ProcessEnv = {}): Promise<Map<number, string>> {
    slowAnswers().dealing = true;
    try {
      const child = spawn(path.join(e2e().engine.binDir, "pulumi"), [...args, "--yes", "--skip-preview", "--non-interactive"], { cwd: dir, env: { ...env(), ...envOverride }, detached: true, stdio: "ignore" });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      let done = false;
      void exited.then(() => (done = true));
      while (!done && !(await ready())) await new Promise((resolve) => setTimeout(resolve, 100));
      if (done) throw new Error(`pulumi ${args.join(" ")} ended before it could be interrupted`);
      const tree = descendants(child.pid!);
      process.kill(-child.pid!, "SIGKILL");
      await exited;
      started.push(...tree.keys());
      return tree;
    } finally {
      slowAnswers().dealing = false;
    }
  }

  /** The stack's pending operations as the running engine last wrote them (the file backend's checkpoint, read without pulumi). */
  const checkpointPending = (dir: string, stack: string): Array<{ type: string; resource: { urn: string; type: string } }> => {
    const project = /^name: (\S+)$/m.exec(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8"))![1];
    const file = path.join(new URL(e2e().engine.env.PULUMI_BACKEND_URL!).pathname, ".pulumi", "stacks", project, `${stack}.json`);
    if (!fs.existsSync(file)) return [];
    return JSON.parse(fs.readFileSync(file, "utf8")).checkpoint?.latest?.pending_operations ?? [];
  };
  const exportedPending = async (dir: string, stack: string) => JSON.parse(await pulumi(dir, "stack", "export", "--stack", stack)).deployment.pending_operations ?? [];
  /** The end of the stack's last completed update (`pulumi stack history`): where the recovery's window starts. */
  const lastUpdateEnd = async (dir: string, stack: string) => {
    const history = JSON.parse(await pulumi(dir, "stack", "history", "--json", "--stack", stack)) as Array<{ endTime: string }>;
    return Math.max(...history.map((entry) => Date.parse(entry.endTime)));
  };

  /** Runs `up`: exactly one environment more than `before`, and the stack's state holds it; returns its id. */
  const upMakesOne = async (dir: string, stack: string, before: string[]) => {
    await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", stack);
    const created = (await listIds(e2e().client)).filter((id) => !before.includes(id));
    expect(created).toHaveLength(1);
    expect(await stateIds(dir, stack)).toEqual(created);
    return created[0];
  };
  /** The package as installed in the workspace from its tarball, as a program loads it. */
  const installedPackage = () => require(path.join(e2e().workspace.root, "node_modules", "pulumi-gemini-environments")) as typeof import("../../index");
  /** Recovery through the installed package's Automation API function, as a program would call it. */
  const recoverStack = (stack: Stack, options: { dryRun?: boolean } = {}): Promise<{ applied: boolean; lines: string[] }> => installedPackage().recoverStack(stack, options);

  /** Kills `pulumi up`, cancels, recovers (`genv recover`, or `recoverStack` given `automation`), runs `up`; checks that no environment is doubled or orphaned. */
  async function interruptedUpThenRecover(dir: string, stack: string, options: { stranger?: boolean; concurrentWrite?: boolean; automation?: Stack } = {}) {
    const before = await listIds(e2e().client);
    const held = await stateIds(dir, stack);
    // Killed once the API holds every create (all unanswered): the checkpoint lists them as pending.
    const tree = await killDuring(dir, ["up", "--stack", stack], async () => (await listIds(e2e().client)).length >= before.length + FLEET);
    await pulumi(dir, "cancel", "--yes", "--stack", stack);
    const exported = JSON.parse(await pulumi(dir, "stack", "export", "--stack", stack));
    expect(exported.deployment.pending_operations.filter((operation: { type: string }) => operation.type === "creating")).toHaveLength(FLEET);

    if (options.stranger) {
      // Someone else, with the same key, makes an identical environment meanwhile: it cannot be told apart.
      const stranger = await e2e().client.create({ sources: SPEC.sources as never });
      const refused = await genv(dir, "recover", "--stack", stack);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain(stranger.id);
      expect(refused.output).toMatch(/nothing was changed/);
      expect(JSON.parse(await pulumi(dir, "stack", "export", "--stack", stack)).deployment.pending_operations).toHaveLength(FLEET);
      await genv(dir, "env", "rm", stranger.id);
    }

    if (options.concurrentWrite) {
      // Another pulumi command writes the stack's state while the recovery decides (here `pulumi state
      // protect`, right after the recovery's exports): importing its edited export would undo that write.
      const pkg = installedPackage();
      const real = pkg.pulumiRunner(path.join(e2e().engine.binDir, "pulumi"), dir, env());
      const provider = (exported.deployment.resources as Array<{ urn: string; type: string }>).find((resource) => resource.type.startsWith("pulumi:providers:"))!.urn;
      let wrote = false;
      const racing = async (args: string[]) => {
        const output = await real(args);
        if (args.includes("--show-secrets") && !wrote) {
          wrote = true;
          await real(["state", "protect", provider, "--yes", "--non-interactive", "--stack", stack]);
        }
        return output;
      };
      await expect(pkg.recoverInterruptedDeploy(racing, { stack, env: env() })).rejects.toThrow(/changed while genv recover was deciding .*nothing was changed/);
      const after = JSON.parse(await pulumi(dir, "stack", "export", "--stack", stack));
      expect(after.deployment.resources.find((resource: { urn: string }) => resource.urn === provider).protect).toBe(true); // the other write stands
      expect(after.deployment.pending_operations).toHaveLength(FLEET);
      await pulumi(dir, "state", "unprotect", provider, "--yes", "--stack", stack);
    }

    if (options.automation) {
      const plan = await recoverStack(options.automation, { dryRun: true });
      expect(plan.applied).toBe(false);
      expect(plan.lines.filter((line) => line.startsWith("adopt env_"))).toHaveLength(FLEET);
      const recovered = await recoverStack(options.automation);
      expect(recovered.applied).toBe(true);
      expect(recovered.lines).toContain(`done: ${FLEET} adopted, 0 cleared; run pulumi up`);
    } else {
      const plan = await genv(dir, "recover", "--stack", stack, "--dry-run");
      expect(plan.code === 0 ? "" : plan.output).toBe(""); // a refusal names its candidates
      expect(plan.output.match(/^adopt env_/gm)).toHaveLength(FLEET);
      const recovered = await genv(dir, "recover", "--stack", stack);
      expect(recovered.output).toMatch(new RegExp(`done: ${FLEET} adopted, 0 cleared`));
    }

    await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", stack);
    const after = await listIds(e2e().client);
    const created = after.filter((id) => !before.includes(id)).sort();
    expect(created).toHaveLength(FLEET); // no duplicate
    expect(await stateIds(dir, stack)).toEqual([...held, ...created].sort()); // no orphan
    return tree;
  }

  test(
    "dynamic provider: killed up, cancel, recover, up: exactly the declared environments, all in state; another stack's identical ones untouched; destroy leaves 0",
    async () => {
      const dir = await e2e().workspace.addProgram("dynamic", fleetProgram("genv"));
      await e2e().stack(dir, "other");
      await e2e().stack(dir, "dev");
      await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", "other");
      const others = await stateIds(dir, "other");
      expect(others).toHaveLength(FLEET);

      const tree = await interruptedUpThenRecover(dir, "dev", { stranger: true, concurrentWrite: true });
      // The dynamic provider's host (Pulumi's) exits too, with our provider module loaded into it.
      await expectGone(tree, /cmd[\\/]dynamic-provider/);

      expect(await stateIds(dir, "other")).toEqual(others);
      for (const id of others) expect((await e2e().client.get(id)).status).toBe("active");
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "dev");
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "other");
      expect(await listIds(e2e().client)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "plugin, after a completed update: killed up leaves no plugin process; cancel, recoverStack (Automation API), up: exactly the declared environments; destroy leaves 0",
    async () => {
      const dir = await e2e().workspace.addProgram("plugin", fleetProgram("genv.plugin"), pluginProject("plugin", e2e().pluginBinDir));
      // One identical environment from a completed update first: the window starts at its end (stack
      // history), and the state holds it.
      const stack = await e2e().stack(dir, "dev", { config: { count: "1" } });
      await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", "dev");
      await pulumi(dir, "config", "set", "count", String(1 + FLEET), "--stack", "dev");
      const tree = await interruptedUpThenRecover(dir, "dev", { automation: stack });
      await expectGone(tree, /plugin[\\/]main\.js/);
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "dev");
      expect(await listIds(e2e().client)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a killed destroy, retried after cancel, leaves 0 and exits 0",
    async () => {
      const dir = await e2e().workspace.addProgram("destroyed", fleetProgram("genv"));
      await e2e().stack(dir, "dev");
      await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", "dev");
      const ids = await stateIds(dir, "dev");
      // Deletes are answered 4 s late too: killed once the API has deleted one.
      await killDuring(dir, ["destroy", "--stack", "dev"], async () => (await listIds(e2e().client)).filter((id) => ids.includes(id)).length < FLEET);
      await pulumi(dir, "cancel", "--yes", "--stack", "dev");
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "dev"); // throws on a non-zero exit
      expect(await listIds(e2e().client)).toEqual([]);
      expect(await stateIds(dir, "dev")).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a killed in-place update (the upload), retried after cancel, converges: the declared content, the same environment, then destroy leaves 0",
    async () => {
      const dir = await e2e().workspace.addProgram(
        "updated",
        program(`exports.id = new genv.Environment("agent", { sources: [{ type: "inline", target: "task.txt", content: new pulumi.Config().get("content") ?? "one\\n" }] }).id;`),
      );
      await e2e().stack(dir, "dev");
      await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", "dev");
      const [id] = await stateIds(dir, "dev");
      await pulumi(dir, "config", "set", "content", "two", "--stack", "dev");
      const content = async () => (await e2e().client.downloadBuffer(id, "task.txt")).data.toString("utf8");
      // Uploads are answered 4 s late: killed once the API holds the new bytes, the update unanswered.
      await killDuring(dir, ["up", "--stack", "dev"], async () => (await content()) === "two");
      await pulumi(dir, "cancel", "--yes", "--stack", "dev");
      expect(JSON.parse(await pulumi(dir, "stack", "export", "--stack", "dev")).deployment.pending_operations).toEqual([expect.objectContaining({ type: "updating" })]);
      await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", "dev"); // no manual step
      expect(await stateIds(dir, "dev")).toEqual([id]);
      expect(await content()).toBe("two");
      expect(JSON.parse(await pulumi(dir, "stack", "export", "--stack", "dev")).deployment.pending_operations ?? []).toEqual([]);
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "dev");
      expect(await listIds(e2e().client)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "examples/gitops: the retried `ci/check.sh deploy` recovers the interrupted deploy first: one environment, in state",
    async () => {
      const dir = await e2e().workspace.addExample("gitops");
      await e2e().stack(dir, "prod");
      const before = await listIds(e2e().client);
      await killDuring(dir, ["up", "--stack", "prod"], async () => (await listIds(e2e().client)).length > before.length);
      await pulumi(dir, "cancel", "--yes", "--stack", "prod");
      const { stderr } = await execFileAsync(path.join(dir, "ci/check.sh"), ["deploy"], { cwd: dir, env: { ...env(), STACK: "prod" }, maxBuffer: 16 * 1024 * 1024 });
      expect(stderr).toContain("--- genv recover (the last deploy was interrupted)");
      expect(stderr).toContain("done: 1 adopted, 0 cleared");
      const created = (await listIds(e2e().client)).filter((id) => !before.includes(id));
      expect(created).toHaveLength(1);
      expect(await stateIds(dir, "prod")).toEqual(created);
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "prod");
      expect(await listIds(e2e().client)).toEqual(before);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "the guards apart: an identical environment in no state but made before the window, and one made inside it but held by another stack, are neither adopted nor a reason to refuse",
    async () => {
      const dir = await e2e().workspace.addProgram("guards", fleetProgram("genv"));
      await e2e().stack(dir, "other", { config: { count: "1" } });
      await e2e().stack(dir, "dev", { config: { count: "0" } });
      // Made by hand, earlier, with the same key: only the window keeps it from dev's recovery.
      const earlier = await e2e().client.create({ sources: SPEC.sources as never });
      // dev's window starts at the end of its last completed update, which comes after the 5 s the
      // window allows for clock skew.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(earlier.created!) + 6_000 - Date.now())));
      await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", "dev");
      const windowStart = await lastUpdateEnd(dir, "dev");
      // Inside the window, another stack makes an identical one: only the ids held by a state keep it.
      await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", "other");
      const [held] = await stateIds(dir, "other");
      expect(Date.parse(earlier.created!)).toBeLessThan(windowStart - 5_000);
      expect(Date.parse((await e2e().client.get(held)).created!)).toBeGreaterThan(windowStart);

      await pulumi(dir, "config", "set", "count", String(FLEET), "--stack", "dev");
      await interruptedUpThenRecover(dir, "dev");
      expect(await stateIds(dir, "dev")).not.toContain(earlier.id);
      expect(await stateIds(dir, "other")).toEqual([held]);
      expect((await e2e().client.get(earlier.id)).status).toBe("active");
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "dev");
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "other");
      await e2e().client.delete(earlier.id);
      expect(await listIds(e2e().client)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "another provider's pending create is refused, nothing changed; a self_hosted environment the run made is deleted and its create cleared, and up makes a new one with its key",
    async () => {
      const dir = await e2e().workspace.addProgram(
        "selfhosted",
        program(`
if (new pulumi.Config().getBoolean("foreign")) {
  // Another provider's resource whose create is in flight at the kill (a dynamic provider of the program's own).
  new pulumi.dynamic.Resource({ async create() { await new Promise((resolve) => setTimeout(resolve, 600000)); return { id: "never" }; } }, "foreign", {});
}
const env = new genv.Environment("daemon", { mode: "self_hosted", sources: ${JSON.stringify(SPEC.sources)} });
exports.id = env.id;
exports.environmentKey = env.environmentKey;`),
      );
      const before = await listIds(e2e().client);
      const killedUp = async (stack: string, pending: number) => {
        const known = await listIds(e2e().client);
        await killDuring(dir, ["up", "--stack", stack], async () => checkpointPending(dir, stack).length === pending && (await listIds(e2e().client)).length > known.length);
        await pulumi(dir, "cancel", "--yes", "--stack", stack);
        return (await listIds(e2e().client)).filter((id) => !known.includes(id));
      };

      await e2e().stack(dir, "mixed", { config: { foreign: "true" } });
      const [strandedByMixed] = await killedUp("mixed", 2);
      const foreign = (await exportedPending(dir, "mixed")).find((operation: { resource: { type: string } }) => operation.resource.type === "pulumi-nodejs:dynamic:Resource");
      expect(foreign).toBeDefined();
      const refused = await genv(dir, "recover", "--stack", "mixed");
      expect(refused.code).toBe(1);
      expect(refused.output).toContain(foreign.resource.urn);
      expect(refused.output).toContain("pending creates of other providers' resources");
      expect(refused.output).toMatch(/nothing was changed/);
      expect(await exportedPending(dir, "mixed")).toHaveLength(2);
      expect((await e2e().client.get(strandedByMixed)).status).toBe("active");
      await pulumi(dir, "stack", "rm", "--yes", "--force", "--stack", "mixed");
      await e2e().client.delete(strandedByMixed);

      await e2e().stack(dir, "dev");
      const [made] = await killedUp("dev", 1);
      const recovered = await genv(dir, "recover", "--stack", "dev");
      expect(recovered).toMatchObject({ code: 0 });
      expect(recovered.output).toMatch(new RegExp(`^delete ${made} and clear \\S+::daemon: self_hosted`, "m"));
      expect(recovered.output).toContain("done: 0 adopted, 1 cleared");
      await expect(e2e().client.get(made)).rejects.toMatchObject({ httpStatus: 404 });
      expect(await exportedPending(dir, "dev")).toEqual([]);

      expect(await upMakesOne(dir, "dev", before)).not.toBe(made);
      const key = JSON.parse(await pulumi(dir, "stack", "output", "--json", "--show-secrets", "--stack", "dev")).environmentKey;
      expect(typeof key === "string" && key.length > 0).toBe(true);
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "dev");
      expect(await listIds(e2e().client)).toEqual(before);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a create that never reached the API (it went to an address that never answers) is cleared, and up makes the environment",
    async () => {
      const dir = await e2e().workspace.addProgram("unreached", program(`exports.id = new genv.Environment("agent", ${JSON.stringify(SPEC)}).id;`));
      await e2e().stack(dir, "dev");
      const before = await listIds(e2e().client);
      // A listener that takes connections and never answers: the request reaches no API.
      const sockets: net.Socket[] = [];
      const blackHole = net.createServer((socket) => sockets.push(socket));
      await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
      try {
        const url = `http://127.0.0.1:${(blackHole.address() as net.AddressInfo).port}`;
        await killDuring(dir, ["up", "--stack", "dev"], async () => sockets.length > 0 && checkpointPending(dir, "dev").length === 1, { GOOGLE_GEMINI_BASE_URL: url });
      } finally {
        sockets.forEach((socket) => socket.destroy());
        blackHole.close();
      }
      await pulumi(dir, "cancel", "--yes", "--stack", "dev");
      expect(await exportedPending(dir, "dev")).toEqual([expect.objectContaining({ type: "creating" })]);
      expect(await listIds(e2e().client)).toEqual(before);

      const recovered = await genv(dir, "recover", "--stack", "dev");
      expect(recovered).toMatchObject({ code: 0 });
      expect(recovered.output).toMatch(/^clear \S+::agent: no environment of its spec was created in the window: the create never reached the API$/m);
      expect(recovered.output).toContain("done: 0 adopted, 1 cleared");
      expect(await exportedPending(dir, "dev")).toEqual([]);
      await upMakesOne(dir, "dev", before);
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "dev");
      expect(await listIds(e2e().client)).toEqual(before);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "credentials: a pending create whose credential another stack holds is refused; one whose credential the run made is adopted, and up converges",
    async () => {
      const dir = await e2e().workspace.addProgram(
        "credentials",
        program(`exports.id = new genv.Credential("token", { credentialId: new pulumi.Config().require("credentialId"), type: "bearer_token", token: "t0ken" }).id;`),
      );
      await e2e().stack(dir, "other", { config: { credentialId: "shared" } });
      await e2e().stack(dir, "clash", { config: { credentialId: "shared" } });
      await e2e().stack(dir, "dev", { config: { credentialId: "mine" } });
      await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", "other");
      // Requests the API has received and will answer 4 s late (the request log has them only once answered).
      const received = () => e2e().emulator.faults!.dealt.get("slow") ?? 0;

      // clash declares the id other holds: its create is answered (409, 4 s late) after the kill.
      let sent = received();
      await killDuring(dir, ["up", "--stack", "clash"], async () => received() > sent && checkpointPending(dir, "clash").length === 1);
      await pulumi(dir, "cancel", "--yes", "--stack", "clash");
      const refused = await genv(dir, "recover", "--stack", "clash");
      expect(refused.code).toBe(1);
      expect(refused.output).toContain("credential shared exists but another state holds it");
      expect(refused.output).toMatch(/nothing was changed/);
      expect(await exportedPending(dir, "clash")).toHaveLength(1);

      sent = received();
      await killDuring(dir, ["up", "--stack", "dev"], async () => received() > sent && checkpointPending(dir, "dev").length === 1);
      await pulumi(dir, "cancel", "--yes", "--stack", "dev");
      const recovered = await genv(dir, "recover", "--stack", "dev");
      expect(recovered).toMatchObject({ code: 0 });
      expect(recovered.output).toMatch(/^adopt mine .*as \S+::token$/m);
      expect(recovered.output).toContain("done: 1 adopted, 0 cleared");
      await pulumi(dir, "up", "--yes", "--skip-preview", "--stack", "dev");
      const held = JSON.parse(await pulumi(dir, "stack", "export", "--stack", "dev")).deployment.resources.filter((resource: { type: string }) => /Credential$/.test(resource.type));
      expect(held.map((resource: { id: string }) => resource.id)).toEqual(["mine"]);

      await pulumi(dir, "stack", "rm", "--yes", "--force", "--stack", "clash");
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "dev");
      await pulumi(dir, "destroy", "--yes", "--skip-preview", "--stack", "other");
      const left: string[] = [];
      for await (const credential of e2e().client.credentials.listAll()) left.push(credential.id);
      expect(left).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  /**
   * The processes of `tree` whose command line matches `pattern` have exited. The issue asks for
   * "within seconds" (5 s); the watchdog polls the engine's address each second. Waited for up to
   * 20 s, because a loaded 2-core CI machine can stall a process for seconds: the bound says "it
   * exits on its own", not how fast.
   */
  async function expectGone(tree: Map<number, string>, pattern: RegExp) {
    const watched = [...tree].filter(([, args]) => pattern.test(args)).map(([pid]) => pid);
    expect(watched.length).toBeGreaterThan(0);
    const until = Date.now() + 20_000;
    while (watched.some(alive) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 250));
    expect(watched.filter(alive)).toEqual([]);
  }
});

/** The process tree under `root` (not including it): pid → command line, from /proc. */
function descendants(root: number): Map<number, string> {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`: comm may hold spaces, so read after its closing parenthesis.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // exited meanwhile
    }
  }
  const tree = new Map<number, string>();
  const visit = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent !== pid || tree.has(child)) continue;
      try {
        tree.set(child, fs.readFileSync(`/proc/${child}/cmdline`, "utf8").replace(/\0/g, " "));
      } catch {
        continue;
      }
      visit(child);
    }
  };
  visit(root);
  return tree;
}

function alive(pid: number): boolean {
  try {
    // A zombie still answers kill(0): read its state.
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
