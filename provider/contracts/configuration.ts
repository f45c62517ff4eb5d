/**
 * Where the provider's credentials come from, read at run time inside provider methods and never
 * captured by the serialized provider nor written to state, first match wins:
 *
 * 1. the provider's configuration: for the dynamic provider the stack config through `configure`
 *    (`gemini-environments:apiKey` as a secret, `gemini-environments:baseUrl`); for the plugin the
 *    arguments of `configure` (an explicit provider resource's `apiKey`/`baseUrl`, or the stack
 *    config the engine passes to the default provider), then the stack config the engine hands the
 *    plugin at launch in `PULUMI_CONFIG`;
 * 2. the environment: `GOOGLE_API_KEY` / `GEMINI_API_KEY`, `GOOGLE_GEMINI_BASE_URL`.
 */
import { createHash } from "node:crypto";
import type { EnvironmentsClient } from "../../client/client";
import type { EnvironmentsClientOptions } from "../../client/config";

export const CONFIG_NAMESPACE = "gemini-environments";

export interface ProviderConfig {
  apiKey?: string;
  baseUrl?: string;
}

/** Values from the provider's configuration, set once per provider process. */
let providerConfig: ProviderConfig = {};

/**
 * The type tokens a resource of the package has in the engine's calls and in state: the plugin's
 * (`gemini-environments:index:Environment`) and the dynamic provider's
 * (`pulumi-nodejs:dynamic/gemini-environments:Environment`).
 */
export function typeTokensOf(resource: "Environment" | "Credential"): readonly string[] {
  return [`${CONFIG_NAMESPACE}:index:${resource}`, `pulumi-nodejs:dynamic/${CONFIG_NAMESPACE}:${resource}`];
}

/** The provider's values in a stack's config: `gemini-environments:apiKey` and `gemini-environments:baseUrl`. */
export function stackProviderConfig(config: { get(key: string): string | undefined }): ProviderConfig {
  return {
    apiKey: config.get(`${CONFIG_NAMESPACE}:apiKey`) || undefined,
    baseUrl: config.get(`${CONFIG_NAMESPACE}:baseUrl`) || undefined,
  };
}

/** The dynamic provider's `configure`: the stack's config. */
export function setStackConfig(config: { get(key: string): string | undefined }): void {
  providerConfig = stackProviderConfig(config);
}

/** The plugin's configuration: `values` (configure's arguments) over `fallback` (PULUMI_CONFIG). */
export function setProviderConfig(values: ProviderConfig, fallback: ProviderConfig = {}): void {
  providerConfig = {
    apiKey: values.apiKey || fallback.apiKey || undefined,
    baseUrl: values.baseUrl || fallback.baseUrl || undefined,
  };
}

/**
 * The package's stack config that the engine passes to a plugin at launch: `PULUMI_CONFIG` holds a
 * JSON object of the package's keys without their namespace (`{"apiKey": "…", "baseUrl": "…"}`),
 * secrets decrypted.
 */
export function launchConfig(env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(env.PULUMI_CONFIG || "{}");
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  const value = (key: string) => {
    const found = (parsed as Record<string, unknown>)[key] ?? (parsed as Record<string, unknown>)[`${CONFIG_NAMESPACE}:${key}`];
    return typeof found === "string" && found !== "" ? found : undefined;
  };
  return { apiKey: value("apiKey"), baseUrl: value("baseUrl") };
}

/** Client options for this call: the provider's configuration first, the client falls back to the environment. */
export function clientOptions(): EnvironmentsClientOptions {
  return { apiKey: providerConfig.apiKey, baseUrl: providerConfig.baseUrl };
}

/**
 * One client per key and base URL for the life of the provider process, so that the calls of a
 * deployment share pooled connections: against the hosted API each new client would open a new TLS
 * connection, once per resource of a refresh. Built on first use inside a provider method, never
 * captured by the serialized provider; idle sockets do not keep the process alive. The client's modules
 * (undici, zod) are loaded then too, so that the plugin starts without them and one answering only
 * check and diff never loads the client.
 */
const clients = new Map<string, EnvironmentsClient>();

export function providerClient(): EnvironmentsClient {
  const { API_KEY_ENV_VARS, BASE_URL_ENV_VAR } = require("../../client/config") as typeof import("../../client/config");
  const options = clientOptions();
  const apiKey = options.apiKey ?? API_KEY_ENV_VARS.map((name) => process.env[name]).find(Boolean);
  const baseUrl = options.baseUrl ?? process.env[BASE_URL_ENV_VAR];
  const key = createHash("sha256").update(JSON.stringify([apiKey, baseUrl])).digest("hex");
  let client = clients.get(key);
  if (!client) {
    const { EnvironmentsClient } = require("../../client/client") as typeof import("../../client/client");
    client = new EnvironmentsClient(options); // throws ConfigurationError, naming where keys go, when there is none
    clients.set(key, client);
  }
  return client;
}

/**
 * The client of a Pulumi program's own calls (the TypeScript functions, functions/direct.ts): the
 * stack's `gemini-environments:` config as the program sees it, then the environment, as the dynamic
 * provider reads them. Outside a program (a script) there is no stack config: the environment alone.
 */
export function programClient(): EnvironmentsClient {
  const { getConfig } = require("@pulumi/pulumi/runtime/config") as typeof import("@pulumi/pulumi/runtime/config");
  setStackConfig({ get: getConfig });
  return providerClient();
}
