/**
 * `EnvironmentsClient`: the typed REST client of the Environments API.
 *
 * Requests go through an undici `Agent` owned by the client (or the `dispatcher` option) with
 * `dispatcher.request({ origin, path })`: the path is sent exactly as built here, with no URL-parser
 * normalisation, keep-alive connections are pooled per origin, and `close()` releases them — no global
 * dispatcher is touched. Responses are parsed with the zod schemas of `schemas.ts`; int64 fields stay
 * decimal strings.
 *
 * @example
 * const client = new EnvironmentsClient({ baseUrl: "http://127.0.0.1:8080" });
 * const env = await client.create({ sources: [{ type: "inline", content: "print(1)", target: "main.py" }] });
 * for await (const file of client.files.listAll({ environment: env.id, recursive: true })) console.log(file.path);
 * await client.credentials.create({ id: "gh-token", type: "bearer_token", token: process.env.GH_TOKEN! });
 * await client.close();
 */
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { Agent } from "./_undici";
import { filePathSegments, environmentSegment, pageSize, queryString } from "./_paths";
import { type Attempt, sendForStream, sendForText, type TextResponse } from "./_http";
import { pages, parse } from "./_responses";
import { CredentialsApi } from "./credentials";
import { type EnvironmentsClientOptions, type ResolvedConfig, resolveConfig } from "./config";
import { UnexpectedResponseError, ValidationError } from "./errors";
import { type RetryMode, withRetry } from "./retry";
import {
  CreateEnvironmentRequest,
  Environment,
  type EnvironmentFile,
  type EnvironmentMode,
  ExecuteToolRequest,
  ExecuteToolResponse,
  ListEnvironmentFilesResponse,
  ListEnvironmentsResponse,
  ListToolCallsResponse,
  type RecordedToolCall,
  type ToolCall,
  UploadEnvironmentFileResponse,
} from "./schemas";
import type { CallOptions } from "./transport";
import { validationIssues } from "./issues";

export type { CallOptions } from "./transport";

export interface ListEnvironmentsParams {
  /** Environments per page (1–1000; the server's default is 50). */
  pageSize?: number;
  /** `next_page_token` of the previous page. */
  pageToken?: string;
  /** Only environments of this mode, e.g. `self_hosted` (sent as `?mode=`). */
  mode?: EnvironmentMode | (string & {});
}

export interface ListFilesParams {
  /** `env_abc123` or `environments/env_abc123`. */
  environment: string;
  /** File or directory relative to the environment root; `""` (the default) is the root. A leading `/` is ignored. */
  path?: string;
  /** List every file under the directory, not only its direct entries. */
  recursive?: boolean;
  pageSize?: number;
  pageToken?: string;
}

export interface FileDownload {
  /** The file's bytes as they arrive. Consume or destroy it; `Readable.toWeb(body)` gives a web stream. */
  body: Readable;
  contentType?: string;
  /** From `Content-Length`, when the server sent one. */
  contentLength?: number;
}

export interface UploadParams {
  /** `env_abc123` or `environments/env_abc123`. */
  environment: string;
  /** Destination relative to the environment root, e.g. `.agents/hooks.json`; missing directories are made. */
  path: string;
  /** The bytes; a string is sent as UTF-8. */
  data: Uint8Array | string;
  /** Default `application/octet-stream`, as the official client declares bytes. */
  mimeType?: string;
  /** Replace an existing file (otherwise the upload fails with ALREADY_EXISTS). */
  overwrite?: boolean;
  /** Unpack a tar or tar.gz into `path`. */
  extract?: boolean;
}

export interface DownloadedFile {
  data: Buffer;
  contentType?: string;
}

/** The official client's chunk size (SDK_WIRE §3.3). */
const UPLOAD_CHUNK_BYTES = 8 * 1024 * 1024;
const USER_AGENT = `pulumi-gemini-environments node/${process.versions.node}`;

