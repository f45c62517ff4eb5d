/** pulumi-gemini-environments: Gemini Environments as Pulumi resources. */
export { Environment, type EnvironmentArgs, type SourceArgs, type AllowlistEntryArgs, type EgressPolicyArgs, type NetworkArgs } from "./provider/environment/resource";
export { Credential, type CredentialArgs } from "./provider/credential/resource";
export { GuardedEnvironment, type GuardedEnvironmentArgs } from "./provider/components/guarded-environment";
export { HookBundle, HookBundleError, type HookBundleArgs, type HookRepositoryArgs, type HookScript } from "./provider/components/hook-bundle";
export { NetworkPolicy, type AllowOptions, type TransformArgs } from "./provider/components/network-policy";
/** Lookups of what another stack, a script or a person made, called from the program itself (`plugin.getEnvironment` and the rest invoke the plugin). */
export {
  getEnvironment,
  getEnvironmentOutput,
  getEnvironments,
  getEnvironmentsOutput,
  getEnvironmentFile,
  getEnvironmentFileOutput,
  getCredential,
  getCredentialOutput,
  getCredentials,
  getCredentialsOutput,
} from "./provider/functions/direct";
export type { EnvironmentInfo, GetEnvironmentArgs, GetEnvironmentsArgs, GetEnvironmentsResult } from "./provider/functions/environments";
export type { EnvironmentFileContent, GetEnvironmentFileArgs } from "./provider/functions/environment-file";
export type { CredentialInfo, GetCredentialArgs, GetCredentialsResult } from "./provider/functions/credentials";
/** The emulator as a Docker container the program manages (needs the optional peer `@pulumi/docker`). */
export { EmulatorContainer, type EmulatorContainerArgs, type EmulatorNetwork } from "./provider/components/emulator-container";
/** schema.json's named types by its names, as a generated Node.js SDK has them: `types.input.HookBundleArgs`, `types.output.EnvironmentInfo`, `types.enums.SourceType`. */
export type * as types from "./provider/types";
/** The same resources served by the plugin (`gemini-environments:index:*`): `plugin.Environment`, `plugin.Credential`, `plugin.GuardedEnvironment`, `plugin.Provider`. */
export * as plugin from "./provider/plugin/resources";
/** After a killed `pulumi up`: adopt what its creates made (`genv recover` for the Automation API). */
export { recoverStack, recoverInterruptedDeploy, pulumiRunner, RecoveryRefusedError, RecoveryStateChangedError, type RecoverOptions, type RecoveryReport, type RecoveryAction } from "./provider/recovery";

// The hooks model: builders for typed configs, and the linter (as `genv hooks lint` runs it).
export { command, group, GroupBuilder, hooksConfig, http } from "./hooks/builders";
export { lintHooks, type Finding, type LintCode, type LintOptions } from "./hooks/lint";
export type { HooksConfigInput as HooksConfig, HooksGroupInput as HooksGroup, RuleInput as HooksRule, HandlerInput as HooksHandler } from "./hooks/schema";
