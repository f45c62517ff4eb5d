/**
 * The Environment resource as a Node.js dynamic provider (dynamic-adapter.ts over
 * environment-core.ts). The serialized dynamic provider holds a `require` of this module, whose path
 * is in every existing stack's state: keep it, and keep exporting the provider's methods by name.
 */
import { dynamicProvider } from "./dynamic-adapter";
import { environmentCore } from "./environment-core";

const provider = dynamicProvider(environmentCore);

export const { configure, check, diff, create, read, update } = provider;
/** The provider's `delete`, a reserved word as a binding name. */
export const remove = provider.delete;
export { remove as delete };
