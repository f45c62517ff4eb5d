/**
 * Recovery of an interrupted deploy: what a killed `pulumi up` created but never recorded.
 *
 * The engine writes a pending `creating` operation (URN and inputs) into the checkpoint before it
 * calls a provider's create, and removes it when the answer comes; a killed run leaves them. For each
 * one of our resource types (through the dynamic provider or the plugin) the recovery decides:
 * - Environment: the environments whose echoed spec equals the pending inputs (client/converge.ts,
 *   `environmentsCreatedLike`), created inside the interrupted run's window, and held by no state
 *   this backend knows (this stack's, and every other stack of the project). Pending creates of one
 *   spec are interchangeable: up to as many candidates as pending creates are adopted, the rest
 *   cleared (those never reached the API). More candidates than pending creates: they cannot be told
 *   apart from environments outside this stack, so it refuses and names them. A `self_hosted`
 *   environment found so is deleted and its create cleared: its key came only with the lost answer.
 * - Credential: its id is the program's own, so it is read back directly.
 *
 * Handing the ids to the engine: `pulumi refresh --import-pending-creates URN ID` (engine v3.248)
 * turns the operation into a pending `importing` one and then drops it — the resource never reaches
 * the state (the refresh's snapshot carries forward pending `creating` operations only). So the
 * recovery uses the engine's state import instead: `pulumi stack export`, each adopted operation's
 * resource moved into the resources with its id, `pulumi stack import` (which drops the remaining
 * pending operations: deletes and updates converge on the next `up`/`destroy`, as our delete is
 * idempotent and an update uploads with overwrite), then `pulumi refresh --target URN…` so that the
 * provider itself reads each adopted environment's outputs.
 *
 * Secrets: the state is edited as exported (ciphertext stays ciphertext); the inputs are compared
 * in memory from a second export with `--show-secrets`, never printed.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isDeepStrictEqual, promisify } from "node:util";
import type { Stack } from "@pulumi/pulumi/automation";
import { EnvironmentsClient } from "../client/client";
import { environmentsCreatedLike } from "../client/converge";
import { isNotFound } from "../client/errors";
import type { CreateEnvironmentRequest, Environment } from "../client/schemas";
import { stackProviderConfig, typeTokensOf } from "./contracts/configuration";
import { createRequestOf } from "./environment/core";
import type { EnvironmentInputs } from "./environment/inputs";

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/** Runs the `pulumi` CLI with `args` in the program's directory and environment; resolves to its stdout. */
export type PulumiRunner = (args: string[]) => Promise<string>;

/** `pulumi` (the CLI at `command`) run in `cwd` with `env`; a failure names the command and carries its output. */
export function pulumiRunner(command = "pulumi", cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): PulumiRunner {
  return async (args) => {
    try {
      const { stdout } = await execFileAsync(command, args, { cwd, env, maxBuffer: 256 * 1024 * 1024 });
      return stdout;
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`pulumi ${args.join(" ")} failed: ${[stderr, stdout].filter(Boolean).join("\n").trim() || String(error)}`, { cause: error });
    }
  };
}

/**
 * The recovery for the Automation API: `recoverInterruptedDeploy` on `stack`, with its workspace's
 * `pulumi`, directory and environment variables.
 *
 * ```ts
 * const stack = await LocalWorkspace.selectStack({ stackName: "prod", workDir: "." });
 * const report = await recoverStack(stack);
 * if (report.applied) await stack.up();
 * ```
 */
export async function recoverStack(stack: Stack, options: Omit<RecoverOptions, "stack" | "env"> = {}): Promise<RecoveryReport> {
  const { workspace } = stack;
  const env = { ...process.env, ...workspace.envVars };
  return recoverInterruptedDeploy(pulumiRunner(workspace.pulumiCommand.command, workspace.workDir, env), { ...options, stack: stack.name, env });
}

