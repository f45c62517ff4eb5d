/** schema.json's object types as a program reads them back (a function's result, a resource's output), named as the schema names them. */
import type { z } from "zod";
import type * as client from "../../client/schemas";
import type * as cases from "../../hooks/cases";
import type { AllowlistEntryInput, NetworkInput } from "../environment/inputs";
import type { CommandHandlerInput, HookHandlerInput, HooksGroupInput, HttpHandlerInput, RuleInput } from "../components/hooks-config-inputs";
import type { HookBundleInput } from "../components/guarded-environment-inputs";
import type { EnvironmentInfo as EnvironmentInfoSchema } from "../functions/environments";
import type { CredentialInfo as CredentialInfoSchema } from "../functions/credentials";
import type { SchemaNamed } from "./_schema-named";

type Output<Schema extends z.ZodType> = SchemaNamed<z.output<Schema>>;

export type Source = Output<typeof client.Source>;
export type AllowlistEntry = Output<typeof AllowlistEntryInput>;
export type EgressPolicy = Output<typeof NetworkInput>;
export type HooksGroup = Output<typeof HooksGroupInput>;
export type HooksRule = Output<typeof RuleInput>;
export type HookHandler = Output<typeof HookHandlerInput>;
export type CommandHandler = Output<typeof CommandHandlerInput>;
export type HttpHandler = Output<typeof HttpHandlerInput>;
export type HooksTestCase = Output<typeof cases.HooksTestCase>;
export type HookBundle = Output<typeof HookBundleInput>;
export type EnvironmentInfo = Output<typeof EnvironmentInfoSchema>;
export type CredentialInfo = Output<typeof CredentialInfoSchema>;
