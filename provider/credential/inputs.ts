/**
 * The Credential resource's properties, once (contracts/resource-schema.ts): zod schemas whose `.meta` gives
 * each one's description, wire field, which credential types use it, whether it is secret and what a
 * change does. The types, the Args, the wire mapping, check and diff (credential/core.ts), the secret
 * outputs of the resource classes and schema.json follow.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { CREDENTIAL_TYPES, CredentialType, InjectionLocation } from "../../client/schemas";
import { bindableOr, propertiesOf, type InputsOf } from "../contracts/resource-schema";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const bearer = ["bearer_token"] as const;
const variable = ["environment_variable"] as const;
const oauth2 = ["oauth2"] as const;

export const CredentialInputs = z
  .object({
    credentialId: z.string().optional().meta({
      description:
        "The id allowlist entries reference (`network.allowlist[].credential`), 1–128 of `[A-Za-z0-9._-]`, e.g. `gh-token`. Default: the resource name with a suffix fixed by project, stack and name. A change replaces the credential.",
      wire: "id",
      change: "replace",
    }),
    type: CredentialType.meta({ description: "`bearer_token`, `environment_variable` or `oauth2`. A change replaces the credential.", wire: "type", change: "replace" }),
    token: z.string().optional().meta({
      description: "bearer_token: the token (secret, write-only). A change updates the credential in place.",
      wire: "token",
      types: bearer,
      secret: true,
      change: "update",
    }),
    headerName: z.string().optional().meta({ description: "bearer_token: the header to set; default `Authorization`.", wire: "header_name", types: bearer, change: "update" }),
    prefix: z.string().optional().meta({ description: 'bearer_token: put before the token with a space; default `Bearer`, `""` for none.', wire: "prefix", types: bearer, change: "update" }),
    value: z.string().optional().meta({ description: "environment_variable: the value (secret, write-only).", wire: "value", types: variable, secret: true, change: "update" }),
    injectionLocation: bindableOr(z.array(InjectionLocation), InjectionLocation)
      .optional()
      .meta({ description: "environment_variable: where the value is injected, a list of `header`, `query` and `body` (the API also takes one of them alone).", wire: "injection_location", types: variable, change: "update" }),
    trustedDomains: z
      .array(z.string())
      .optional()
      .meta({ description: 'environment_variable: domains allowed to receive the value, e.g. `["api.example.com"]`.', wire: "trusted_domains", types: variable, change: "update" }),
    clientId: z.string().optional().meta({ description: "oauth2: the client id.", wire: "client_id", types: oauth2, change: "update" }),
    clientSecret: z.string().optional().meta({ description: "oauth2: the client secret (secret, write-only).", wire: "client_secret", types: oauth2, secret: true, change: "update" }),
    refreshToken: z.string().optional().meta({ description: "oauth2: the refresh token (secret, write-only).", wire: "refresh_token", types: oauth2, secret: true, change: "update" }),
    tokenUrl: z.string().optional().meta({ description: "oauth2: the token endpoint, e.g. `https://oauth2.example.com/token`.", wire: "token_url", types: oauth2, change: "update" }),
    scopes: z.array(z.string()).optional().meta({ description: "oauth2: scopes to request.", wire: "scopes", types: oauth2, change: "update" }),
  })
  .meta({
    description:
      "A server-managed secret that the egress proxy injects, referenced by id from an allowlist entry. A change of credentialId or type replaces it; any other change, a rotated secret included, updates it in place.",
  });

export const CredentialStatus = z.enum(["active", "revoked"]).meta({
  description: "Whether the egress proxy still injects a credential.",
  valueDescriptions: { active: "The proxy injects it.", revoked: "Revoked: the proxy no longer injects it." },
});

export const CredentialComputed = z.object({
  status: CredentialStatus.meta({ description: "`active` or `revoked`.", wire: "status", absent: "active" }),
  createTime: z.string().meta({ description: "Creation time, ISO 8601.", wire: "create_time" }),
  updateTime: z.string().meta({ description: "Last update time, ISO 8601.", wire: "update_time" }),
});

export const CredentialOutputs = CredentialInputs.extend({
  credentialId: z.string().meta({ description: "The credential's id (also the resource's id).", wire: "id" }),
  ...CredentialComputed.shape,
});

// ---------------------------------------------------------------------------------------------
// Derived types and tables
// ---------------------------------------------------------------------------------------------

/** The inputs as the provider sees them (plain values, secrets unwrapped); the resource classes always set `credentialId`. */
export type CredentialInputs = z.infer<typeof CredentialInputs> & { credentialId: string };
export type CredentialOutputs = z.infer<typeof CredentialOutputs>;
/** A Credential's arguments (schema.json describes each). */
export type CredentialArgs = InputsOf<z.infer<typeof CredentialInputs>>;

const FIELDS = propertiesOf(CredentialInputs).filter(([, meta]) => meta.types !== undefined);

/** Input property → wire field, for every field besides the id and the type. */
export const WIRE_FIELD = Object.fromEntries(FIELDS.map(([property, meta]) => [property, meta.wire!])) as Record<FieldProperty, string>;
export type FieldProperty = Exclude<keyof CredentialInputs, "credentialId" | "type">;

/** The input properties each type uses. */
export const TYPE_FIELDS = Object.fromEntries(
  CREDENTIAL_TYPES.map((type) => [type, FIELDS.filter(([, meta]) => meta.types!.includes(type)).map(([property]) => property as FieldProperty)]),
) as unknown as Record<CredentialType, readonly FieldProperty[]>;

/** Write-only input properties: wrapped in `pulumi.secret` and kept secret in state. */
export const SECRET_PROPERTIES = FIELDS.filter(([, meta]) => meta.secret).map(([property]) => property as FieldProperty);

/** Input property of a wire field (`header_name` → `headerName`; `id` → `credentialId`). */
export const INPUT_PROPERTY: Record<string, string> = Object.fromEntries(propertiesOf(CredentialInputs).map(([property, meta]) => [meta.wire!, property]));

/** The wire fields of `inputs` that its type uses, defined ones only. */
export function wireFields(inputs: Partial<CredentialInputs>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const properties = TYPE_FIELDS[inputs.type as CredentialType] ?? [];
  for (const property of properties) {
    if (inputs[property] !== undefined) fields[WIRE_FIELD[property]] = inputs[property];
  }
  return fields;
}

/**
 * The default `credentialId`, `<name>-<8 hex>`: the name made a valid id, and a suffix from the
 * project, stack and name, so that preview and up agree and two stacks under one API key do not
 * collide. The one place it is computed: the resource classes call it with `pulumi.getProject()` and
 * `pulumi.getStack()`, the plugin's check with the URN's (core.ts), so a program makes the same id in
 * every language.
 */
export function defaultCredentialId(name: string, project: string, stack: string): string {
  const suffix = createHash("sha256").update(`${project}\0${stack}\0${name}`).digest("hex").slice(0, 8);
  let base = name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 128 - suffix.length - 1);
  if (!/^[A-Za-z0-9]/.test(base)) base = `c${base}`.slice(0, 128 - suffix.length - 1);
  return `${base}-${suffix}`;
}
