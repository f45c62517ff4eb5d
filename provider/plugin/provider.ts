/**
 * The resources as a native Pulumi provider: a thin adapter that hands each call to the resource's
 * core by the type in its URN, served by `@pulumi/pulumi`'s `provider.main` (main.ts).
 *
 * Beyond `@pulumi/pulumi/provider`'s `Provider` interface it has `configure` (an explicit provider's
 * `apiKey`/`baseUrl`), `checkConfig`, `diff` results with a `detailedDiff`, and `read` by id alone
 * (`pulumi import`): `server-gaps.ts` says why the server needs help to reach them.
 *
 * Cores load on first use, so that start-up loads only what serving needs (bench fleet measures it).
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type * as pulumi from "@pulumi/pulumi/provider";
import { CONFIG_NAMESPACE, launchConfig, providerClient, setProviderConfig } from "../contracts/configuration";
import { checkFailure, identityOfUrn, partialFailure, replacedProperties, type PropertyChange, type ResourceCore } from "../contracts/resource-core";
import { InvalidInputError } from "../contracts/errors";
import { conceal, reveal, secret, type Path } from "./_secrets";
import { profiling, timedMethods } from "./_profile";
import { packagedFile, packageVersion } from "../contracts/package-identity";

/** A property's change as the engine's detailed diff spells it. */
export type PropertyDiffKind = "add" | "addReplace" | "delete" | "deleteReplace" | "update" | "updateReplace";

export interface DetailedDiffResult extends pulumi.DiffResult {
  /** Every changed property path, with its kind and whether the old value is an input. */
  readonly detailedDiff: Record<string, { kind: PropertyDiffKind; inputDiff: boolean }>;
}