export interface RecoverOptions {
  /** The stack; default the selected one. */
  stack?: string;
  /** Decide and report, change nothing. */
  dryRun?: boolean;
  /** The Environments API; default from the stack config (`gemini-environments:apiKey`/`baseUrl`), else the environment as `pulumi` sees it. */
  client?: EnvironmentsClient;
  /** The environment `pulumi` runs with, for the API key and base URL when the stack config has none; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** How far before the window's start an environment's `created` may be (clocks differ). Default 5 s. */
  clockSkewMs?: number;
}

export type RecoveryAction =
  | { kind: "adopt"; urn: string; id: string; created?: string }
  | { kind: "clear"; urn: string; reason: string }
  | { kind: "delete-and-clear"; urn: string; id: string; reason: string };

export interface Refusal {
  urns: string[];
  candidates: string[];
  reason: string;
}

export interface RecoveryReport {
  stack: string;
  /** Pending operations found, by type (`creating`, `deleting`, `updating`, …). */
  pending: Record<string, number>;
  /** Environments created inside this window (ms since the epoch) were considered. */
  window: { from: number | null; to: number };
  actions: RecoveryAction[];
  refusals: Refusal[];
  /** Whether the state was changed (not on a dry run, a refusal, or nothing to do). */
  applied: boolean;
  /** What it found and did, one line each, for people. */
  lines: string[];
}

/** The recovery could not decide: nothing was changed; the message names the environments and the commands to finish by hand. */
export class RecoveryRefusedError extends Error {
  override name = "RecoveryRefusedError";
  readonly code = "GENV_RECOVERY_REFUSED";
  constructor(
    message: string,
    readonly report: RecoveryReport,
  ) {
    super(message);
  }
}

/** The stack's state changed while the recovery decided: nothing was applied, and a new run decides again. */
export class RecoveryStateChangedError extends Error {
  override name = "RecoveryStateChangedError";
  readonly code = "GENV_RECOVERY_STATE_CHANGED";
}

interface StateResource {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  created?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  [field: string]: unknown;
}
interface PendingOperation {
  type: string;
  resource: StateResource;
}
interface Deployment {
  resources?: StateResource[];
  pending_operations?: PendingOperation[];
  manifest?: { time?: string };
  [field: string]: unknown;
}
interface ExportedState {
  version: number;
  deployment: Deployment;
}

// ---------------------------------------------------------------------------------------------
// Resource types
// ---------------------------------------------------------------------------------------------

const ENVIRONMENT_TYPES = new Set(typeTokensOf("Environment"));
const CREDENTIAL_TYPES = new Set(typeTokensOf("Credential"));
const OUR_TYPES = new Set([...ENVIRONMENT_TYPES, ...CREDENTIAL_TYPES]);
/** How `pulumi stack export --show-secrets` marks a secret value (`{SIG: SECRET_SIG, plaintext: "<json>"}`). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

const execFileAsync = promisify(execFile);

// ---------------------------------------------------------------------------------------------
// The recovery
// ---------------------------------------------------------------------------------------------

/**
 * Finds what the interrupted deploy of a stack created, and (unless `dryRun`) hands it to the
 * engine. Throws `RecoveryRefusedError`, having changed nothing, when it cannot decide.
 */
