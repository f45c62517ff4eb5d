/**
 * `Credential`: a server-managed secret that the egress proxy injects, referenced by id from an
 * allowlist entry.
 *
 * ```ts
 * const github = new Credential("github", {
 *   credentialId: "gh-token",
 *   type: "bearer_token",
 *   token: config.requireSecret("githubToken"),
 * });
 * const env = new Environment("agent", {
 *   network: NetworkPolicy.allowlist().allow("api.github.com", { credential: github }).toNetworkArgs(),
 * });
 * ```
 *
 * A change of `credentialId` or `type` replaces the credential; any other change — a rotated token
 * included — updates it in place. The secret inputs (`token`, `value`, `clientSecret`,
 * `refreshToken`) are made Pulumi secrets whatever their origin, so the state holds them encrypted.
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import type { CredentialType } from "../sdk/schemas";
import * as implementation from "./credential-provider";
import { SECRET_PROPERTIES, type CredentialInputs, type CredentialOutputs } from "./credential-inputs";

/** What the engine serializes: the provider module itself, a `require` of the package (see environment.ts). */
const provider: pulumi.dynamic.ResourceProvider<CredentialInputs, CredentialOutputs> = implementation;

export interface CredentialArgs {
  /**
   * The id allowlist entries reference, 1–128 of `[A-Za-z0-9._-]` starting with a letter or digit,
   * e.g. `gh-token`. A change replaces the credential. Default: the resource name with a suffix that
   * is fixed for this project, stack and name (`github-3f9a1c2e`).
   */
  credentialId?: pulumi.Input<string>;
  /** `bearer_token`, `environment_variable` or `oauth2`. A change replaces the credential. */
  type: pulumi.Input<CredentialType>;

  /** bearer_token: the token (secret). */
  token?: pulumi.Input<string>;
  /** bearer_token: the header to set; default `Authorization`. */
  headerName?: pulumi.Input<string>;
  /** bearer_token: put before the token with a space; default `Bearer`, `""` for none. */
  prefix?: pulumi.Input<string>;

  /** environment_variable: the value (secret). */
  value?: pulumi.Input<string>;
  /** environment_variable: `header`, `query`, `body`, or a list of them. */
  injectionLocation?: pulumi.Input<"header" | "query" | "body" | Array<"header" | "query" | "body">>;
  /** environment_variable: domains allowed to receive the value, e.g. `["api.example.com"]`. */
  trustedDomains?: pulumi.Input<pulumi.Input<string>[]>;

  /** oauth2: the client id. */
  clientId?: pulumi.Input<string>;
  /** oauth2: the client secret (secret). */
  clientSecret?: pulumi.Input<string>;
  /** oauth2: the refresh token (secret). */
  refreshToken?: pulumi.Input<string>;
  /** oauth2: the token endpoint, e.g. `https://oauth2.example.com/token`. */
  tokenUrl?: pulumi.Input<string>;
  /** oauth2: scopes to request. */
  scopes?: pulumi.Input<pulumi.Input<string>[]>;
}

export class Credential extends pulumi.dynamic.Resource {
  /** The id to reference from `network.allowlist[].credential` (also the resource's id). */
  declare readonly credentialId: pulumi.Output<string>;
  declare readonly type: pulumi.Output<CredentialType>;
  /** `active` or `revoked`. */
  declare readonly status: pulumi.Output<string>;
  declare readonly createTime: pulumi.Output<string>;
  declare readonly updateTime: pulumi.Output<string>;
  declare readonly headerName: pulumi.Output<string | undefined>;
  declare readonly prefix: pulumi.Output<string | undefined>;
  declare readonly injectionLocation: pulumi.Output<string | string[] | undefined>;
  declare readonly trustedDomains: pulumi.Output<string[] | undefined>;
  declare readonly clientId: pulumi.Output<string | undefined>;
  declare readonly tokenUrl: pulumi.Output<string | undefined>;
  declare readonly scopes: pulumi.Output<string[] | undefined>;

  constructor(name: string, args: CredentialArgs, opts?: pulumi.CustomResourceOptions) {
    const { props, options } = credentialRegistration(name, args, opts);
    super(provider, name, props, options, "gemini-environments", "Credential");
  }
}

/**
 * A Credential's properties and options as registered, whichever provider serves it: the default
 * `credentialId`, and the secret inputs made secrets (also as outputs) whatever their origin.
 */
export function credentialRegistration(name: string, args: CredentialArgs, opts?: pulumi.CustomResourceOptions) {
  const props: Record<string, unknown> = {
    status: undefined,
    createTime: undefined,
    updateTime: undefined,
    ...args,
    credentialId: args.credentialId ?? defaultCredentialId(name),
  };
  for (const property of SECRET_PROPERTIES) {
    if (args[property] !== undefined) props[property] = pulumi.secret(args[property]);
  }
  const additionalSecretOutputs = [...(opts?.additionalSecretOutputs ?? []), ...SECRET_PROPERTIES];
  return { props, options: { ...opts, additionalSecretOutputs } };
}

/**
 * `<name>-<8 hex>`: the name made a valid id, and a suffix from the project, stack and name, so that
 * preview and up agree and two stacks under one API key do not collide.
 */
export function defaultCredentialId(name: string, project = pulumi.getProject(), stack = pulumi.getStack()): string {
  const suffix = createHash("sha256").update(`${project}\0${stack}\0${name}`).digest("hex").slice(0, 8);
  let base = name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 128 - suffix.length - 1);
  if (!/^[A-Za-z0-9]/.test(base)) base = `c${base}`.slice(0, 128 - suffix.length - 1);
  return `${base}-${suffix}`;
}
