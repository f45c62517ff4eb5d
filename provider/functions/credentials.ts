/**
 * `getCredential` (one credential by id) and `getCredentials` (every credential of the API key, all
 * pages): what the API says of a credential — its id, type, status and times — and nothing else.
 * Its secret (a token, a value, a client secret) is write-only on the API: no answer carries it, so
 * none can reach a result, a program's outputs or the state. The properties are the Credential
 * resource's (credential/inputs.ts).
 */
import { z } from "zod";
import type { Credential } from "../../client/schemas";
import { issueAt } from "../../client/issues";
import { CredentialComputed, CredentialInputs, CredentialOutputs } from "../credential/inputs";
import { InvalidInputError } from "../contracts/errors";
import { described, orNotFound, type FunctionCore } from "../contracts/function-core";
import { valuesFromWire } from "../contracts/resource-schema";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export const CredentialInfo = z
  .object({
    credentialId: described(CredentialOutputs.shape.credentialId, "The credential's id, e.g. `gh-token`."),
    type: described(CredentialInputs.shape.type, "`bearer_token`, `environment_variable` or `oauth2`."),
    ...CredentialComputed.shape,
  })
  .meta({ description: "A credential as the API reports it: its id, type, status and times. Its secret is write-only and never returned." });
export type CredentialInfo = z.infer<typeof CredentialInfo>;

export const GetCredentialArgs = z.strictObject({
  credentialId: z.string().min(1, { error: "is empty: give a credential id such as gh-token" }).meta({ description: "The credential's id, e.g. `gh-token`." }),
});
export type GetCredentialArgs = z.infer<typeof GetCredentialArgs>;

export const GetCredentialsArgs = z.strictObject({});

export const GetCredentialsResult = z.object({
  credentials: z.array(CredentialInfo).meta({ description: "Every credential the API key can see (every page)." }),
});
export type GetCredentialsResult = z.infer<typeof GetCredentialsResult>;

// ---------------------------------------------------------------------------------------------
// The functions
// ---------------------------------------------------------------------------------------------

export const getCredential: FunctionCore<typeof GetCredentialArgs, typeof CredentialInfo> = {
  name: "getCredential",
  description: "Looks up a credential by id, e.g. one an allowlist entry references: its type, status and times, never its secret.",
  args: GetCredentialArgs,
  result: CredentialInfo,
  async invoke(client, { credentialId }) {
    return credentialInfo(await orNotFound(client.credentials.get(credentialId), () => unknownCredential(credentialId)));
  },
};

export const getCredentials: FunctionCore<typeof GetCredentialsArgs, typeof GetCredentialsResult> = {
  name: "getCredentials",
  description: "Lists every credential the API key can see, following every page: ids, types, status and times, never a secret.",
  args: GetCredentialsArgs,
  result: GetCredentialsResult,
  async invoke(client) {
    const credentials: CredentialInfo[] = [];
    for await (const credential of client.credentials.listAll()) credentials.push(credentialInfo(credential));
    return { credentials };
  },
};

function unknownCredential(credentialId: string): InvalidInputError {
  const message =
    `no credential ${credentialId} for this API key: check the id (an allowlist entry's \`credential\`, or a Credential resource's credentialId) ` +
    "and that the provider's apiKey and baseUrl are those of the account that made it";
  return new InvalidInputError([issueAt(["credentialId"], "not-found", message)], { what: "getCredential" });
}

// ---------------------------------------------------------------------------------------------
// The API's answer, as the result
// ---------------------------------------------------------------------------------------------

/** Only the result's properties are read from the answer: a field the API might add, a secret included, never passes. */
function credentialInfo(credential: Credential): CredentialInfo {
  return valuesFromWire(CredentialInfo, credential) as CredentialInfo;
}
