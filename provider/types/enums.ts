/** schema.json's enum types: the values each takes. */
import type { z } from "zod";
import type * as client from "../../client/schemas";
import type { Decision, HookEventName, OnFailure as OnFailureSchema } from "../../hooks/schema";
import type { CredentialStatus as CredentialStatusSchema } from "../credential/inputs";
import type { EnvironmentStatus as EnvironmentStatusSchema, UpdateStrategy as UpdateStrategySchema } from "../environment/inputs";
import type { LintCode as LintCodeSchema, ProbeMode as ProbeModeSchema } from "../components/guarded-environment-inputs";

export type SourceType = z.output<typeof client.SourceType>;
export type EnvironmentMode = z.output<typeof client.EnvironmentMode>;
export type UpdateStrategy = z.output<typeof UpdateStrategySchema>;
export type EnvironmentStatus = z.output<typeof EnvironmentStatusSchema>;
export type CredentialType = z.output<typeof client.CredentialType>;
export type InjectionLocation = z.output<typeof client.InjectionLocation>;
export type CredentialStatus = z.output<typeof CredentialStatusSchema>;
export type HookEvent = z.output<typeof HookEventName>;
export type HookDecision = z.output<typeof Decision>;
export type LintCode = z.output<typeof LintCodeSchema>;
export type ProbeMode = z.output<typeof ProbeModeSchema>;
export type OnFailure = z.output<typeof OnFailureSchema>;
