/**
 * The functions as the TypeScript package exports them at its top level, beside the dynamic-provider
 * resources: each calls the API from the program itself, through the API client (client/), with the stack's
 * `gemini-environments:` config or the environment's key and base URL (as the dynamic provider does),
 * so no plugin is needed. `plugin.getEnvironment` and the rest (functions/invoked.ts) invoke the
 * plugin instead, as the other languages do. The `…Output` forms take inputs and return an output.
 *
 * Each takes the `InvokeOptions` every Pulumi function takes: given a provider (`provider`, or the
 * one `parent` carries for this package), which can only be a `plugin.Provider`, the call goes
 * through the engine to it, as `plugin.*` do; `dependsOn` waits for those resources first.
 *
 * ```ts
 * import { getEnvironmentOutput } from "pulumi-gemini-environments";
 * const shared = getEnvironmentOutput({ id: config.require("sharedEnvironmentId") });
 * export const sharedStatus = shared.status;
 * ```
 */
import type { InvokeOptions, InvokeOutputOptions } from "@pulumi/pulumi/invoke";
import * as pulumi from "../contracts/pulumi-sdk";
import { programClient } from "../contracts/configuration";
import { callFunction } from "../contracts/function-core";
import { secretValuePaths, type InputsOf } from "../contracts/resource-schema";
import { functionOf, functionToken, type FunctionName } from "./catalog";
import type { CredentialInfo, GetCredentialArgs, GetCredentialsResult } from "./credentials";
import type { EnvironmentFileContent, GetEnvironmentFileArgs } from "./environment-file";
import type { EnvironmentInfo, GetEnvironmentArgs, GetEnvironmentsArgs, GetEnvironmentsResult } from "./environments";
import * as invoked from "./invoked";

function call<Result>(name: FunctionName, args: object): Promise<Result> {
  return callFunction(functionOf(functionToken(name)), programClient, args) as Promise<Result>;
}

/** The provider the call must go to: the one named, or the one the parent carries for this package (as the SDK's own invoke finds it). */
function providerOf(name: FunctionName, opts: InvokeOptions | undefined): pulumi.ProviderResource | undefined {
  return opts?.provider ?? opts?.parent?.getProvider(functionToken(name));
}

/** What `dependsOn` names, created: each custom resource's id, each component's URN. */
function dependencies(opts: InvokeOutputOptions | undefined): pulumi.Output<unknown> {
  return pulumi.output(opts?.dependsOn ?? []).apply((resources) => pulumi.all((Array.isArray(resources) ? resources : [resources]).map((resource) => (pulumi.CustomResource.isInstance(resource) ? resource.id : resource.urn))));
}

/** A result holding a value its schema marks secret (an allowlist entry's transform) is a secret output, as `invokeOutput`'s is. */
function callOutput<Args extends object, Result>(name: FunctionName, args: InputsOf<Args>, opts: InvokeOutputOptions | undefined): pulumi.Output<Result> {
  const { result } = functionOf(functionToken(name));
  return pulumi.all([args as object, dependencies(opts)]).apply(async ([resolved]) => {
    const value = await call<Result>(name, resolved);
    return secretValuePaths(result, value).length > 0 ? pulumi.secret(value) : value;
  }) as pulumi.Output<Result>;
}

/** An environment by id: status, mode, times, file count and size, network and sources (docs/reference/getEnvironment.md). */
export function getEnvironment(args: GetEnvironmentArgs, opts?: InvokeOptions): Promise<EnvironmentInfo> {
  return providerOf("getEnvironment", opts) ? invoked.getEnvironment(args, opts) : call("getEnvironment", args);
}
export function getEnvironmentOutput(args: InputsOf<GetEnvironmentArgs>, opts?: InvokeOutputOptions): pulumi.Output<EnvironmentInfo> {
  return providerOf("getEnvironment", opts) ? invoked.getEnvironmentOutput(args, opts) : callOutput("getEnvironment", args, opts);
}

/** Every environment of the key, every page, optionally of one mode (docs/reference/getEnvironments.md). */
export function getEnvironments(args: GetEnvironmentsArgs = {}, opts?: InvokeOptions): Promise<GetEnvironmentsResult> {
  return providerOf("getEnvironments", opts) ? invoked.getEnvironments(args, opts) : call("getEnvironments", args);
}
export function getEnvironmentsOutput(args: InputsOf<GetEnvironmentsArgs> = {}, opts?: InvokeOutputOptions): pulumi.Output<GetEnvironmentsResult> {
  return providerOf("getEnvironments", opts) ? invoked.getEnvironmentsOutput(args, opts) : callOutput("getEnvironments", args, opts);
}

/** One file of an environment: `content` (UTF-8 text) or `contentBase64`, size, modification time (docs/reference/getEnvironmentFile.md). */
export function getEnvironmentFile(args: GetEnvironmentFileArgs, opts?: InvokeOptions): Promise<EnvironmentFileContent> {
  return providerOf("getEnvironmentFile", opts) ? invoked.getEnvironmentFile(args, opts) : call("getEnvironmentFile", args);
}
export function getEnvironmentFileOutput(args: InputsOf<GetEnvironmentFileArgs>, opts?: InvokeOutputOptions): pulumi.Output<EnvironmentFileContent> {
  return providerOf("getEnvironmentFile", opts) ? invoked.getEnvironmentFileOutput(args, opts) : callOutput("getEnvironmentFile", args, opts);
}

/** A credential by id: type, status, times — never its secret (docs/reference/getCredential.md). */
export function getCredential(args: GetCredentialArgs, opts?: InvokeOptions): Promise<CredentialInfo> {
  return providerOf("getCredential", opts) ? invoked.getCredential(args, opts) : call("getCredential", args);
}
export function getCredentialOutput(args: InputsOf<GetCredentialArgs>, opts?: InvokeOutputOptions): pulumi.Output<CredentialInfo> {
  return providerOf("getCredential", opts) ? invoked.getCredentialOutput(args, opts) : callOutput("getCredential", args, opts);
}

/** Every credential of the key, every page — never a secret (docs/reference/getCredentials.md). */
export function getCredentials(opts?: InvokeOptions): Promise<GetCredentialsResult> {
  return providerOf("getCredentials", opts) ? invoked.getCredentials(opts) : call("getCredentials", {});
}
export function getCredentialsOutput(opts?: InvokeOutputOptions): pulumi.Output<GetCredentialsResult> {
  return providerOf("getCredentials", opts) ? invoked.getCredentialsOutput(opts) : callOutput("getCredentials", {}, opts);
}
