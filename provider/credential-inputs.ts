/**
 * The Credential resource's inputs and outputs as the provider sees them (plain values, secrets
 * unwrapped by the engine), and their mapping to the wire's snake_case fields.
 */
import type { CredentialType } from "../sdk/schemas";

export interface CredentialInputs {
  /** The credential's id, 1–128 of `[A-Za-z0-9._-]`; allowlist entries reference it. */
  credentialId: string;
  type: CredentialType;
  // bearer_token
  token?: string;
  headerName?: string;
  prefix?: string;
  // environment_variable
  value?: string;
  injectionLocation?: string | string[];
  trustedDomains?: string[];
  // oauth2
  clientId?: string;
  clientSecret?: string;
  refreshToken?: string;
  tokenUrl?: string;
  scopes?: string[];
}

export interface CredentialOutputs extends CredentialInputs {
  /** `active` or `revoked`. */
  status: string;
  createTime: string;
  updateTime: string;
}

/** Input property → wire field, for every field besides the id and the type. */
export const WIRE_FIELD = {
  token: "token",
  headerName: "header_name",
  prefix: "prefix",
  value: "value",
  injectionLocation: "injection_location",
  trustedDomains: "trusted_domains",
  clientId: "client_id",
  clientSecret: "client_secret",
  refreshToken: "refresh_token",
  tokenUrl: "token_url",
  scopes: "scopes",
} as const satisfies Partial<Record<keyof CredentialInputs, string>>;
export type FieldProperty = keyof typeof WIRE_FIELD;

/** The input properties each type uses. */
export const TYPE_FIELDS: Record<CredentialType, readonly FieldProperty[]> = {
  bearer_token: ["token", "headerName", "prefix"],
  environment_variable: ["value", "injectionLocation", "trustedDomains"],
  oauth2: ["clientId", "clientSecret", "refreshToken", "tokenUrl", "scopes"],
};

/** Write-only input properties (the wire's `CREDENTIAL_SECRET_FIELDS`): wrapped in `pulumi.secret` and kept secret in state. */
export const SECRET_PROPERTIES = ["token", "value", "clientSecret", "refreshToken"] as const satisfies readonly FieldProperty[];

/** Input property of a wire field (`header_name` → `headerName`; `id` → `credentialId`). */
export const INPUT_PROPERTY: Record<string, string> = {
  id: "credentialId",
  type: "type",
  ...Object.fromEntries(Object.entries(WIRE_FIELD).map(([property, wire]) => [wire, property])),
};

/** The wire fields of `inputs` that its type uses, defined ones only. */
export function wireFields(inputs: Partial<CredentialInputs>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const properties = TYPE_FIELDS[inputs.type as CredentialType] ?? [];
  for (const property of properties) {
    if (inputs[property] !== undefined) fields[WIRE_FIELD[property]] = inputs[property];
  }
  return fields;
}
