/**
 * `getEnvironment` (one environment by id) and `getEnvironments` (every environment of the API key,
 * all pages, optionally of one mode): what another stack, a script or a person made, as the API
 * reports it. The result's properties are the Environment resource's (environment/inputs.ts): its
 * computed outputs, and the inputs the API echoes in their declared form (`network: {disabled: true}`),
 * so that a lookup reads as the resource does. A self_hosted environment's key is not among them:
 * the API returns it at create only.
 */
import { z } from "zod";
import type { Environment } from "../../client/schemas";
import { issueAt } from "../../client/issues";
import { EnvironmentComputed, EnvironmentInputs } from "../environment/inputs";
import { InvalidInputError } from "../contracts/errors";
import { described, orNotFound, type FunctionCore } from "../contracts/function-core";
import { propertyMeta, valuesFromWire } from "../contracts/resource-schema";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

/** An optional property of the resource that a lookup always has (the API echoes its default). */
function always<Inner extends z.ZodType>(schema: z.ZodOptional<Inner>, description: string): Inner {
  return schema.unwrap().meta({ ...propertyMeta(schema), description }) as Inner;
}

const { sources, network, mode, systemInstruction, customConfig } = EnvironmentInputs.shape;
const { status, created, updated, lastAccessed, fileCount, sizeBytes } = EnvironmentComputed.shape;

export const EnvironmentInfo = z
  .object({
    id: z.string().meta({ description: "The environment's id, e.g. `env_abc123`.", wire: "id" }),
    status,
    mode: always(mode, "`on_demand` (the service runs the sandbox) or `self_hosted` (a sandbox daemon polls for the work)."),
    created,
    updated,
    lastAccessed,
    fileCount,
    sizeBytes,
    network: described(network, "Its egress policy: `{allowlist: [...]}` (only the listed domains, with their transforms and credentials) or `{disabled: true}`; absent: all egress allowed."),
    sources: described(sources, "The sources it was created from, as the API echoes them (inline content included)."),
    systemInstruction: described(systemInstruction, "A self_hosted environment's system instruction."),
    customConfig: described(customConfig, "A self_hosted environment's custom config, passed to its poller."),
  })
  .meta({ description: "An environment as the API reports it: its status, mode, times, file count and size, network and sources." });
export type EnvironmentInfo = z.infer<typeof EnvironmentInfo>;

export const GetEnvironmentArgs = z.strictObject({
  id: EnvironmentInputs.shape.adopt.unwrap().meta({ description: "The environment's id: `env_abc123` or `environments/env_abc123`." }),
});
export type GetEnvironmentArgs = z.infer<typeof GetEnvironmentArgs>;

export const GetEnvironmentsArgs = z.strictObject({
  mode: described(mode, "Only environments of this mode, e.g. `self_hosted`; omitted: every environment."),
});
export type GetEnvironmentsArgs = z.infer<typeof GetEnvironmentsArgs>;

export const GetEnvironmentsResult = z.object({
  environments: z.array(EnvironmentInfo).meta({ description: "Every environment the API key can see (every page), oldest first." }),
});
export type GetEnvironmentsResult = z.infer<typeof GetEnvironmentsResult>;

// ---------------------------------------------------------------------------------------------
// The functions
// ---------------------------------------------------------------------------------------------

export const getEnvironment: FunctionCore<typeof GetEnvironmentArgs, typeof EnvironmentInfo> = {
  name: "getEnvironment",
  description: "Looks up an environment by id, e.g. one another stack, a script or `genv` made: its status, mode, times, file count and size, network and sources.",
  args: GetEnvironmentArgs,
  result: EnvironmentInfo,
  async invoke(client, { id }) {
    return environmentInfo(await orNotFound(client.get(id), () => unknownEnvironment("getEnvironment", ["id"], id)));
  },
};

export const getEnvironments: FunctionCore<typeof GetEnvironmentsArgs, typeof GetEnvironmentsResult> = {
  name: "getEnvironments",
  description: "Lists every environment the API key can see, following every page, optionally only those of one mode.",
  args: GetEnvironmentsArgs,
  result: GetEnvironmentsResult,
  async invoke(client, { mode }) {
    const environments: EnvironmentInfo[] = [];
    for await (const environment of client.listAll(mode === undefined ? {} : { mode })) environments.push(environmentInfo(environment));
    return { environments };
  },
};

/** The error of an environment id the API does not know, naming it and what to check. */
export function unknownEnvironment(what: string, path: string[], id: string): InvalidInputError {
  const message =
    `no environment ${id} for this API key: check the id (\`genv env list\` lists them; an expired or deleted environment is gone) ` +
    "and that the provider's apiKey and baseUrl are those of the account that made it";
  return new InvalidInputError([issueAt(path, "not-found", message)], { what });
}

// ---------------------------------------------------------------------------------------------
// The API's answer, as the result
// ---------------------------------------------------------------------------------------------

/** Only the result's properties are read from the answer (no `environment_key`, were the API to send one). */
function environmentInfo(environment: Environment): EnvironmentInfo {
  return valuesFromWire(EnvironmentInfo, environment) as EnvironmentInfo;
}