export async function recoverInterruptedDeploy(pulumi: PulumiRunner, options: RecoverOptions = {}): Promise<RecoveryReport> {
  const stackArgs = options.stack ? ["--stack", options.stack] : [];
  const state = await exportedState(pulumi, stackArgs);
  const stack = options.stack ?? (await pulumi(["stack", "--show-name", ...stackArgs])).trim();
  const operations = state.deployment.pending_operations ?? [];
  const pending: Record<string, number> = {};
  for (const operation of operations) pending[operation.type] = (pending[operation.type] ?? 0) + 1;
  const report: RecoveryReport = { stack, pending, window: { from: null, to: Date.now() }, actions: [], refusals: [], applied: false, lines: [] };
  const say = (line: string) => report.lines.push(line);
  say(`stack ${stack}: ${operations.length === 0 ? "no pending operations" : Object.entries(pending).map(([type, n]) => `${n} pending ${type}`).join(", ")}`);
  if (operations.length === 0) return report;

  const creates = operations.filter((operation) => operation.type === "creating");
  const foreign = creates.filter((operation) => !OUR_TYPES.has(operation.resource.type));
  if (foreign.length > 0) {
    report.refusals.push({
      urns: foreign.map((operation) => operation.resource.urn),
      candidates: [],
      reason: "pending creates of other providers' resources: resolve them first (`pulumi refresh` asks, interactively, for each one)",
    });
  }
  const ours = creates.filter((operation) => OUR_TYPES.has(operation.resource.type));
  if (ours.length === 0) {
    if (report.refusals.length > 0) throw refusal(report);
    say("no pending create of ours: the next up or destroy finishes the pending deletes and updates; nothing to do");
    return report;
  }

  // The inputs in plain text, to compare with what the API echoes (in memory only).
  const revealed = await exportedState(pulumi, ["--show-secrets", ...stackArgs]);
  const inputsOf = new Map((revealed.deployment.pending_operations ?? []).map((operation) => [operation.resource.urn, reveal(operation.resource.inputs ?? {}) as Record<string, unknown>]));
  const held = await heldIds(pulumi, stack, state);
  const from = await windowStart(pulumi, stackArgs, state);
  report.window.from = from;
  say(`window: environments created ${from === null ? "at any time" : `from ${new Date(from).toISOString()}`} to now, held by no stack of this project (${held.size} ids held)`);
  const client = options.client ?? (await clientFromStack(pulumi, stackArgs, options.env));
  try {
    await decideEnvironments(client, ours.filter((operation) => ENVIRONMENT_TYPES.has(operation.resource.type)), inputsOf, held, from === null ? 0 : from - (options.clockSkewMs ?? 5_000), report);
    await decideCredentials(client, ours.filter((operation) => CREDENTIAL_TYPES.has(operation.resource.type)), inputsOf, held, report);
    for (const action of report.actions) say(describeAction(action));
    if (report.refusals.length > 0) throw refusal(report);
    if (options.dryRun) {
      say("dry run: nothing changed");
      return report;
    }
    await ensureStateUnchanged(pulumi, stackArgs, state, stack);
    for (const action of report.actions) if (action.kind === "delete-and-clear") await client.delete(action.id).catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error)));
  } finally {
    if (!options.client) await client.close();
  }

  await importState(pulumi, stackArgs, state, report.actions);
  report.applied = true;
  const others = operations.length - ours.length;
  if (others > 0) say(`dropped ${others} pending delete/update operation(s): the next up or destroy finishes them`);
  const adopted = report.actions.filter((action): action is Extract<RecoveryAction, { kind: "adopt" }> => action.kind === "adopt");
  if (adopted.length > 0) {
    // The provider itself reads each adopted resource: its outputs as the engine keeps them.
    await pulumi(["refresh", "--yes", "--skip-preview", "--non-interactive", ...stackArgs, ...adopted.flatMap((action) => ["--target", action.urn])]);
    say(`refreshed ${adopted.length} adopted resource(s)`);
  }
  say(`done: ${adopted.length} adopted, ${report.actions.length - adopted.length} cleared; run pulumi up`);
  return report;
}

/** For each spec, the environments its pending creates made: at most as many as there are pending creates. */
async function decideEnvironments(
  client: EnvironmentsClient,
  operations: PendingOperation[],
  inputsOf: Map<string, Record<string, unknown>>,
  held: Set<string>,
  from: number,
  report: RecoveryReport,
): Promise<void> {
  const groups = new Map<string, { inputs: EnvironmentInputs; request: CreateEnvironmentRequest; urns: string[] }>();
  for (const operation of operations) {
    const inputs = inputsOf.get(operation.resource.urn) as EnvironmentInputs;
    if (inputs.adopt !== undefined) {
      report.actions.push({ kind: "clear", urn: operation.resource.urn, reason: "an adopt creates nothing" });
      continue;
    }
    const request = createRequestOf(inputs);
    const key = JSON.stringify(request);
    const group = groups.get(key) ?? { inputs, request, urns: [] };
    group.urns.push(operation.resource.urn);
    groups.set(key, group);
  }
  for (const { inputs, request, urns } of groups.values()) {
    urns.sort();
    const candidates = (await environmentsCreatedLike(client, request, { from })).filter((environment) => !held.has(environment.id));
    if (candidates.length > urns.length) {
      report.refusals.push({
        urns,
        candidates: candidates.map((environment) => environment.id),
        reason: `${candidates.length} environments with this spec were created in the window and no state holds them, for ${urns.length} pending create(s): they cannot be told apart from environments outside this stack`,
      });
      continue;
    }
    urns.forEach((urn, index) => {
      const environment: Environment | undefined = candidates[index];
      if (!environment) report.actions.push({ kind: "clear", urn, reason: "no environment of its spec was created in the window: the create never reached the API" });
      else if (inputs.mode === "self_hosted") report.actions.push({ kind: "delete-and-clear", urn, id: environment.id, reason: "self_hosted: its key came only with the lost answer; up makes a new one" });
      else report.actions.push({ kind: "adopt", urn, id: environment.id, created: environment.created });
    });
  }
}

