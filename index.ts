/** pulumi-gemini-environments: Gemini Environments as Pulumi resources. */
export { Environment, type EnvironmentArgs, type SourceArgs, type AllowlistEntryArgs, type NetworkArgs } from "./provider/environment";
