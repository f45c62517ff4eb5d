/**
 * schema.json's object types as a program declares them, `<Name>Args` as in the Python and Go SDKs:
 * every property a `pulumi.Input`, named as the schema names it.
 */
import type { z } from "zod";
import type { Source } from "../../client/schemas";
import type { HooksTestCase } from "../../hooks/cases";
import type { AllowlistEntryInput, NetworkInput } from "../environment/inputs";
import type { CommandHandlerInput, HookHandlerInput, HooksGroupInput, HttpHandlerInput, RuleInput } from "../components/hooks-config-inputs";
import type { HookBundleInput } from "../components/guarded-environment-inputs";
import type { InputsOf } from "../contracts/resource-schema";
import type { SchemaNamed } from "./_schema-named";

type Args<Schema extends z.ZodType> = InputsOf<SchemaNamed<z.input<Schema>>>;

export type SourceArgs = Args<typeof Source>;
export type AllowlistEntryArgs = Args<typeof AllowlistEntryInput>;
export type EgressPolicyArgs = Args<typeof NetworkInput>;
export type HooksGroupArgs = Args<typeof HooksGroupInput>;
export type HooksRuleArgs = Args<typeof RuleInput>;
export type HookHandlerArgs = Args<typeof HookHandlerInput>;
export type CommandHandlerArgs = Args<typeof CommandHandlerInput>;
export type HttpHandlerArgs = Args<typeof HttpHandlerInput>;
export type HooksTestCaseArgs = Args<typeof HooksTestCase>;
export type HookBundleArgs = Args<typeof HookBundleInput>;
