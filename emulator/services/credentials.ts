/**
 * Credentials API (`/{v}/credentials`, SDK_WIRE §4): secrets stored once and referenced by id from
 * `network.allowlist[].credential`, so that the egress proxy can inject them.
 *
 * - Secrets (`value`, `token`, `client_secret`, `refresh_token`) are write-only: responses carry
 *   only `id`, `type`, `status`, `create_time` and `update_time`, and error messages never quote input.
 * - At rest the secret fields are sealed (`credential-cipher.ts`).
 * - Each API key sees only its own credentials; the same id under two keys is two credentials.
 * - `update_mask` follows AIP-134: listed fields are replaced (a listed optional field absent from
 *   the body goes back to its default; a listed required one is a 400); fields not listed are
 *   ignored; `*` lists every field. Without a mask, the fields present in the body are updated.
 * - Deleting a credential that environments reference is allowed (the proxy then injects nothing).
 */
import {
  CREDENTIAL_SECRET_FIELDS,
  CreateCredentialRequest,
  UpdateCredentialRequest,
  type Credential,
  type CredentialType,
} from "../../client/schemas";
import { describeIssues, validationIssues } from "../../client/issues";
import { HttpError, invalidArgument, notFound } from "../errors";
import type { CredentialRow, Store } from "../store";
import { keysetPage } from "../store/paging";
import { CREDENTIALS_KEY_ENV, KEY_FILE, open, seal } from "./credential-cipher";

/** A credential with its secrets decrypted and defaults filled in: what the egress proxy injects. */
export type RevealedCredential =
  | { id: string; type: "environment_variable"; value: string; injection_location: ("header" | "query" | "body")[]; trusted_domains: string[] }
  | { id: string; type: "bearer_token"; token: string; header_name: string; prefix: string }
  | { id: string; type: "oauth2"; client_id: string; client_secret: string; refresh_token: string; token_url: string; scopes: string[] };

export interface CredentialsOptions {
  /** Returns the 32-byte AES key; see `credentialsKeySource`. */
  key: () => Buffer;
  now: () => number;
}

/** Every field a type has besides `id` and `type`, for update masks. */
const FIELDS: Record<CredentialType, readonly string[]> = {
  environment_variable: ["value", "injection_location", "trusted_domains"],
  bearer_token: ["token", "header_name", "prefix"],
  oauth2: ["client_id", "client_secret", "refresh_token", "token_url", "scopes"],
};
const REQUIRED: Record<CredentialType, readonly string[]> = {
  environment_variable: ["value", "injection_location"],
  bearer_token: ["token"],
  oauth2: ["client_id", "client_secret", "refresh_token", "token_url"],
};

type Fields = Record<string, unknown>;

export class CredentialsService {
  constructor(
    private readonly store: Store,
    private readonly options: CredentialsOptions,
  ) {}

  create(owner: string, body: unknown): Credential {
    const parsed = CreateCredentialRequest.safeParse(body);
    if (!parsed.success) throw invalidArgument(describeIssues(validationIssues(parsed.error)));
    const { id, type, ...fields } = parsed.data;
    const now = this.options.now();
    const { config, secret } = this.split(owner, id, type, fields);
    if (!this.store.insertCredential({ owner, id, type, status: "active", config, secret, create_ms: now, update_ms: now })) {
      throw new HttpError("ALREADY_EXISTS", `credential ${id} already exists; update it (PATCH) or delete it first`);
    }
    return toWire(this.row(owner, id));
  }

  get(owner: string, id: string): Credential {
    return toWire(this.row(owner, id));
  }

  list(owner: string, pageSize: number | undefined, pageToken: string | undefined): { credentials: Credential[]; next_page_token?: string } {
    const page = keysetPage("credentials", { pageSize, pageToken }, (after, limit) => this.store.credentialPage(owner, after, limit), (rows) => rows.map(toWire));
    return page.nextPageToken === undefined ? { credentials: page.items } : { credentials: page.items, next_page_token: page.nextPageToken };
  }

