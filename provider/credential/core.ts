/**
 * The Credential resource's core (contracts/resource-core.ts), called by the dynamic provider
 * (credential-provider.ts) and the plugin (plugin/provider.ts).
 *
 * Secrets are write-only on the API: no response carries them. The core keeps the inputs in its
 * outputs (the secret ones marked secret by the adapters, so the state holds them encrypted) and
 * `diff` compares old and new inputs: a rotated token is an in-place update, a PATCH whose
 * `update_mask` lists exactly the changed wire fields.
 */
import { createCredentialConverging } from "../../client/converge";
import { isAlreadyExists, isNotFound } from "../../client/errors";
import { CREDENTIAL_TYPES, CredentialId, CreateCredentialRequest, type Credential, type CredentialType, type UpdateCredentialRequest } from "../../client/schemas";
import { issueAt, validationIssues, type Issue } from "../../client/issues";
import { CredentialInputs, INPUT_PROPERTY, defaultCredentialId, SECRET_PROPERTIES, TYPE_FIELDS, WIRE_FIELD, wireFields, type CredentialOutputs, type FieldProperty } from "./inputs";
import { containsUnknown } from "../environment/inputs";
import { propertyChanges } from "../contracts/property-diff";
import { addChanges, checkFailure, topLevelProperty, type ResourceCore, type ResourceDiff } from "../contracts/resource-core";
import { propertiesOf } from "../contracts/resource-schema";

const ALL_FIELDS = Object.keys(WIRE_FIELD) as FieldProperty[];
/** A change of these replaces the credential; a change of a field its type uses updates it in place. */
const REPLACING = propertiesOf(CredentialInputs)
  .filter(([, meta]) => meta.change === "replace")
  .map(([property]) => property as "credentialId" | "type");

export const credentialCore: ResourceCore<CredentialInputs, CredentialOutputs> = {
  name: "Credential",
  secretProperties: SECRET_PROPERTIES,
  // schema.json declares every input an output too, and a Pulumi YAML reference (`${cred.type}`)
  // reads the outputs alone: so they restate each one (credentialId, type, headerName, …) but the
  // secrets, which are write-only and stay once, encrypted, in the state's inputs.
  restatedInputs: SECRET_PROPERTIES,

  check(_olds, declared, resource) {
    // The default id, as the resource classes set it (inputs.ts): from the URN's project, stack and name.
    const news = declared.credentialId === undefined && resource ? { ...declared, credentialId: defaultCredentialId(resource.name, resource.project, resource.stack) } : declared;
    const issues: Issue[] = [];
    const result = () => ({ inputs: news, failures: issues.map(checkFailure) });

    const { credentialId, type } = news;
    if (!containsUnknown(credentialId)) {
      const parsed = CredentialId.safeParse(credentialId);
      if (credentialId === undefined) issues.push(issueAt(["credentialId"], "required", "is required"));
      else if (!parsed.success) issues.push(...validationIssues(parsed.error, ["credentialId"]).slice(0, 1));
    }
    if (containsUnknown(type)) return result();
    if (!CREDENTIAL_TYPES.includes(type)) {
      issues.push(issueAt(["type"], "invalid-value", `must be one of ${CREDENTIAL_TYPES.join(", ")}`));
      return result();
    }
    const used = TYPE_FIELDS[type];
    for (const property of ALL_FIELDS) {
      if (news[property] !== undefined && !used.includes(property)) issues.push(issueAt([property], "unused-field", `is not used by a ${type} credential (its fields: ${used.join(", ")})`));
    }
    // The rest with the wire schema; the id was checked above, values unknown until apply are skipped.
    const parsed = CreateCredentialRequest.safeParse({ id: "x", type, ...wireFields(news) });
    if (!parsed.success) {
      // Paths start at the request: its first segment, a wire name, becomes the input property.
      for (const { path: [wire = "", ...rest], ...issue } of validationIssues(parsed.error)) {
        const property = INPUT_PROPERTY[wire] ?? String(wire);
        const value = (news as unknown as Record<string, unknown>)[property];
        if (containsUnknown(value)) continue;
        issues.push(value === undefined ? issueAt([property, ...rest], "required", `is required for a ${type} credential`) : { ...issue, path: [property, ...rest] });
      }
    }
    return result();
  },

  diff(olds, news) {
    const diff: ResourceDiff = { changes: new Map(), deleteBeforeReplace: false };
    for (const property of REPLACING) addChanges(diff, propertyChanges(olds[property], news[property], property), { replace: true, input: true });
    for (const property of TYPE_FIELDS[news.type as CredentialType] ?? []) {
      addChanges(diff, propertyChanges(olds[property], news[property], property), { replace: false, input: true });
    }
    // A new credential under the same id can only be created once the old one is gone.
    const replaced = new Set([...diff.changes].filter(([, change]) => change.replace).map(([path]) => topLevelProperty(path)));
    diff.deleteBeforeReplace = replaced.size > 0 && !replaced.has("credentialId");
    return diff;
  },

  async create(client, inputs) {
    const request = { id: inputs.credentialId, type: inputs.type, ...wireFields(inputs) } as CreateCredentialRequest;
    // An answer lost after the credential was made is answered by reading it (client/converge.ts).
    const { credential } = await createCredentialConverging(client, request).catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
      throw new Error(`credential ${inputs.credentialId} already exists (another stack or program owns it?): choose another credentialId, or delete it first`, {
        cause: error,
      });
    });
    return { id: credential.id, outs: outputsOf(credential, inputs) };
  },

  async read(client, id, props) {
    try {
      const credential = await client.credentials.get(id);
      // On import (no state) the API gives only the id and the type: the secrets are write-only.
      const inputs = { ...inputsOf(props), credentialId: credential.id, ...(props?.type === undefined && { type: credential.type as CredentialType }) };
      return { id, outs: outputsOf(credential, inputs), inputs };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  },

  /** Changes the fields that differ, in place: PATCH with an update_mask of exactly their wire names. */
  async update(client, id, olds, news) {
    const changed = new Set([...credentialCore.diff(olds, news).changes.keys()].map(topLevelProperty));
    const mask = ALL_FIELDS.filter((property) => changed.has(property)).map((property) => WIRE_FIELD[property]);
    const fields = wireFields(news);
    const body = { type: news.type, ...Object.fromEntries(mask.filter((field) => fields[field] !== undefined).map((field) => [field, fields[field]])) };
    const credential =
      mask.length > 0 ? await client.credentials.update(id, body as UpdateCredentialRequest, { updateMask: mask }) : await client.credentials.get(id);
    return outputsOf(credential, news);
  },

  async delete(client, id) {
    try {
      await client.credentials.delete(id);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  },
};

function inputsOf(props: Partial<CredentialOutputs> | undefined): CredentialInputs {
  const inputs: Record<string, unknown> = {};
  for (const property of ["credentialId", "type", ...ALL_FIELDS] as const) {
    if (props?.[property] !== undefined) inputs[property] = props[property];
  }
  return inputs as unknown as CredentialInputs;
}

function outputsOf(credential: Credential, inputs: Partial<CredentialInputs>): CredentialOutputs {
  return {
    ...inputsOf(inputs),
    credentialId: credential.id,
    type: (credential.type ?? inputs.type) as CredentialType,
    // A status the API adds later passes through as it is.
    status: (credential.status ?? "active") as CredentialOutputs["status"],
    createTime: credential.create_time ?? "",
    updateTime: credential.update_time ?? "",
  };
}