export class EnvironmentsClient {
  readonly #config: ResolvedConfig;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  /** `client.files.*`, shaped like the official client's `ai.environments.files`. */
  readonly files = {
    list: (params: ListFilesParams, options?: CallOptions) => this.listFiles(params, options),
    listAll: (params: Omit<ListFilesParams, "pageToken">, options?: CallOptions) => this.listAllFiles(params, options),
    metadata: (environment: string, path: string, options?: CallOptions) => this.fileMetadata(environment, path, options),
    download: (environment: string, path: string, options?: CallOptions) => this.download(environment, path, options),
    downloadBuffer: (environment: string, path: string, options?: CallOptions) => this.downloadBuffer(environment, path, options),
    upload: (params: UploadParams, options?: CallOptions) => this.upload(params, options),
  };

  /** `client.credentials.*`, shaped like the official client's `ai.credentials` (`credentials.ts`). */
  readonly credentials = new CredentialsApi((mode, method, path, options, body) => this.#send(mode, method, path, options, body));

  /** Throws `ConfigurationError` at once when no API key is found or an option cannot work. */
  constructor(options: EnvironmentsClientOptions = {}) {
    this.#config = resolveConfig(options);
    this.#ownsDispatcher = options.dispatcher === undefined;
    // 4 s idle keep-alive: below Node's server default of 5 s, so that a POST is not written to a socket
    // the server is closing (a reset create is not retried).
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 4_000 });
  }

  // ----------------------------------------------------------------------------------------------
  // Environments
  // ----------------------------------------------------------------------------------------------

  /**
   * CreateEnvironment. Validated before sending; retried only when the server cannot have acted on it.
   * A `self_hosted` environment's `environment_key` is in this response only: keep it.
   */
  async create(request: CreateEnvironmentRequest, options?: CallOptions): Promise<Environment> {
    const parsed = CreateEnvironmentRequest.safeParse(request);
    if (!parsed.success) throw new ValidationError("CreateEnvironmentRequest", validationIssues(parsed.error));
    const response = await this.#send("create", "POST", "/environments", options, JSON.stringify(parsed.data));
    return parse(Environment, response, "CreateEnvironment");
  }

  /** GetEnvironment. `id` with or without the `environments/` prefix. */
  async get(id: string, options?: CallOptions): Promise<Environment> {
    const response = await this.#send("idempotent", "GET", `/environments/${environmentSegment(id, "id")}`, options);
    return parse(Environment, response, "GetEnvironment");
  }

  /** One page of ListEnvironments. */
  async list(params: ListEnvironmentsParams = {}, options?: CallOptions): Promise<ListEnvironmentsResponse> {
    const query = queryString([
      ["mode", params.mode],
      ["page_size", pageSize(params.pageSize)],
      ["page_token", params.pageToken],
    ]);
    const response = await this.#send("idempotent", "GET", `/environments${query}`, options);
    return parse(ListEnvironmentsResponse, response, "ListEnvironments");
  }

  /** Every environment, page after page. */
  async *listAll(params: Omit<ListEnvironmentsParams, "pageToken"> = {}, options?: CallOptions): AsyncGenerator<Environment> {
    for await (const page of pages((pageToken) => this.list({ ...params, pageToken }, options))) {
      yield* page.environments ?? [];
    }
  }

  /** DeleteEnvironment. A 404 is thrown (`isNotFound(err)`); callers that want idempotence catch it. */
  async delete(id: string, options?: CallOptions): Promise<void> {
    await this.#send("idempotent", "DELETE", `/environments/${environmentSegment(id, "id")}`, options);
  }

  // ----------------------------------------------------------------------------------------------
  // Files
  // ----------------------------------------------------------------------------------------------

  /** One page of GetEnvironmentFiles: a directory's entries, or one entry when `path` is a file. */
  async listFiles(params: ListFilesParams, options?: CallOptions): Promise<ListEnvironmentFilesResponse> {
    const query = queryString([
      ["page_size", pageSize(params.pageSize)],
      ["page_token", params.pageToken],
      ["recursive", params.recursive],
    ]);
    const response = await this.#send("idempotent", "GET", filesPath(params.environment, params.path ?? "") + query, options);
    return parse(ListEnvironmentFilesResponse, response, "GetEnvironmentFiles");
  }

  /** Every entry under `path`, page after page. */
  async *listAllFiles(params: Omit<ListFilesParams, "pageToken">, options?: CallOptions): AsyncGenerator<EnvironmentFile> {
    for await (const page of pages((pageToken) => this.listFiles({ ...params, pageToken }, options))) {
      yield* page.files ?? [];
    }
  }

  /**
   * Metadata of one file or directory. Throws `EnvironmentsApiError` with status `NOT_FOUND` when the path
   * does not exist. The API answers a directory with its entries, not with itself: a directory is then
   * reported as `{ name, path, type: "directory" }`.
   */
  async fileMetadata(environment: string, path: string, options?: CallOptions): Promise<EnvironmentFile> {
    const relative = path.replace(/^\/+/, "").replace(/\/+$/, "");
    const page = await this.listFiles({ environment, path: relative }, options);
    const entry = page.files?.find((file) => file.path === relative);
    if (entry) return entry;
    return { name: relative.split("/").pop() ?? "", path: relative, type: "directory" };
  }

  /**
   * The file's bytes as a stream (`?alt=media`). Retried like any GET until the body starts; a failure or
   * abort after that is an error event on `body` (not retried, not wrapped).
   */
  async download(environment: string, path: string, options?: CallOptions): Promise<FileDownload> {
    const attempt = this.#attempt("GET", `${filesPath(environment, path)}?alt=media`, options, undefined, "*/*");
    const response = await withRetry(() => sendForStream(this.#dispatcher, attempt), this.#retryOptions("idempotent", options));
    const contentType = header(response.headers, "content-type");
    const contentLength = header(response.headers, "content-length");
    const download: FileDownload = { body: response.body };
    if (contentType !== undefined) download.contentType = contentType;
    if (contentLength !== undefined && /^\d+$/.test(contentLength)) download.contentLength = Number(contentLength);
    return download;
  }

  /** The whole file in memory. */
  async downloadBuffer(environment: string, path: string, options?: CallOptions): Promise<DownloadedFile> {
    const { body, contentType } = await this.download(environment, path, options);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    return { data: Buffer.concat(chunks), ...(contentType !== undefined && { contentType }) };
  }

  /**
   * Uploads one file with the resumable protocol the official client speaks (SDK_WIRE §3.3): a start
   * request, then the bytes in 8 MiB chunks, the last one finalizing. Returns the files written.
   *
   * The start is retried like any idempotent call (a retried start only opens another session). A
   * chunk is retried only when the server cannot have taken it (refused, 429, 503). The session URL
   * must be on the API's own origin: the API key goes with every chunk.
   */
  async upload(params: UploadParams, options?: CallOptions): Promise<EnvironmentFile[]> {
    const data = typeof params.data === "string" ? Buffer.from(params.data, "utf8") : params.data;
    const query = queryString([
      ["extract", params.extract],
      ["overwrite", params.overwrite],
    ]);
    const start = this.#attempt("PUT", filesPath(params.environment, params.path) + query, options, undefined, "*/*", this.#config.uploadPathPrefix);
    Object.assign(start.headers, {
      "x-goog-upload-command": "start",
      "x-goog-upload-header-content-length": String(data.byteLength),
      "x-goog-upload-header-content-type": params.mimeType ?? "application/octet-stream",
      "x-goog-upload-protocol": "resumable",
    });
    const started = await withRetry(() => sendForText(this.#dispatcher, start), this.#retryOptions("idempotent", options));
    const sessionUrl = header(started.headers, "x-goog-upload-url");
    if (sessionUrl === undefined) throw new UnexpectedResponseError("upload: the start response has no X-Goog-Upload-URL", started.statusCode, started.text);
    const session = new URL(sessionUrl);
    if (session.origin !== this.#config.origin) {
      throw new UnexpectedResponseError(`upload: the session URL ${session.origin} is not on the API's origin ${this.#config.origin}; the API key is not sent there`, started.statusCode, started.text);
    }
    let offset = 0;
    let last: TextResponse;
    do {
      const chunk = data.subarray(offset, offset + UPLOAD_CHUNK_BYTES);
      const final = offset + chunk.byteLength >= data.byteLength;
      const attempt = this.#attempt("POST", session.pathname + session.search, options, chunk, "*/*", "");
      Object.assign(attempt.headers, {
        "content-type": "application/octet-stream",
        "x-goog-upload-command": final ? "upload, finalize" : "upload",
        "x-goog-upload-offset": String(offset),
      });
      last = await withRetry(() => sendForText(this.#dispatcher, attempt), this.#retryOptions("create", options));
      offset += chunk.byteLength;
    } while (offset < data.byteLength);
    return parse(UploadEnvironmentFileResponse, last, "UploadEnvironmentFile").files ?? [];
  }

  // ----------------------------------------------------------------------------------------------
  // Emulator extension
  // ----------------------------------------------------------------------------------------------

  /**
   * Runs one container tool call in the environment's sandbox with its hooks in front and behind
   * (`POST …/environments/{id}:executeTool`, local emulator only: the hosted service answers 404).
   * A POST that may run a tool is not idempotent: it is retried only when the connection was refused
   * or the server answered 429/503 before processing, as CreateEnvironment.
   *
   * @example
   * const result = await client.executeTool("env_abc", { name: "code_execution", args: { code: "echo hi" } });
   * if (result.decision === "deny") console.log(result.reason);
   */
  async executeTool(environment: string, toolCall: ToolCall, options?: CallOptions): Promise<ExecuteToolResponse> {
    const parsed = ExecuteToolRequest.safeParse({ tool_call: toolCall });
    if (!parsed.success) throw new ValidationError("ExecuteToolRequest", validationIssues(parsed.error));
    const path = `/environments/${environmentSegment(environment, "environment")}:executeTool`;
    const response = await this.#send("create", "POST", path, options, JSON.stringify(parsed.data));
    return parse(ExecuteToolResponse, response, "ExecuteTool");
  }

  /**
   * One page of the calls the emulator executed in an environment, oldest first, from `since` (RFC
   * 3339) on (`GET …/environments/{id}/toolCalls`, local emulator only: the hosted service answers 404).
   */
  async listToolCalls(params: { environment: string; since?: string; pageSize?: number; pageToken?: string }, options?: CallOptions): Promise<ListToolCallsResponse> {
    const query = queryString([
      ["since", params.since],
      ["page_size", pageSize(params.pageSize)],
      ["page_token", params.pageToken],
    ]);
    const response = await this.#send("idempotent", "GET", `/environments/${environmentSegment(params.environment, "environment")}/toolCalls${query}`, options);
    return parse(ListToolCallsResponse, response, "ListToolCalls");
  }

  /** Every recorded call of an environment from `since` on, page after page. */
  async *listAllToolCalls(params: { environment: string; since?: string; pageSize?: number }, options?: CallOptions): AsyncGenerator<RecordedToolCall> {
    for await (const page of pages((pageToken) => this.listToolCalls({ ...params, pageToken }, options))) {
      yield* page.tool_calls ?? [];
    }
  }

  /** Closes the client's own connections; a `dispatcher` passed in options is left open. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  // ----------------------------------------------------------------------------------------------
  // Transport
  // ----------------------------------------------------------------------------------------------

  #send(mode: RetryMode, method: Attempt["method"], path: string, options?: CallOptions, body?: string): Promise<TextResponse> {
    const attempt = this.#attempt(method, path, options, body, "application/json");
    return withRetry(() => sendForText(this.#dispatcher, attempt), this.#retryOptions(mode, options));
  }

  /** One attempt at `prefix + path`; the prefix is the API's (`/v1beta`) unless given. */
  #attempt(method: Attempt["method"], path: string, options: CallOptions | undefined, body: Attempt["body"], accept: string, prefix = this.#config.pathPrefix): Attempt {
    const headers: Record<string, string> = {
      accept,
      "user-agent": USER_AGENT,
      ...this.#config.headers,
      "x-goog-api-key": this.#config.apiKey,
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    return {
      origin: this.#config.origin,
      method,
      path: prefix + path,
      headers,
      body,
      timeoutMs: options?.timeoutMs ?? this.#config.timeoutMs,
      signal: options?.signal,
    };
  }

  #retryOptions(mode: RetryMode, options?: CallOptions) {
    return { mode, policy: this.#config.retry, signal: options?.signal };
  }
}

// ------------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------------

function filesPath(environment: string, path: string): string {
  return `/environments/${environmentSegment(environment, "environment")}/files/${filePathSegments(path, "path")}`;
}


function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
