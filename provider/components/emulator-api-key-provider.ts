/**
 * The emulator container's API key as a Node.js dynamic provider: made once, at create, from 32 random
 * bytes, and kept in the state (a secret) from then on, so previews and updates leave it, and the
 * container that holds it, alone. No plugin of its own (`@pulumi/random`'s cannot be downloaded
 * everywhere); the dynamic provider host ships with the engine.
 *
 * The serialized dynamic provider holds a `require` of this module, whose path is in every stack's
 * state: keep it, and keep exporting the provider's methods by name.
 */
import { randomBytes, randomUUID } from "node:crypto";

export interface EmulatorApiKeyOutputs {
  /** `genv_` and 43 base64url characters (256 bits). */
  value: string;
}

export async function create(): Promise<{ id: string; outs: EmulatorApiKeyOutputs }> {
  return { id: randomUUID(), outs: { value: `genv_${randomBytes(32).toString("base64url")}` } };
}

/** Nothing to compare: the key has no inputs, so it changes only when replaced (`pulumi up --replace`). */
export async function diff(): Promise<{ changes: boolean }> {
  return { changes: false };
}