  update(owner: string, id: string, body: unknown, updateMask: string | undefined): Credential {
    const row = this.row(owner, id);
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw invalidArgument("body: must be a JSON object");
    const given = (body as Fields).type;
    if (given !== undefined && given !== row.type) {
      throw invalidArgument(`type: credential ${id} is a ${row.type} credential; a type cannot change: delete it and create it again`);
    }
    const parsed = UpdateCredentialRequest.safeParse({ ...body, type: row.type });
    if (!parsed.success) throw invalidArgument(describeIssues(validationIssues(parsed.error)));
    const { type: _type, ...patch } = parsed.data as Fields;

    const current: Fields = { ...JSON.parse(row.config), ...this.secrets(row) };
    for (const field of maskFields(row.type, updateMask, patch)) {
      if (patch[field] !== undefined) current[field] = patch[field];
      else if (REQUIRED[row.type].includes(field)) throw invalidArgument(`${field}: is required (update_mask lists it); give a value or leave it out of the mask`);
      else delete current[field];
    }
    const merged = CreateCredentialRequest.safeParse({ id, type: row.type, ...current });
    if (!merged.success) throw invalidArgument(describeIssues(validationIssues(merged.error)));
    const { config, secret } = this.split(owner, id, row.type, current);
    this.store.updateCredential(owner, id, config, secret, Math.max(this.options.now(), row.update_ms + 1));
    return toWire(this.row(owner, id));
  }

  delete(owner: string, id: string): void {
    if (!this.store.deleteCredential(owner, id)) throw notFound(`credential ${id} not found`);
  }

  /**
   * The decrypted credential with defaults applied, for the egress proxy; undefined when this owner
   * has none with that id. Never send the result to a client or a log.
   */
  reveal(owner: string, id: string): RevealedCredential | undefined {
    const row = this.store.credential(owner, id);
    if (!row) return undefined;
    const fields: Fields = { ...JSON.parse(row.config), ...this.secrets(row) };
    switch (row.type) {
      case "environment_variable": {
        const locations = fields.injection_location;
        return {
          id,
          type: row.type,
          value: fields.value as string,
          injection_location: (Array.isArray(locations) ? locations : [locations]) as ("header" | "query" | "body")[],
          trusted_domains: (fields.trusted_domains as string[] | undefined) ?? [],
        };
      }
      case "bearer_token":
        return {
          id,
          type: row.type,
          token: fields.token as string,
          header_name: (fields.header_name as string | undefined) ?? "Authorization",
          prefix: (fields.prefix as string | undefined) ?? "Bearer",
        };
      case "oauth2":
        return {
          id,
          type: row.type,
          client_id: fields.client_id as string,
          client_secret: fields.client_secret as string,
          refresh_token: fields.refresh_token as string,
          token_url: fields.token_url as string,
          scopes: (fields.scopes as string[] | undefined) ?? [],
        };
    }
  }

  private row(owner: string, id: string): CredentialRow {
    const row = this.store.credential(owner, id);
    if (!row) throw notFound(`credential ${id} not found`);
    return row;
  }

  private split(owner: string, id: string, type: CredentialType, fields: Fields): { config: string; secret: Buffer } {
    const secretNames: readonly string[] = CREDENTIAL_SECRET_FIELDS[type];
    const config: Fields = {};
    const secrets: Fields = {};
    for (const [name, value] of Object.entries(fields)) (secretNames.includes(name) ? secrets : config)[name] = value;
    return { config: JSON.stringify(config), secret: seal(this.options.key(), JSON.stringify(secrets), aadOf(owner, id)) };
  }

  private secrets(row: CredentialRow): Fields {
    try {
      return JSON.parse(open(this.options.key(), row.secret, aadOf(row.owner, row.id)));
    } catch (error) {
      throw new Error(`credential ${row.id}: cannot decrypt its secret; was ${CREDENTIALS_KEY_ENV} or ${KEY_FILE} changed?`, { cause: error });
    }
  }
}

const aadOf = (owner: string, id: string) => `credential\0${owner}\0${id}`;

function maskFields(type: CredentialType, updateMask: string | undefined, patch: Fields): string[] {
  if (updateMask === undefined || updateMask.trim() === "") return Object.keys(patch).filter((field) => patch[field] !== undefined);
  const fields: string[] = [];
  for (const raw of updateMask.split(",")) {
    const field = raw.trim();
    if (field === "*") fields.push(...FIELDS[type]);
    else if (field === "type") continue;
    else if (FIELDS[type].includes(field)) fields.push(field);
    else throw invalidArgument(`update_mask: "${field}" is not an updatable field of a ${type} credential (${FIELDS[type].join(", ")})`);
  }
  return fields;
}

function toWire(row: CredentialRow): Credential {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    create_time: new Date(row.create_ms).toISOString(),
    update_time: new Date(row.update_ms).toISOString(),
  };
}
