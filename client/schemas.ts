/**
 * Wire shapes of the Environments API: the single source of truth for every request and response.
 *
 * Field names are the API's (snake_case); int64 values stay decimal strings as on the wire. Request
 * schemas are strict (an unknown field is an error naming it) and carry the API's semantic rules
 * (a target may not escape the environment root, base64 must decode, …) so that the client, the
 * provider's `check` and the emulator reject the same inputs with the same words.
 */
import { z } from "zod";

// ---------------------------------------------------------------------------------------------
// Paths inside an environment
// ---------------------------------------------------------------------------------------------

/**
 * Why a target path is unusable, or undefined when it is a clean relative path such as
 * `workspace/src/main.py`. One place, so that every layer words it the same way.
 */
export function targetPathProblem(target: string): string | undefined {
  if (target.length === 0) return "is empty: give a path relative to the environment root, e.g. workspace/main.py";
  if (target.includes("\0")) return "contains a NUL character";
  if (target.startsWith("/")) {
    return `"${target}" is absolute: give it relative to the environment root, e.g. "${target.replace(/^\/+/, "")}"`;
  }
  if (target.includes("\\")) return `"${target}" contains a backslash: use "/" to separate directories`;
  const segments = target.replace(/\/+$/, "").split("/");
  const tooLong = pathLengthProblem(segments);
  if (tooLong) return tooLong;
  let depth = 0;
  for (const segment of segments) {
    if (segment === "..") {
      depth -= 1;
      if (depth < 0) return `"${target}" escapes the environment root`;
    } else if (segment === "." || segment === "") {
      return `"${target}" is not normalised: remove empty, "." and ".." segments`;
    } else {
      depth += 1;
    }
  }
  if (segments.includes("..")) return `"${target}" is not normalised: remove ".." segments`;
  return undefined;
}

/** Longest file name, and longest path, that Linux file systems take (NAME_MAX, PATH_MAX less the root and NUL). */
export const MAX_NAME_BYTES = 255;
export const MAX_PATH_BYTES = 4000;

