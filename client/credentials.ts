/**
 * `client.credentials`: the Credentials API (SDK_WIRE §4) — secrets stored once, server-side, and
 * referenced by id from `network.allowlist[].credential`.
 *
 * Secrets (`token`, `value`, `client_secret`, `refresh_token`) are write-only: no response carries
 * them, and a refused request's `ValidationError` names the field without quoting its value.
 *
 * Retries: CreateCredential is a POST, retried only when the server provably did not act on it (as
 * CreateEnvironment; a lost answer to a create that succeeded surfaces as ALREADY_EXISTS on a retry the
 * caller makes). Get, list, delete and an update with an `updateMask` are idempotent: the same PATCH
 * twice leaves the same credential.
 *
 * @example
 * const credential = await client.credentials.create({ id: "gh-token", type: "bearer_token", token: process.env.GH_TOKEN! });
 * await client.credentials.update("gh-token", { type: "bearer_token", token: rotated }, { updateMask: ["token"] });
 * await client.credentials.delete("gh-token");
 */
import { credentialSegment, pageSize, queryString } from "./_paths";
import { pages, parse } from "./_responses";
import { ValidationError } from "./errors";
import { CreateCredentialRequest, Credential, ListCredentialsResponse, UpdateCredentialRequest } from "./schemas";
import { issueAt, validationIssues } from "./issues";
import type { CallOptions, Send } from "./transport";

export interface ListCredentialsParams {
  /** Credentials per page (1–1000). */
  pageSize?: number;
  /** `next_page_token` of the previous page. */
  pageToken?: string;
}

export interface UpdateCredentialOptions extends CallOptions {
  /**
   * The wire fields to replace, e.g. `["token", "prefix"]` (sent as `update_mask=token,prefix`). A listed
   * optional field absent from the request goes back to its default; a field not listed is left as it
   * is even when the request carries it. Omitted or empty: the fields present in the request are updated.
   */
  updateMask?: readonly string[];
}

const MASK_FIELD = /^([a-z][a-z0-9_]*|\*)$/;

export class CredentialsApi {
  constructor(private readonly send: Send) {}

  /** CreateCredential: `id` and `type` in the body. Validated before sending; ALREADY_EXISTS when the id is taken. */
  async create(request: CreateCredentialRequest, options?: CallOptions): Promise<Credential> {
    const parsed = CreateCredentialRequest.safeParse(request);
    if (!parsed.success) throw new ValidationError("CreateCredentialRequest", validationIssues(parsed.error));
    const response = await this.send("create", "POST", "/credentials", options, JSON.stringify(parsed.data));
    return parse(Credential, response, "CreateCredential");
  }

  /** GetCredential: `id` with or without the `credentials/` prefix. Never returns a secret. */
  async get(id: string, options?: CallOptions): Promise<Credential> {
    const response = await this.send("idempotent", "GET", `/credentials/${credentialSegment(id, "id")}`, options);
    return parse(Credential, response, "GetCredential");
  }

  /** One page of ListCredentials. */
  async list(params: ListCredentialsParams = {}, options?: CallOptions): Promise<ListCredentialsResponse> {
    const query = queryString([
      ["page_size", pageSize(params.pageSize)],
      ["page_token", params.pageToken],
    ]);
    const response = await this.send("idempotent", "GET", `/credentials${query}`, options);
    return parse(ListCredentialsResponse, response, "ListCredentials");
  }

  /** Every credential, page after page. */
  async *listAll(params: Omit<ListCredentialsParams, "pageToken"> = {}, options?: CallOptions): AsyncGenerator<Credential> {
    for await (const page of pages((pageToken) => this.list({ ...params, pageToken }, options))) {
      yield* page.credentials ?? [];
    }
  }

  /**
   * UpdateCredential: `PATCH /{v}/credentials/{id}?update_mask=…`. `request.type` must be the
   * credential's type (a type cannot change: delete and create instead).
   */
  async update(id: string, request: UpdateCredentialRequest, options: UpdateCredentialOptions = {}): Promise<Credential> {
    const parsed = UpdateCredentialRequest.safeParse(request);
    if (!parsed.success) throw new ValidationError("UpdateCredentialRequest", validationIssues(parsed.error));
    const { updateMask = [], ...callOptions } = options;
    const bad = updateMask.findIndex((field) => typeof field !== "string" || !MASK_FIELD.test(field));
    if (bad >= 0) {
      throw new ValidationError("update mask", [issueAt(["updateMask", bad], "unknown-field", "must be a wire field name such as token or header_name")]);
    }
    const query = queryString([["update_mask", updateMask.length > 0 ? updateMask.join(",") : undefined]]);
    const path = `/credentials/${credentialSegment(id, "id")}${query}`;
    const response = await this.send("idempotent", "PATCH", path, callOptions, JSON.stringify(parsed.data));
    return parse(Credential, response, "UpdateCredential");
  }

  /** DeleteCredential. A 404 is thrown (`isNotFound(err)`); callers that want idempotence catch it. */
  async delete(id: string, options?: CallOptions): Promise<void> {
    await this.send("idempotent", "DELETE", `/credentials/${credentialSegment(id, "id")}`, options);
  }
}
