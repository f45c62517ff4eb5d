/**
 * The Credential resource as a Node.js dynamic provider (contracts/dynamic-adapter.ts over credential/core.ts:
 * a changed secret is a PATCH with an update_mask of exactly the changed wire names). As for
 * Environment, the serialized provider is a `require` of this module, whose path is in existing
 * states: keep it, and keep exporting the provider's methods by name.
 */
import { credentialCore } from "./core";
import { dynamicProvider } from "../contracts/dynamic-adapter";

const provider = dynamicProvider(credentialCore);

export const { configure, check, diff, create, read, update } = provider;
/** The provider's `delete`, a reserved word as a binding name. */
export const remove = provider.delete;
export { remove as delete };