/** A credential's id is the program's: it exists (of the declared type, in no state) or it does not. */
async function decideCredentials(client: EnvironmentsClient, operations: PendingOperation[], inputsOf: Map<string, Record<string, unknown>>, held: Set<string>, report: RecoveryReport) {
  for (const operation of operations) {
    const { urn } = operation.resource;
    const inputs = inputsOf.get(urn) as { credentialId: string; type: string };
    try {
      const credential = await client.credentials.get(inputs.credentialId);
      if (held.has(credential.id) || credential.type !== inputs.type) {
        report.refusals.push({ urns: [urn], candidates: [credential.id], reason: `credential ${credential.id} exists but ${held.has(credential.id) ? "another state holds it" : `is a ${credential.type}, not a ${inputs.type}`}` });
      } else {
        report.actions.push({ kind: "adopt", urn, id: credential.id, created: credential.create_time });
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
      report.actions.push({ kind: "clear", urn, reason: `credential ${inputs.credentialId} does not exist: the create never reached the API` });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// What the backend knows
// ---------------------------------------------------------------------------------------------

/** A stack's state as `pulumi stack export` gives it; `args` e.g. `["--stack", name]`, `"--show-secrets"`. */
async function exportedState(pulumi: PulumiRunner, args: string[]): Promise<ExportedState> {
  return JSON.parse(await pulumi(["stack", "export", ...args])) as ExportedState;
}

/** The ids of our resources in this stack's state and in every other stack of the project on this backend. */
async function heldIds(pulumi: PulumiRunner, stack: string, state: ExportedState): Promise<Set<string>> {
  const held = new Set<string>();
  const collect = (deployment: Deployment) => {
    for (const resource of deployment.resources ?? []) if (OUR_TYPES.has(resource.type) && resource.id) held.add(resource.id);
  };
  collect(state.deployment);
  const stacks = JSON.parse(await pulumi(["stack", "ls", "--json"])) as Array<{ name: string }>;
  for (const { name } of stacks) {
    if (name === stack || name.endsWith(`/${stack}`)) continue;
    // Ids are never secret: the other stacks are read without their passphrases.
    collect((await exportedState(pulumi, ["--stack", name])).deployment);
  }
  return held;
}

/**
 * When the interrupted run began, at the earliest: the end of the stack's last completed update or
 * destroy (`pulumi stack history`); a stack that never completed one, the earliest resource it holds
 * (its first run registered the stack resource as it began); else unknown (null).
 */
async function windowStart(pulumi: PulumiRunner, stackArgs: string[], state: ExportedState): Promise<number | null> {
  const history = JSON.parse((await pulumi(["stack", "history", "--json", ...stackArgs])) || "[]") as Array<{ kind?: string; result?: string; endTime?: string }>;
  const ends = history.filter((entry) => (entry.kind === "update" || entry.kind === "destroy") && entry.endTime && entry.result !== "in-progress").map((entry) => Date.parse(entry.endTime!));
  if (ends.length > 0) return Math.max(...ends);
  const created = (state.deployment.resources ?? []).map((resource) => Date.parse(resource.created ?? "")).filter(Number.isFinite);
  return created.length > 0 ? Math.min(...created) : null;
}

/** A client as the provider builds one: the stack config's `gemini-environments:apiKey`/`baseUrl`, else the environment. */
async function clientFromStack(pulumi: PulumiRunner, stackArgs: string[], env?: NodeJS.ProcessEnv): Promise<EnvironmentsClient> {
  const config = JSON.parse(await pulumi(["config", "--json", "--show-secrets", ...stackArgs])) as Record<string, { value?: string }>;
  return new EnvironmentsClient({ ...stackProviderConfig({ get: (key) => config[key]?.value }), env });
}

/**
 * The recovery edits the state it exported first and imports it whole, so a `pulumi` command that
 * wrote the stack's state meanwhile (an update, a refresh, `pulumi state …`) would be undone by the
 * import, and whatever it created orphaned: the very loss the recovery is for. Checked just before
 * anything is applied; the engine's own lock covers the import itself.
 */
async function ensureStateUnchanged(pulumi: PulumiRunner, stackArgs: string[], exported: ExportedState, stack: string): Promise<void> {
  const now = await exportedState(pulumi, stackArgs);
  if (isDeepStrictEqual(now.deployment, exported.deployment)) return;
  throw new RecoveryStateChangedError(
    `the state of ${stack} changed while genv recover was deciding (another pulumi command wrote it); nothing was changed. ` +
      `Let that command finish (pulumi cancel --stack ${stack} if it was killed), then run genv recover again.`,
  );
}

/** Imports the state with the adopted operations' resources added and every pending operation gone. */
async function importState(pulumi: PulumiRunner, stackArgs: string[], state: ExportedState, actions: RecoveryAction[]): Promise<void> {
  const deployment = state.deployment;
  const byUrn = new Map((deployment.pending_operations ?? []).map((operation) => [operation.resource.urn, operation.resource]));
  for (const action of actions) {
    if (action.kind !== "adopt") continue;
    const resource = byUrn.get(action.urn)!;
    // Outputs start as the inputs (the dynamic provider's read needs `__provider` among them); the refresh that follows replaces them.
    deployment.resources = [...(deployment.resources ?? []), { ...resource, id: action.id, outputs: { ...(resource.inputs ?? {}) } }];
  }
  deployment.pending_operations = [];
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-recover-"));
  try {
    const file = path.join(dir, "state.json");
    await fs.promises.writeFile(file, JSON.stringify(state), { mode: 0o600 });
    await pulumi(["stack", "import", "--file", file, ...stackArgs]);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

function describeAction(action: RecoveryAction): string {
  switch (action.kind) {
    case "adopt":
      return `adopt ${action.id}${action.created ? ` (created ${action.created})` : ""} as ${action.urn}`;
    case "clear":
      return `clear ${action.urn}: ${action.reason}`;
    case "delete-and-clear":
      return `delete ${action.id} and clear ${action.urn}: ${action.reason}`;
  }
}

function refusal(report: RecoveryReport): RecoveryRefusedError {
  const stack = `--stack ${report.stack}`;
  const lines = report.refusals.map(
    ({ urns, candidates, reason }) => `- ${urns.join(", ")}: ${reason}${candidates.length > 0 ? `; candidates: ${candidates.join(", ")}` : ""}`,
  );
  const message =
    `cannot decide which environments the interrupted deploy of ${report.stack} created; nothing was changed.\n${lines.join("\n")}\n` +
    `Check the candidates (genv env get ID), delete the ones that are not this stack's (genv env rm ID), and run genv recover again; ` +
    `or finish by hand: pulumi stack export ${stack} --file state.json, move each pending operation's resource into "resources" with its "id", ` +
    `pulumi stack import ${stack} --file state.json, then pulumi refresh ${stack}.`;
  report.lines.push(message);
  return new RecoveryRefusedError(message, report);
}

/** The values of `pulumi stack export --show-secrets`, secrets unwrapped. */
function reveal(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reveal);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  if (record[SECRET_SIG] === SECRET_VALUE && typeof record.plaintext === "string") return reveal(JSON.parse(record.plaintext));
  return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, reveal(item)]));
}
