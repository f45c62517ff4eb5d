/**
 * A resource core (resource-core.ts) as a Node.js dynamic provider: the methods the engine's
 * dynamic-provider host calls. Each resource's module (environment-provider.ts,
 * credential-provider.ts) exports them under their names, because the serialized provider the engine
 * keeps in state is only a `require` of that module: credentials and clients never enter the
 * serialized text or state, and each call builds its client from the stack config or the environment.
 */
import type * as pulumi from "@pulumi/pulumi";
import { providerClient, setStackConfig } from "./configuration";
import { dynamicDiffResult, partialFailure, type ResourceCore } from "./resource-core";
import { dynamicProviderHostEngine, exitWhenEngineGone } from "./engine-watchdog";

// Loaded into the dynamic provider's host (Pulumi's code, which never notices a killed engine): the
// host and its shell leave once the engine is gone (engine-watchdog.ts).
exitWhenEngineGone(dynamicProviderHostEngine());

/** Where the engine keeps a dynamic resource's serialized provider, among its properties. */
const DYNAMIC_PROVIDER_KEY = "__provider";

export type DynamicProvider<Inputs, Outputs> = Required<pulumi.dynamic.ResourceProvider<Inputs, Outputs>>;

export function dynamicProvider<Inputs extends object, Outputs extends Inputs>(core: ResourceCore<Inputs, Outputs>): DynamicProvider<Inputs, Outputs> {
  return {
    async configure(request) {
      setStackConfig(request.config);
    },
    async check(olds, news) {
      return core.check(olds, news);
    },
    async diff(_id, olds, news) {
      return dynamicDiffResult(core.diff(olds, news));
    },
    async create(inputs) {
      return core.create(providerClient(), inputs);
    },
    async read(id, props) {
      const result = await core.read(providerClient(), id, props);
      return result ? { id, props: result.outs } : { id: "" };
    },
    async update(id, olds, news) {
      try {
        return { outs: await core.update(providerClient(), id, olds, news) };
      } catch (error) {
        // A partial failure the engine records: it must keep the provider reference, as every output does.
        const provider = (news as Record<string, unknown>)[DYNAMIC_PROVIDER_KEY];
        throw partialFailure(error, (outs) => ({ ...outs, [DYNAMIC_PROVIDER_KEY]: provider }));
      }
    },
    async delete(id) {
      await core.delete(providerClient(), id);
    },
  };
}