export interface PluginProvider extends pulumi.Provider {
  version: string;
  configure(args: Record<string, unknown>): Promise<void>;
  checkConfig(urn: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.CheckResult>;
  diff(id: string, urn: string, olds: unknown, news: unknown, oldInputs?: unknown): Promise<DetailedDiffResult>;
  /** `props` (and `inputs`) are undefined on import: the result then holds the inputs, read from the API. */
  read(id: string, urn: string, props?: unknown, inputs?: unknown): Promise<pulumi.ReadResult>;
  update(id: string, urn: string, olds: unknown, news: unknown, oldInputs?: unknown): Promise<pulumi.UpdateResult>;
}

// ---------------------------------------------------------------------------------------------
// Resource types → cores, loaded on first use
// ---------------------------------------------------------------------------------------------

type AnyCore = ResourceCore<object, object>;

const CORES: Record<string, () => AnyCore> = {
  [`${CONFIG_NAMESPACE}:index:Environment`]: () => (require("../environment/core") as typeof import("../environment/core")).environmentCore as unknown as AnyCore,
  [`${CONFIG_NAMESPACE}:index:Credential`]: () => (require("../credential/core") as typeof import("../credential/core")).credentialCore as unknown as AnyCore,
};

/**
 * Loads every module a call may load (scripts/pack-plugin traces what the plugin needs this way).
 * @public (called by scripts/pack-plugin, which knip does not read)
 */
export function loadEverything(): void {
  for (const load of Object.values(CORES)) load();
  (require("../functions/catalog") as typeof import("../functions/catalog")).allFunctions();
  require("../../client/client");
  require("./components");
  // A HookBundle's policy cases, run at preview in the local sandbox (hook-bundle.ts imports it on first use).
  require("../../emulator/sandbox/policy-cases");
}

/**
 * Loads what the first call on an environment needs (zod, the client and undici, the core), a module
 * a turn, once the port is out. The engine connects, configures and plans meanwhile, on the other
 * core, where the first check or delete used to load them while the engine waited. A call that comes
 * in the meantime is served between two modules.
 */
export async function warmUp(): Promise<void> {
  const steps = [() => require("zod"), () => require("../../client/client"), CORES[`${CONFIG_NAMESPACE}:index:Environment`]];
  for (const load of steps) {
    await nextTurn();
    try {
      load();
    } catch {
      return; // the call that needs it reports the error
    }
  }
}

/** The core of the resource type in `urn` (`urn:pulumi:stack::project::parent$gemini-environments:index:Environment::name`). */
function coreOf(urn: string): AnyCore {
  const type = identityOfUrn(urn)?.type ?? "";
  const load = CORES[type];
  if (!load) throw new Error(`unknown resource type ${type} (this provider serves ${Object.keys(CORES).join(", ")})`);
  if (!profiling) return load();
  let timed = TIMED_CORES.get(type);
  if (!timed) TIMED_CORES.set(type, (timed = timedMethods(load(), "core")));
  return timed;
}

/** The cores with their calls timed, when GENV_PROVIDER_PROFILE is set (_profile.ts). */
const TIMED_CORES = new Map<string, AnyCore>();

// ---------------------------------------------------------------------------------------------
// The adapter
// ---------------------------------------------------------------------------------------------

export function pluginProvider(): PluginProvider {
  const version = packageVersion();
  const atLaunch = launchConfig();
  setProviderConfig({}, atLaunch);

  /** Secret paths of the values, plus the type's always-secret properties. */
  const secretPaths = (core: AnyCore, ...found: Path[][]): Path[] => [...found.flat(), ...core.secretProperties.map((property) => [property])];
  /**
   * The outputs the plugin returns: all but the inputs they only restate (`restatedInputs`). The state
   * keeps those once, in its inputs (the engine sends them back as old inputs; every SDK falls back to
   * an input for a property the outputs leave out, on update), so an environment's sources are not
   * stored twice.
   */
  const computed = (core: AnyCore, outs: object) =>
    Object.fromEntries(Object.entries(outs).filter(([property]) => !core.restatedInputs.includes(property)));
  /** The old state as the core sees it: the old inputs with the computed outputs over them. */
  const oldState = (olds: unknown, oldInputs: unknown) => reveal({ ...((oldInputs as object) ?? {}), ...((olds as object) ?? {}) });

  return {
    version,

    getSchema: () => Promise.resolve(packagedFile("schema.json")),

    async configure(args) {
      const { plain } = reveal(args) as { plain: Record<string, unknown> };
      const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
      setProviderConfig({ apiKey: text(plain.apiKey), baseUrl: text(plain.baseUrl) }, atLaunch);
    },

    /** An explicit provider's inputs: `apiKey` made secret whatever its origin, `baseUrl` a URL. */
    async checkConfig(_urn, _olds, news) {
      const failures: pulumi.CheckFailure[] = [];
      const { plain } = reveal(news) as { plain: Record<string, unknown> };
      if (typeof plain.baseUrl === "string" && !/^https?:\/\/[^\s/]+/.test(plain.baseUrl)) {
        failures.push({ property: "baseUrl", reason: `baseUrl: ${JSON.stringify(plain.baseUrl)} is not an http(s) URL, e.g. http://127.0.0.1:8765` });
      }
      const inputs = plain.apiKey === undefined ? news : { ...news, apiKey: secret(plain.apiKey) };
      return { inputs, failures };
    },

    async check(urn, olds, news) {
      const core = coreOf(urn);
      const revealed = reveal(news);
      // The URN names the resource: the defaults the classes derive from it (a Credential's id) are the core's here.
      const result = core.check(reveal(olds ?? {}).plain as object, revealed.plain as object, identityOfUrn(urn));
      return { inputs: conceal(result.inputs, secretPaths(core, revealed.secrets)), failures: result.failures };
    },

    async diff(_id, urn, olds, news, oldInputs) {
      const core = coreOf(urn);
      const diff = core.diff(oldState(olds, oldInputs).plain as object, reveal(news).plain as object);
      const detailedDiff: DetailedDiffResult["detailedDiff"] = {};
      for (const [property, change] of diff.changes) detailedDiff[property] = { kind: diffKind(change), inputDiff: change.input };
      return { changes: diff.changes.size > 0, replaces: replacedProperties(diff), deleteBeforeReplace: diff.deleteBeforeReplace, detailedDiff };
    },

    async create(urn, inputs) {
      const core = coreOf(urn);
      const revealed = reveal(inputs);
      const { id, outs } = await core.create(providerClient(), revealed.plain as object);
      return { id, outs: conceal(computed(core, outs), secretPaths(core, revealed.secrets)) };
    },

    async read(id, urn, props, inputs) {
      const core = coreOf(urn);
      const revealed = props === undefined && inputs === undefined ? undefined : oldState(props, inputs);
      const result = await core.read(providerClient(), id, revealed?.plain as object | undefined);
      if (!result) return { id: "" };
      const secrets = secretPaths(core, revealed?.secrets ?? []);
      return { id: result.id, props: conceal(computed(core, result.outs), secrets), inputs: conceal(result.inputs, secrets) };
    },

    async update(id, urn, olds, news, oldInputs) {
      const core = coreOf(urn);
      const revealed = reveal(news);
      const old = oldState(olds, oldInputs);
      const secrets = secretPaths(core, revealed.secrets, old.secrets);
      try {
        const outs = await core.update(providerClient(), id, old.plain as object, revealed.plain as object);
        return { outs: conceal(computed(core, outs), secrets) };
      } catch (error) {
        // A partial failure keeps the inputs as applied in its outputs: the engine records the
        // declared inputs, and the next diff takes the outputs over them (oldState).
        throw partialFailure(error, (outs) => conceal(outs, secrets) as object);
      }
    },

    async delete(id, urn) {
      await coreOf(urn).delete(providerClient(), id);
    },

    /**
     * A function (functions/catalog.ts). Its arguments at fault (unknown or malformed, an id the API
     * does not know, a path that is a directory) are the invoke's failures, which every SDK reports
     * naming the function, the argument and what to check; any other error is thrown.
     */
    async invoke(token, inputs) {
      const { functionOf } = require("../functions/catalog") as typeof import("../functions/catalog");
      // Loaded here, not at start: they load zod, which no call needs before the port is out.
      const { callFunction } = require("../contracts/function-core") as typeof import("../contracts/function-core");
      const { secretValuePaths } = require("../contracts/resource-schema") as typeof import("../contracts/resource-schema");
      try {
        const core = functionOf(token);
        const outputs = await callFunction(core, providerClient, reveal(inputs ?? {}).plain);
        // A value the schema marks secret (an allowlist entry's transform) stays one.
        return { outputs: conceal(outputs, secretValuePaths(core.result, outputs)) };
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        return { outputs: {}, failures: error.issues.map(checkFailure) };
      }
    },

    async construct(name, type, inputs, options) {
      const { construct } = require("./components") as typeof import("./components");
      return construct(name, type, inputs, options);
    },
  };
}

function diffKind(change: PropertyChange): PropertyDiffKind {
  return change.replace ? `${change.kind}Replace` : change.kind;
}