/** Why a path (split in segments) is too long for a file system, or undefined. */
export function pathLengthProblem(segments: readonly string[]): string | undefined {
  const long = segments.find((segment) => Buffer.byteLength(segment) > MAX_NAME_BYTES);
  if (long !== undefined) return `has a name of ${Buffer.byteLength(long)} bytes ("${long.slice(0, 16)}…"); file names hold at most ${MAX_NAME_BYTES} bytes`;
  const total = Buffer.byteLength(segments.join("/"));
  if (total > MAX_PATH_BYTES) return `is ${total} bytes long; paths hold at most ${MAX_PATH_BYTES} bytes`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Sources
// ---------------------------------------------------------------------------------------------

export const SOURCE_TYPES = ["inline", "repository", "gcs", "skill_registry"] as const;
export const SourceType = z
  .enum(SOURCE_TYPES, { error: (issue) => `must be one of ${SOURCE_TYPES.join(", ")} (got ${JSON.stringify(issue.input)})` })
  .meta({
    description: "Kind of source: `inline` content, a `repository`, a Cloud Storage bucket (`gcs`) or a `skill_registry` skill.",
    valueDescriptions: {
      inline: "Content given in the declaration (`content`), written at `target`.",
      repository: "A repository copied in: `github://owner/repo`, `https://…` or `file://…`.",
      gcs: "A Cloud Storage prefix copied in: `gs://bucket/prefix`.",
      skill_registry: "A skill from the skill registry.",
    },
  });
export type SourceType = z.infer<typeof SourceType>;

/** Standard padded base64. A plain character-class scan: a grouped regex backtracks out of stack on large content. */
function isBase64(text: string): boolean {
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
}

export const Source = z
  .strictObject({
    type: SourceType.meta({ description: "`inline`, `repository` (`github://owner/repo`, `https://…`, `file://…`), `gcs` (`gs://bucket/prefix`) or `skill_registry`." }),
    content: z.string().optional().meta({ description: "Inline content (UTF-8 text, or base64 when `encoding` is `base64`)." }),
    encoding: z
      .literal("base64", { error: 'must be "base64" or omitted (UTF-8 text)' })
      .optional()
      .meta({ description: "`base64` for binary inline content; omitted for UTF-8 text." }),
    source: z.string().optional().meta({ description: "Where to copy from, for repository, gcs and skill_registry sources." }),
    target: z.string().optional().meta({ description: "Path relative to the environment root (the sandbox's `/`), e.g. `.agents/hooks.json`." }),
  })
  .superRefine((source, ctx) => {
    if (source.type === "inline") {
      if (source.content === undefined) {
        ctx.addIssue({ code: "custom", path: ["content"], message: "is required for an inline source" });
      }
      if (source.target === undefined) {
        ctx.addIssue({ code: "custom", path: ["target"], message: "is required for an inline source: the file's path, e.g. main.py" });
      }
      if (source.source !== undefined) {
        ctx.addIssue({ code: "custom", path: ["source"], message: "is not used by an inline source: put the text in content" });
      }
      if (source.encoding === "base64" && source.content !== undefined && !isBase64(source.content)) {
        ctx.addIssue({ code: "custom", path: ["content"], message: "is not valid base64 (encoding is base64)" });
      }
    } else {
      if (source.source === undefined || source.source.length === 0) {
        ctx.addIssue({ code: "custom", path: ["source"], message: `is required for a ${source.type} source` });
      }
      if (source.content !== undefined || source.encoding !== undefined) {
        ctx.addIssue({ code: "custom", path: ["content"], message: `content and encoding are only for inline sources, not ${source.type}` });
      }
    }
    if (source.target !== undefined) {
      const problem = targetPathProblem(source.target);
      if (problem) ctx.addIssue({ code: "custom", path: ["target"], message: problem });
    }
  })
  .meta({ description: "What to put into an environment: inline content, or a repository, bucket or skill to copy in." });
export type Source = z.infer<typeof Source>;

/** Sources of one environment: each target once, and no file where another needs a directory. */
export const Sources = z.array(Source).superRefine((sources, ctx) => {
  const files = new Map<string, number>();
  sources.forEach((source, index) => {
    if (source.type !== "inline" || source.target === undefined || targetPathProblem(source.target)) return;
    const target = source.target.replace(/\/+$/, "");
    const earlier = files.get(target);
    if (earlier !== undefined) {
      ctx.addIssue({ code: "custom", path: [index, "target"], message: `"${target}" is also the target of sources[${earlier}]` });
      return;
    }
    files.set(target, index);
  });
  for (const [target, index] of files) {
    const parts = target.split("/");
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join("/");
      const fileIndex = files.get(parent);
      if (fileIndex !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [index, "target"],
          message: `"${target}" needs "${parent}" to be a directory, but sources[${fileIndex}] writes a file there`,
        });
      }
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Network
// ---------------------------------------------------------------------------------------------

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const DOMAIN = /^(\*|(\*\.)?([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*)$/;

/** Headers the egress proxy sets on requests to the entry's domain. */
export const HeaderMap = z.record(
  z.string().regex(HEADER_NAME, { error: "is not a valid HTTP header name" }),
  z.string().refine((value) => !/[\r\n\0]/.test(value), { error: "header values may not contain CR, LF or NUL" }),
);
export type HeaderMap = z.infer<typeof HeaderMap>;

export const AllowlistEntry = z
  .strictObject({
    domain: z
      .string()
      .regex(DOMAIN, { error: (issue) => `${JSON.stringify(issue.input)} is not a domain: use a host name (api.example.com), a wildcard (*.example.com) or *` })
      .meta({ description: "`api.example.com`, `*.example.com` (subdomains only, not the apex) or `*` (every domain)." }),
    transform: z
      .union([HeaderMap, z.array(HeaderMap)])
      .optional()
      .meta({ description: "Headers to inject: one map, or a list of maps applied in order." }),
    credential: z.string().min(1).optional().meta({ description: "Id of a server-managed Credential whose secret the proxy injects." }),
  })
  .meta({ description: "A domain the sandbox may reach, and the headers or credential the egress proxy injects on requests to it." });
export type AllowlistEntry = z.infer<typeof AllowlistEntry>;

export const NetworkAllowlist = z
  .strictObject({
    allowlist: z
      .union([z.array(AllowlistEntry), z.literal("disabled")])
      .meta({ description: 'Allowed domains, in order (their transforms apply in that order), or `"disabled"`.' }),
  })
  .meta({ description: 'Egress limited to listed domains; `"disabled"` (as the network itself) turns all network access off.' });

/**
 * Egress policy: omitted (everything allowed), `"disabled"` (nothing leaves), or an allowlist.
 */
export const Network = z.union([z.literal("disabled"), NetworkAllowlist], {
  error: 'must be "disabled" or {"allowlist": [{"domain": "…"}]}',
});
export type Network = z.infer<typeof Network>;

// ---------------------------------------------------------------------------------------------
// Environments
// ---------------------------------------------------------------------------------------------

const ENVIRONMENT_REF = /^(environments\/)?[A-Za-z0-9_-]+$/;

/**
 * The compute lifecycle of an environment: `on_demand` (the default: the service runs the sandbox)
 * or `self_hosted` (a sandbox daemon of yours polls for the work, authenticated by the environment's
 * `environment_key`). Lowercase on the wire.
 */
export const ENVIRONMENT_MODES = ["on_demand", "self_hosted"] as const;
export const DEFAULT_ENVIRONMENT_MODE = "on_demand";
export const EnvironmentMode = z.enum(ENVIRONMENT_MODES, { error: (issue) => environmentModeProblem(issue.input) }).meta({
  description:
    "Compute lifecycle of an environment: `on_demand` (the service runs the sandbox) or `self_hosted` (your sandbox daemon polls for the work, authenticated by the environment's key).",
  valueDescriptions: {
    on_demand: "The service runs the sandbox (the default).",
    self_hosted: "Your sandbox daemon polls for the work, authenticated by the environment's key.",
  },
});
export type EnvironmentMode = z.infer<typeof EnvironmentMode>;

/** Why a mode is not one of the API's, worded once for the create body and the List filter. */
export function environmentModeProblem(value: unknown): string {
  const hint = typeof value === "string" && (ENVIRONMENT_MODES as readonly string[]).includes(value.toLowerCase()) ? "; enum values are lowercase on the wire" : "";
  return `must be ${ENVIRONMENT_MODES.map((mode) => JSON.stringify(mode)).join(" or ")} (got ${JSON.stringify(value)})${hint}`;
}

/** Fields only a `self_hosted` environment takes. */
const SELF_HOSTED_ONLY = ["system_instruction", "custom_config"] as const;

const CreateEnvironmentFields = z.strictObject({
  sources: Sources.optional(),
  network: Network.optional(),
  /** `environments/{id}` or `{id}`: start from a copy of that environment's current files. */
  from_environment: z.string().regex(ENVIRONMENT_REF, { error: "must be an environment id such as env_abc123 or environments/env_abc123" }).optional(),
  /** `on_demand` (default) or `self_hosted`. */
  mode: EnvironmentMode.optional(),
  /** System instruction for interactions in this environment; `self_hosted` only. */
  system_instruction: z.string({ error: "must be a string" }).optional(),
  /** Any JSON object, passed through to the self-hosted environment poller; `self_hosted` only. */
  custom_config: z.record(z.string(), z.unknown(), { error: 'must be a JSON object, e.g. {"pool": "gpu"}' }).optional(),
});

/**
 * The create body's schema, its messages naming other fields as `name` gives them: wire names by
 * default, the provider's input names in its check (`fromEnvironment`).
 */
export function createEnvironmentRequest(name: (wire: keyof typeof CreateEnvironmentFields.shape) => string = (wire) => wire) {
  return CreateEnvironmentFields.superRefine((request, ctx) => {
    if (request.from_environment !== undefined && request.sources !== undefined && request.sources.length > 0) {
      ctx.addIssue({ code: "custom", params: { code: "fork-with-sources" }, path: ["sources"], message: `must be empty when ${name("from_environment")} is set: a fork copies its origin's files` });
    }
    for (const field of SELF_HOSTED_ONLY) {
      if (request[field] !== undefined && request.mode !== "self_hosted") {
        ctx.addIssue({
          code: "custom",
          params: { code: "self-hosted-only" },
          path: [field],
          message: `is only supported for self_hosted environments; set ${name("mode")}: "self_hosted" (${name("mode")} is ${JSON.stringify(request.mode ?? DEFAULT_ENVIRONMENT_MODE)})`,
        });
      }
    }
  });
}
export const CreateEnvironmentRequest = createEnvironmentRequest();
export type CreateEnvironmentRequest = z.infer<typeof CreateEnvironmentRequest>;

const Int64String = z.string().regex(/^-?\d+$/);
const Timestamp = z.string();

export const EnvironmentStatus = z.string(); // "active" | "expired" | future values
export const Environment = z.object({
  id: z.string(),
  created: Timestamp.optional(),
  updated: Timestamp.optional(),
  last_accessed: Timestamp.optional(),
  file_count: Int64String.optional(),
  size_bytes: Int64String.optional(),
  status: EnvironmentStatus.optional(),
  network: z.union([z.string(), z.object({ allowlist: z.unknown() }).loose()]).optional(),
  sources: z.array(z.object({}).loose()).optional(),
  mode: z.string().optional(), // EnvironmentMode | future values
  system_instruction: z.string().optional(),
  custom_config: z.record(z.string(), z.unknown()).optional(),
  /**
   * The self-hosted daemon's secret, in the CreateEnvironment response of a `self_hosted` environment
   * only: Get and List never return it again.
   */
  environment_key: z.string().optional(),
});
export type Environment = z.infer<typeof Environment>;

export const ListEnvironmentsResponse = z.object({
  environments: z.array(Environment).optional(),
  next_page_token: z.string().optional(),
});
export type ListEnvironmentsResponse = z.infer<typeof ListEnvironmentsResponse>;

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

export const EnvironmentFile = z.object({
  name: z.string().optional(),
  path: z.string().optional(),
  type: z.string().optional(), // "file" | "directory"
  mime_type: z.string().optional(),
  size_bytes: Int64String.optional(),
  created: Timestamp.optional(),
  modified: Timestamp.optional(),
});
export type EnvironmentFile = z.infer<typeof EnvironmentFile>;

export const ListEnvironmentFilesResponse = z.object({
  files: z.array(EnvironmentFile).optional(),
  next_page_token: z.string().optional(),
});
export type ListEnvironmentFilesResponse = z.infer<typeof ListEnvironmentFilesResponse>;

/** The final chunk's answer: the files the upload wrote. */
export const UploadEnvironmentFileResponse = z.object({ files: z.array(EnvironmentFile).optional() });

// ---------------------------------------------------------------------------------------------
// Credentials (SDK_WIRE §4): secrets stored once, server-side, and referenced by id
// ---------------------------------------------------------------------------------------------
//
// Secret fields (`value`, `token`, `client_secret`, `refresh_token`) are write-only: no response
// carries them, and no error message here quotes them (messages never include the input).

export const CREDENTIAL_TYPES = ["environment_variable", "bearer_token", "oauth2"] as const;
export const CredentialType = z.enum(CREDENTIAL_TYPES, { error: `must be one of ${CREDENTIAL_TYPES.join(", ")}` }).meta({
  description: "What a credential holds and how the egress proxy injects it.",
  valueDescriptions: {
    environment_variable: "A value injected where a request names it (header, query or body), for trusted domains only.",
    bearer_token: "A token sent in a header (`Authorization: Bearer …` by default).",
    oauth2: "OAuth 2.0 client credentials and a refresh token; the proxy sends a fresh access token.",
  },
});
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

/** Write-only fields, by credential type. */
export const CREDENTIAL_SECRET_FIELDS = {
  environment_variable: ["value"],
  bearer_token: ["token"],
  oauth2: ["client_secret", "refresh_token"],
} as const satisfies Record<CredentialType, readonly string[]>;

export const CredentialId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, { error: "must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit, e.g. gh-token" });

/** A non-empty value that can go into an HTTP header (no CR, LF or NUL). */
const HeaderSafeSecret = z
  .string()
  .min(1, { error: "must not be empty" })
  .refine((value) => !/[\r\n\0]/.test(value), { error: "may not contain CR, LF or NUL" });
const NonEmpty = z.string().min(1, { error: "must not be empty" });

export const InjectionLocation = z.enum(["header", "query", "body"], { error: "must be header, query or body" }).meta({
  description: "Where an environment_variable credential's value may be injected.",
  valueDescriptions: { header: "An HTTP header.", query: "The URL's query string.", body: "The request body." },
});

export const EnvironmentVariableCredential = z.strictObject({
  id: CredentialId,
  type: z.literal("environment_variable"),
  /** The secret (write-only). */
  value: HeaderSafeSecret,
  /** Where the egress proxy injects it: one location or a non-empty list. */
  injection_location: z.union([InjectionLocation, z.array(InjectionLocation).min(1, { error: "must name at least one location" })]),
  /** Domains allowed to receive the value, e.g. `["api.example.com"]`. */
  trusted_domains: z
    .array(z.string().regex(DOMAIN, { error: "is not a domain: use a host name (api.example.com), a wildcard (*.example.com) or *" }))
    .optional(),
});

export const BearerTokenCredential = z.strictObject({
  id: CredentialId,
  type: z.literal("bearer_token"),
  /** The token (write-only). */
  token: HeaderSafeSecret,
  /** Default `Authorization`. */
  header_name: z.string().regex(HEADER_NAME, { error: "is not a valid HTTP header name" }).optional(),
  /** Default `Bearer`; `""` sends the bare token. */
  prefix: z.string().refine((value) => !/[\r\n\0]/.test(value), { error: "may not contain CR, LF or NUL" }).optional(),
});

export const OAuth2Credential = z.strictObject({
  id: CredentialId,
  type: z.literal("oauth2"),
  client_id: NonEmpty,
  /** Write-only. */
  client_secret: NonEmpty,
  /** Write-only. */
  refresh_token: NonEmpty,
  /** Token endpoint used to refresh, e.g. `https://oauth2.example.com/token`. */
  token_url: z.string().refine((value) => /^https?:\/\/[^\s/]+/.test(value) && URL.canParse(value), {
    error: "must be an absolute http(s) URL, e.g. https://oauth2.example.com/token",
  }),
  scopes: z.array(NonEmpty).optional(),
});

const credentialTypeError = { error: `must be one of ${CREDENTIAL_TYPES.join(", ")}` };

/** Body of `POST /{v}/credentials`: `id` and `type` in the body. */
export const CreateCredentialRequest = z.discriminatedUnion(
  "type",
  [EnvironmentVariableCredential, BearerTokenCredential, OAuth2Credential],
  credentialTypeError,
);
export type CreateCredentialRequest = z.infer<typeof CreateCredentialRequest>;

/** Body of `PATCH /{v}/credentials/{id}`: the type and any fields to change (no `id`). */
export const UpdateCredentialRequest = z.discriminatedUnion(
  "type",
  [
    EnvironmentVariableCredential.omit({ id: true }).partial().required({ type: true }),
    BearerTokenCredential.omit({ id: true }).partial().required({ type: true }),
    OAuth2Credential.omit({ id: true }).partial().required({ type: true }),
  ],
  credentialTypeError,
);
export type UpdateCredentialRequest = z.infer<typeof UpdateCredentialRequest>;

/** A credential as the API returns it: never any secret, nor any other configuration. */
export const Credential = z.object({
  id: z.string(),
  type: z.string().optional(), // CredentialType | future values
  status: z.string().optional(), // "active" | "revoked"
  create_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type Credential = z.infer<typeof Credential>;

export const ListCredentialsResponse = z.object({
  credentials: z.array(Credential).optional(),
  next_page_token: z.string().optional(),
});
export type ListCredentialsResponse = z.infer<typeof ListCredentialsResponse>;

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** Google's JSON error envelope. */
export const GoogleErrorBody = z.object({
  error: z.object({
    code: z.number(),
    message: z.string(),
    status: z.string(),
    details: z.array(z.unknown()).optional(),
  }),
});
export type GoogleErrorBody = z.infer<typeof GoogleErrorBody>;

// ---------------------------------------------------------------------------------------------
// Emulator extension: ExecuteTool (`POST /{v}/environments/{id}:executeTool`)
//
// Not part of the Environments API: the local emulator's way to run one container tool call with the
// hooks runtime of spec/HOOKS.md in front, without a model. The hosted service answers it with 404.
// ---------------------------------------------------------------------------------------------

/** A container tool call, e.g. `{"name": "code_execution", "args": {"code": "echo hi"}}`. */
export const ToolCall = z.strictObject({
  /** `code_execution`, `view_file`, `write_to_file`, `replace_file_content`, `list_dir` or `delete_file`. */
  name: z.string().min(1, { error: "must not be empty: a container tool name such as code_execution" }),
  /** The tool's arguments, e.g. `{"path": "/workspace/a.txt"}`. */
  args: z.record(z.string(), z.unknown(), { error: "must be an object of the tool's arguments" }),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const ExecuteToolRequest = z.strictObject({ tool_call: ToolCall });
export type ExecuteToolRequest = z.infer<typeof ExecuteToolRequest>;

const TOOL_CALL_REQUIRED = 'is required: {"name": "code_execution", "args": {"code": "echo hi"}}';
const TOOL_NAME_REQUIRED = "is required: a container tool name such as code_execution";

/**
 * ExecuteTool's body as the emulator reads it: laxer than `ExecuteToolRequest`, which the client
 * sends — `args` may be left out (no arguments) and fields it does not know are ignored.
 */
export const ExecuteToolBody = z.object(
  {
    tool_call: z.object(
      {
        name: z.string({ error: TOOL_NAME_REQUIRED }).min(1, { error: TOOL_NAME_REQUIRED }),
        args: z.record(z.string(), z.unknown(), { error: "must be an object of the tool's arguments" }).default({}),
      },
      { error: TOOL_CALL_REQUIRED },
    ),
  },
  { error: `tool_call: ${TOOL_CALL_REQUIRED}` },
);
export type ExecuteToolBody = z.infer<typeof ExecuteToolBody>;

/** One hook handler's run during a tool call. */
export const HookRun = z.object({
  /** The group's name in hooks.json; `""` for the entry about hooks.json itself. */
  group: z.string(),
  event: z.enum(["pre_tool_execution", "post_tool_execution"]),
  /** `command: python3 /.agents/hooks-scripts/gate.py`, `http: https://…`, or `.agents/hooks.json`. */
  handler: z.string(),
  /** Pre handlers `allow` or `deny`, `skipped` after an earlier deny; post handlers `ignored`. */
  decision: z.enum(["allow", "deny", "skipped", "ignored"]),
  duration_ms: z.number(),
  /** Why the handler failed open (crash, timeout, unrecognised output, not delivered). */
  failure: z.string().optional(),
});
export type HookRun = z.infer<typeof HookRun>;

/** The call's outcome: the hooks' verdict, and the tool's result when it ran. */
export const ExecuteToolResponse = z.object({
  decision: z.enum(["allow", "deny"]),
  /** The denying hook's reason. */
  reason: z.string().optional(),
  /** What the tool printed (code_execution stdout, view_file content, …). */
  output: z.string().optional(),
  /** The tool's error result as the model sees it: stderr, a filesystem error, a kill or environment limit note, or the deny's reason. */
  error: z.string().optional(),
  /** code_execution's exit status. */
  exit_code: z.number().int().optional(),
  /** Every handler that ran (or was skipped), in order. */
  hooks: z.array(HookRun),
});
export type ExecuteToolResponse = z.infer<typeof ExecuteToolResponse>;

// ---------------------------------------------------------------------------------------------
// Emulator extension: recorded tool calls (`GET /{v}/environments/{id}/toolCalls`)
//
// The calls `:executeTool` executed, as hook payloads (spec/HOOKS.md) with the pre hooks' verdict:
// what `genv hooks diff --calls` replays. The hosted service answers 404.
// ---------------------------------------------------------------------------------------------

/** One executed call: the hook payload, its pre hooks' decision and reason, when. */
export const RecordedToolCall = z.object({
  /** As the hooks saw it; without `args` when they were too large to keep (`args_omitted`). */
  tool_call: z.object({ name: z.string(), args: z.record(z.string(), z.unknown()).optional() }),
  environment_id: z.string(),
  decision: z.enum(["allow", "deny"]),
  reason: z.string().optional(),
  /** The tool's error result when it ran and failed (the post payload's `error`). */
  error: z.string().optional(),
  /** When the call was executed: RFC 3339 with milliseconds. */
  time: z.string(),
  /** The call's `args` were over the size the emulator keeps per call, and are not recorded. */
  args_omitted: z.boolean().optional(),
});
export type RecordedToolCall = z.infer<typeof RecordedToolCall>;

export const ListToolCallsResponse = z.object({
  tool_calls: z.array(RecordedToolCall).optional(),
  next_page_token: z.string().optional(),
});
export type ListToolCallsResponse = z.infer<typeof ListToolCallsResponse>;
