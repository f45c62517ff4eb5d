/**
 * The Environment resource as a Node.js dynamic provider (contracts/dynamic-adapter.ts over
 * environment/core.ts). The serialized dynamic provider holds a `require` of this module, whose path
 * is in every stack's state: keep it, and keep exporting the provider's methods by name
 * (provider/environment-provider.ts keeps the path of stacks made before the provider/ folders).
 */
import { dynamicProvider } from "../contracts/dynamic-adapter";
import { environmentCore } from "./core";

const provider = dynamicProvider(environmentCore);

export const { configure, check, diff, create, read, update } = provider;
/** The provider's `delete`, a reserved word as a binding name. */
export const remove = provider.delete;
export { remove as delete };
