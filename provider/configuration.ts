/**
 * Where the provider's credentials come from, read at run time inside provider methods and never
 * captured by the serialized provider nor written to state: stack config
 * (`gemini-environments:apiKey` as a secret, `gemini-environments:baseUrl`) through `configure`,
 * else the environment (`GOOGLE_API_KEY` / `GEMINI_API_KEY`, `GOOGLE_GEMINI_BASE_URL`).
 */
import { createHash } from "node:crypto";
import { EnvironmentsClient } from "../sdk/client";
import { API_KEY_ENV_VARS, BASE_URL_ENV_VAR, type EnvironmentsClientOptions } from "../sdk/config";

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

/**
 * One client per key and base URL for the life of the provider process, so that the calls of a
 * deployment share pooled connections: against the hosted API each new client would open a new TLS
 * connection, once per resource of a refresh. Built on first use inside a provider method, never
 * captured by the serialized provider; idle sockets do not keep the process alive.
 */
const clients = new Map<string, EnvironmentsClient>();

export function providerClient(): EnvironmentsClient {
  const options = clientOptions();
  const apiKey = options.apiKey ?? API_KEY_ENV_VARS.map((name) => process.env[name]).find(Boolean);
  const baseUrl = options.baseUrl ?? process.env[BASE_URL_ENV_VAR];
  const key = createHash("sha256").update(JSON.stringify([apiKey, baseUrl])).digest("hex");
  let client = clients.get(key);
  if (!client) {
    client = new EnvironmentsClient(options); // throws ConfigurationError, naming where keys go, when there is none
    clients.set(key, client);
  }
  return client;
}
