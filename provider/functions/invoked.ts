/**
 * The functions through the plugin's Invoke, for TypeScript programs whose resources the plugin serves
 * (`plugin.Environment`): `plugin.getEnvironment(args, opts)` is what a generated Node.js SDK would
 * write, `pulumi.runtime.invoke` of `gemini-environments:index:getEnvironment`, and its `…Output`
 * form `invokeOutput`. `opts.provider` picks an explicit `plugin.Provider`; without one the engine's
 * default provider answers, configured from the stack's `gemini-environments:` config.
 *
 * ```ts
 * import { plugin } from "pulumi-gemini-environments";
 * const report = plugin.getEnvironmentFileOutput({ environmentId: env.id, path: "workspace/report.md" });
 * export const text = report.content;
 * ```
 */
import type { InvokeOptions, InvokeOutputOptions } from "@pulumi/pulumi/invoke";
import * as pulumi from "../contracts/pulumi-sdk";
import type { InputsOf } from "../contracts/resource-schema";
import { withPluginRegistration } from "../contracts/package-identity";
import { functionToken, type FunctionName } from "./catalog";
import type { CredentialInfo, GetCredentialArgs, GetCredentialsResult } from "./credentials";
import type { EnvironmentFileContent, GetEnvironmentFileArgs } from "./environment-file";
import type { EnvironmentInfo, GetEnvironmentArgs, GetEnvironmentsArgs, GetEnvironmentsResult } from "./environments";

type Runtime = typeof import("@pulumi/pulumi/runtime/invoke");

function invoke<Result>(name: FunctionName, args: object, given?: InvokeOptions): Promise<Result> {
  const runtime = require("@pulumi/pulumi/runtime/invoke") as Runtime;
  return runtime.invoke(functionToken(name), args, withPluginRegistration(given));
}

function invokeOutput<Result>(name: FunctionName, args: object, given?: InvokeOutputOptions): pulumi.Output<Result> {
  const runtime = require("@pulumi/pulumi/runtime/invoke") as Partial<Runtime>;
  const opts = withPluginRegistration(given);
  // invokeOutput (which keeps a result's secrets and dependencies) is in @pulumi/pulumi 3.140 and later;
  // before it, the promise form over the resolved arguments.
  if (runtime.invokeOutput) return runtime.invokeOutput<Result>(functionToken(name), args, opts);
  return pulumi.output(args).apply((resolved) => invoke<Result>(name, resolved, opts)) as pulumi.Output<Result>;
}

export function getEnvironment(args: GetEnvironmentArgs, opts?: InvokeOptions): Promise<EnvironmentInfo> {
  return invoke("getEnvironment", args, opts);
}
export function getEnvironmentOutput(args: InputsOf<GetEnvironmentArgs>, opts?: InvokeOutputOptions): pulumi.Output<EnvironmentInfo> {
  return invokeOutput("getEnvironment", args, opts);
}

export function getEnvironments(args: GetEnvironmentsArgs = {}, opts?: InvokeOptions): Promise<GetEnvironmentsResult> {
  return invoke("getEnvironments", args, opts);
}
export function getEnvironmentsOutput(args: InputsOf<GetEnvironmentsArgs> = {}, opts?: InvokeOutputOptions): pulumi.Output<GetEnvironmentsResult> {
  return invokeOutput("getEnvironments", args, opts);
}

export function getEnvironmentFile(args: GetEnvironmentFileArgs, opts?: InvokeOptions): Promise<EnvironmentFileContent> {
  return invoke("getEnvironmentFile", args, opts);
}
export function getEnvironmentFileOutput(args: InputsOf<GetEnvironmentFileArgs>, opts?: InvokeOutputOptions): pulumi.Output<EnvironmentFileContent> {
  return invokeOutput("getEnvironmentFile", args, opts);
}

export function getCredential(args: GetCredentialArgs, opts?: InvokeOptions): Promise<CredentialInfo> {
  return invoke("getCredential", args, opts);
}
export function getCredentialOutput(args: InputsOf<GetCredentialArgs>, opts?: InvokeOutputOptions): pulumi.Output<CredentialInfo> {
  return invokeOutput("getCredential", args, opts);
}

export function getCredentials(opts?: InvokeOptions): Promise<GetCredentialsResult> {
  return invoke("getCredentials", {}, opts);
}
export function getCredentialsOutput(opts?: InvokeOutputOptions): pulumi.Output<GetCredentialsResult> {
  return invokeOutput("getCredentials", {}, opts);
}
