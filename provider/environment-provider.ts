/**
 * The Environment resource as a Node.js dynamic provider: a thin adapter over its core
 * (environment-core.ts). The serialized dynamic provider only holds a `require` of this module (its
 * path is in every existing stack's state: keep it), so credentials and clients never enter the
 * serialized text or state: each call builds its client from the stack config or the environment.
 */
import type * as pulumi from "@pulumi/pulumi";
import { providerClient, setStackConfig } from "./configuration";
import { environmentCore as core } from "./environment-core";
import type { EnvironmentInputs, EnvironmentOutputs } from "./environment-inputs";
import { dynamicDiffResult, partialFailure } from "./resource-core";

/** Where the engine keeps a dynamic resource's serialized provider, among its properties. */
const DYNAMIC_PROVIDER_KEY = "__provider";

type Provider = pulumi.dynamic.ResourceProvider<EnvironmentInputs, EnvironmentOutputs>;

export const configure: NonNullable<Provider["configure"]> = async (request) => {
  setStackConfig(request.config);
};

export const check: NonNullable<Provider["check"]> = async (olds, news) => core.check(olds, news);

export const diff: NonNullable<Provider["diff"]> = async (_id, olds, news) => dynamicDiffResult(core.diff(olds, news));

export const create: Provider["create"] = async (inputs) => core.create(providerClient(), inputs);

export const read: NonNullable<Provider["read"]> = async (id, props) => {
  const result = await core.read(providerClient(), id, props);
  return result ? { id, props: result.outs } : { id: "" };
};

export const update: NonNullable<Provider["update"]> = async (id, olds, news) => {
  try {
    return { outs: await core.update(providerClient(), id, olds, news) };
  } catch (error) {
    // A partial failure the engine records: it must keep the provider reference, as every output does.
    const provider = (news as unknown as Record<string, unknown>)[DYNAMIC_PROVIDER_KEY];
    throw partialFailure(error, (outs) => ({ ...outs, [DYNAMIC_PROVIDER_KEY]: provider }));
  }
};

export const remove: NonNullable<Provider["delete"]> = async (id) => core.delete(providerClient(), id);
/**
 * The provider's `delete` (a reserved word, hence `remove` above). This module is the provider the
 * engine serializes (a `require` of it), so it exports the provider's methods under their names.
 */
export { remove as delete };
