/**
 * Where the provider's credentials come from, read at run time inside provider methods and never
 * captured by the serialized provider nor written to state: stack config
 * (`gemini-environments:apiKey` as a secret, `gemini-environments:baseUrl`) through `configure`,
 * else the environment (`GOOGLE_API_KEY` / `GEMINI_API_KEY`, `GOOGLE_GEMINI_BASE_URL`).
 */
import type { EnvironmentsClientOptions } from "../sdk/config";

export const CONFIG_NAMESPACE = "gemini-environments";

/** Values from the stack's config, set once per provider process by `configure`. */
let stackConfig: { apiKey?: string; baseUrl?: string } = {};

export function setStackConfig(config: { get(key: string): string | undefined }): void {
  stackConfig = {
    apiKey: config.get(`${CONFIG_NAMESPACE}:apiKey`) || undefined,
    baseUrl: config.get(`${CONFIG_NAMESPACE}:baseUrl`) || undefined,
  };
}

/** Client options for this call: stack config first, the client falls back to the environment. */
export function clientOptions(): EnvironmentsClientOptions {
  return { apiKey: stackConfig.apiKey, baseUrl: stackConfig.baseUrl };
}
