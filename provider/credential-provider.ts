/**
 * The Credential resource as a Node.js dynamic provider: a thin adapter over its core
 * (credential-core.ts). As for Environment, the serialized dynamic provider only holds a `require`
 * of this module (its path is in existing states: keep it), and each call builds its client from
 * the stack config or the environment.
 */
import type * as pulumi from "@pulumi/pulumi";
import { providerClient, setStackConfig } from "./configuration";
import { credentialCore as core } from "./credential-core";
import type { CredentialInputs, CredentialOutputs } from "./credential-inputs";
import { dynamicDiffResult } from "./resource-core";

type Provider = pulumi.dynamic.ResourceProvider<CredentialInputs, CredentialOutputs>;

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

/** Changes the fields that differ, in place: PATCH with an update_mask of exactly their wire names. */
export const update: NonNullable<Provider["update"]> = async (id, olds, news) => ({ outs: await core.update(providerClient(), id, olds, news) });

export const remove: NonNullable<Provider["delete"]> = async (id) => core.delete(providerClient(), id);
/**
 * The provider's `delete` (a reserved word, hence `remove` above). This module is the provider the
 * engine serializes (a `require` of it), so it exports the provider's methods under their names.
 */
export { remove as delete };
