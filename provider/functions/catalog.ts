/**
 * Every function of the package by name, each module loaded on first use: the plugin's start-up loads
 * none, and an Invoke of `getCredential` loads the credentials module alone. The plugin's Invoke, the
 * TypeScript functions and scripts/generate-schema.ts all find them here.
 */
import type { FunctionCore } from "../contracts/function-core";
import { CONFIG_NAMESPACE } from "../contracts/configuration";

type Functions = typeof import("./environments") & typeof import("./environment-file") & typeof import("./credentials");

const LOADERS = {
  getEnvironment: () => (require("./environments") as Functions).getEnvironment,
  getEnvironments: () => (require("./environments") as Functions).getEnvironments,
  getEnvironmentFile: () => (require("./environment-file") as Functions).getEnvironmentFile,
  getCredential: () => (require("./credentials") as Functions).getCredential,
  getCredentials: () => (require("./credentials") as Functions).getCredentials,
} satisfies Record<string, () => FunctionCore>;

export type FunctionName = keyof typeof LOADERS;

/** `gemini-environments:index:getEnvironment` of `getEnvironment`. */
export function functionToken(name: FunctionName): string {
  return `${CONFIG_NAMESPACE}:index:${name}`;
}

/** The function a token names; an unknown token is an error listing those served. */
export function functionOf(token: string): FunctionCore {
  const name = token.startsWith(`${CONFIG_NAMESPACE}:index:`) ? token.slice(`${CONFIG_NAMESPACE}:index:`.length) : undefined;
  const load = name !== undefined && Object.hasOwn(LOADERS, name) ? LOADERS[name as FunctionName] : undefined;
  if (!load) throw new Error(`unknown function ${token} (this provider serves ${Object.keys(LOADERS).map((known) => functionToken(known as FunctionName)).join(", ")})`);
  return load() as unknown as FunctionCore;
}

/** Every function, loaded (schema.json, the reference). */
export function allFunctions(): FunctionCore[] {
  return Object.values(LOADERS).map((load) => load() as unknown as FunctionCore);
}
