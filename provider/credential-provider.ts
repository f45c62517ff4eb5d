/**
 * The Credential resource's provider methods. As for Environment, the serialized dynamic provider only
 * holds a `require` of this module, and each call builds its client from the stack config or the
 * environment.
 *
 * Secrets are write-only on the API: no response carries them. The provider keeps the inputs in its
 * outputs (the secret ones marked secret by the resource, so the state holds them encrypted) and
 * `diff` compares old and new inputs: a rotated token is an in-place update, a PATCH whose
 * `update_mask` lists exactly the changed wire fields.
 */
import type * as pulumi from "@pulumi/pulumi";
import { createCredentialConverging } from "../sdk/converge";
import { isAlreadyExists, isNotFound } from "../sdk/errors";
import { CREDENTIAL_TYPES, CredentialId, CreateCredentialRequest, type Credential, type CredentialType, type UpdateCredentialRequest } from "../sdk/schemas";
import { validationIssues } from "../sdk/validation";
import { providerClient, setStackConfig } from "./configuration";
import { INPUT_PROPERTY, TYPE_FIELDS, WIRE_FIELD, wireFields, type CredentialInputs, type CredentialOutputs, type FieldProperty } from "./credential-inputs";
import { containsUnknown } from "./environment-inputs";
import { propertyChanges } from "./property-diff";

type Provider = pulumi.dynamic.ResourceProvider<CredentialInputs, CredentialOutputs>;

const ALL_FIELDS = Object.keys(WIRE_FIELD) as FieldProperty[];

export const configure: NonNullable<Provider["configure"]> = async (request) => {
  setStackConfig(request.config);
};

export const check: NonNullable<Provider["check"]> = async (_olds, news) => {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const fail = (path: string, message: string) => failures.push({ property: path.split(/[.[]/)[0], reason: `${path}: ${message}` });

  const { credentialId, type } = news;
  if (!containsUnknown(credentialId)) {
    const parsed = CredentialId.safeParse(credentialId);
    if (!parsed.success) fail("credentialId", credentialId === undefined ? "is required" : parsed.error.issues[0].message);
  }
  if (containsUnknown(type)) return { inputs: news, failures };
  if (!CREDENTIAL_TYPES.includes(type)) {
    fail("type", `must be one of ${CREDENTIAL_TYPES.join(", ")}`);
    return { inputs: news, failures };
  }
  const used = TYPE_FIELDS[type];
  for (const property of ALL_FIELDS) {
    if (news[property] !== undefined && !used.includes(property)) fail(property, `is not used by a ${type} credential (its fields: ${used.join(", ")})`);
  }
  // The rest with the wire schema; the id was checked above, values unknown until apply are skipped.
  const parsed = CreateCredentialRequest.safeParse({ id: "x", type, ...wireFields(news) });
  if (!parsed.success) {
    for (const issue of validationIssues(parsed.error)) {
      const wire = issue.path.split(/[.[]/)[0];
      const property = INPUT_PROPERTY[wire] ?? wire;
      const value = (news as unknown as Record<string, unknown>)[property];
      if (containsUnknown(value)) continue;
      fail(property + issue.path.slice(wire.length), value === undefined ? `is required for a ${type} credential` : issue.message);
    }
  }
  return { inputs: news, failures };
};

export const diff: NonNullable<Provider["diff"]> = async (_id, olds, news) => {
  const replaces = (["credentialId", "type"] as const).filter((property) => changed(olds[property], news[property]));
  const updates = changedFields(olds, news);
  return {
    changes: replaces.length + updates.length > 0,
    replaces,
    // A new credential under the same id can only be created once the old one is gone.
    deleteBeforeReplace: replaces.length > 0 && !replaces.includes("credentialId"),
  };
};

export const create: Provider["create"] = async (inputs) => {
  const request = { id: inputs.credentialId, type: inputs.type, ...wireFields(inputs) } as CreateCredentialRequest;
  // An answer lost after the credential was made is answered by reading it (sdk/converge.ts).
  const { credential } = await createCredentialConverging(providerClient(), request).catch((error: unknown) => {
    if (!isAlreadyExists(error)) throw error;
    throw new Error(
      `credential ${inputs.credentialId} already exists (another stack or program owns it?): choose another credentialId, or delete it first`,
      { cause: error },
    );
  });
  return { id: credential.id, outs: outputsOf(credential, inputs) };
};

export const read: NonNullable<Provider["read"]> = async (id, props) => {
  const client = providerClient();
  try {
    const credential = await client.credentials.get(id);
    return { id, props: outputsOf(credential, { ...inputsOf(props), credentialId: credential.id }) };
  } catch (error) {
    if (isNotFound(error)) return { id: "" };
    throw error;
  }
};

/** Changes the fields that differ, in place: PATCH with an update_mask of exactly their wire names. */
export const update: NonNullable<Provider["update"]> = async (id, olds, news) => {
  const mask = changedFields(olds, news).map((property) => WIRE_FIELD[property]);
  const fields = wireFields(news);
  const body = { type: news.type, ...Object.fromEntries(mask.filter((field) => fields[field] !== undefined).map((field) => [field, fields[field]])) };
  const client = providerClient();
  const credential =
    mask.length > 0 ? await client.credentials.update(id, body as UpdateCredentialRequest, { updateMask: mask }) : await client.credentials.get(id);
  return { outs: outputsOf(credential, news) };
};

export const remove: NonNullable<Provider["delete"]> = async (id) => {
  const client = providerClient();
  try {
    await client.credentials.delete(id);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
};
/**
 * The provider's `delete` (a reserved word, hence `remove` above). This module is the provider the
 * engine serializes (a `require` of it), so it exports the provider's methods under their names.
 */
export { remove as delete };

/** The type's fields whose value differs between the old and the new inputs (secrets included). */
function changedFields(olds: Partial<CredentialInputs>, news: CredentialInputs): FieldProperty[] {
  const used = TYPE_FIELDS[news.type as CredentialType] ?? [];
  return used.filter((property) => changed(olds[property], news[property]));
}

function changed(before: unknown, after: unknown): boolean {
  return propertyChanges(before, after, "value").size > 0;
}

function inputsOf(props: Partial<CredentialOutputs> | undefined): Partial<CredentialInputs> {
  const inputs: Partial<CredentialInputs> = {};
  if (!props) return inputs;
  for (const property of ["credentialId", "type", ...ALL_FIELDS] as const) {
    if (props[property] !== undefined) (inputs as Record<string, unknown>)[property] = props[property];
  }
  return inputs;
}

function outputsOf(credential: Credential, inputs: Partial<CredentialInputs>): CredentialOutputs {
  return {
    ...(inputsOf(inputs) as CredentialInputs),
    credentialId: credential.id,
    type: (credential.type ?? inputs.type) as CredentialType,
    status: credential.status ?? "active",
    createTime: credential.create_time ?? "",
    updateTime: credential.update_time ?? "",
  };
}
