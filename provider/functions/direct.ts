/**
 * The functions as the TypeScript package exports them at its top level, beside the dynamic-provider
 * resources: each calls the API from the program itself, through the API client (client/), with the stack's
 * `gemini-environments:` config or the environment's key and base URL (as the dynamic provider does),
 * so no plugin is needed. `plugin.getEnvironment` and the rest (functions/invoked.ts) invoke the
 * plugin instead, as the other languages do. The `…Output` forms take inputs and return an output.
 *
 * ```ts
 * import { getEnvironmentOutput } from "pulumi-gemini-environments";
 * const shared = getEnvironmentOutput({ id: config.require("sharedEnvironmentId") });
 * export const sharedStatus = shared.status;
 * ```
 */
import * as pulumi from "../contracts/pulumi-sdk";
import { programClient } from "../contracts/configuration";
import { callFunction } from "../contracts/function-core";
import { secretValuePaths, type InputsOf } from "../contracts/resource-schema";
import { functionOf, functionToken, type FunctionName } from "./catalog";
import type { CredentialInfo, GetCredentialArgs, GetCredentialsResult } from "./credentials";
import type { EnvironmentFileContent, GetEnvironmentFileArgs } from "./environment-file";
import type { EnvironmentInfo, GetEnvironmentArgs, GetEnvironmentsArgs, GetEnvironmentsResult } from "./environments";

function call<Result>(name: FunctionName, args: object): Promise<Result> {
  return callFunction(functionOf(functionToken(name)), programClient, args) as Promise<Result>;
}

/** A result holding a value its schema marks secret (an allowlist entry's transform) is a secret output, as `invokeOutput`'s is. */
function callOutput<Args extends object, Result>(name: FunctionName, args: InputsOf<Args>): pulumi.Output<Result> {
  const { result } = functionOf(functionToken(name));
  return pulumi.output(args as object).apply(async (resolved) => {
    const value = await call<Result>(name, resolved);
    return secretValuePaths(result, value).length > 0 ? pulumi.secret(value) : value;
  }) as pulumi.Output<Result>;
}

/** An environment by id: status, mode, times, file count and size, network and sources (docs/reference/getEnvironment.md). */
export function getEnvironment(args: GetEnvironmentArgs): Promise<EnvironmentInfo> {
  return call("getEnvironment", args);
}
export function getEnvironmentOutput(args: InputsOf<GetEnvironmentArgs>): pulumi.Output<EnvironmentInfo> {
  return callOutput("getEnvironment", args);
}

/** Every environment of the key, every page, optionally of one mode (docs/reference/getEnvironments.md). */
export function getEnvironments(args: GetEnvironmentsArgs = {}): Promise<GetEnvironmentsResult> {
  return call("getEnvironments", args);
}
export function getEnvironmentsOutput(args: InputsOf<GetEnvironmentsArgs> = {}): pulumi.Output<GetEnvironmentsResult> {
  return callOutput("getEnvironments", args);
}

/** One file of an environment: `content` (UTF-8 text) or `contentBase64`, size, modification time (docs/reference/getEnvironmentFile.md). */
export function getEnvironmentFile(args: GetEnvironmentFileArgs): Promise<EnvironmentFileContent> {
  return call("getEnvironmentFile", args);
}
export function getEnvironmentFileOutput(args: InputsOf<GetEnvironmentFileArgs>): pulumi.Output<EnvironmentFileContent> {
  return callOutput("getEnvironmentFile", args);
}

/** A credential by id: type, status, times — never its secret (docs/reference/getCredential.md). */
export function getCredential(args: GetCredentialArgs): Promise<CredentialInfo> {
  return call("getCredential", args);
}
export function getCredentialOutput(args: InputsOf<GetCredentialArgs>): pulumi.Output<CredentialInfo> {
  return callOutput("getCredential", args);
}

/** Every credential of the key, every page — never a secret (docs/reference/getCredentials.md). */
export function getCredentials(): Promise<GetCredentialsResult> {
  return call("getCredentials", {});
}
export function getCredentialsOutput(): pulumi.Output<GetCredentialsResult> {
  return callOutput("getCredentials", {});
}
