/** Public surface of the Environments API client. */
export {
  EnvironmentsClient,
  type CallOptions,
  type DownloadedFile,
  type FileDownload,
  type ListEnvironmentsParams,
  type ListFilesParams,
} from "./client";
export { CredentialsApi, type ListCredentialsParams, type UpdateCredentialOptions } from "./credentials";
export { DEFAULTS, type EnvironmentsClientOptions, type RetryEvent, type RetryOptions } from "./config";
export {
  AbortedError,
  ConfigurationError,
  ConnectionError,
  EnvironmentsApiError,
  EnvironmentsError,
  TimeoutError,
  UnexpectedResponseError,
  ValidationError,
  hasStatus,
  isAlreadyExists,
  isFailedPrecondition,
  isInvalidArgument,
  isNotFound,
  isPermissionDenied,
  isResourceExhausted,
  isUnauthenticated,
} from "./errors";
export {
  AllowlistEntry,
  CreateCredentialRequest,
  CreateEnvironmentRequest,
  Credential,
  Environment,
  EnvironmentFile,
  EnvironmentMode,
  ENVIRONMENT_MODES,
  ExecuteToolResponse,
  HookRun,
  ListCredentialsResponse,
  ListEnvironmentFilesResponse,
  ListEnvironmentsResponse,
  Network,
  Source,
  ToolCall,
  UpdateCredentialRequest,
} from "./schemas";
export { atPath, describeIssues, formatIssuePath, renderIssue, type Issue, type Issue as ValidationIssue } from "./issues";
export { AmbiguousCreateError, createCredentialConverging, createEnvironmentConverging, isAmbiguous, type ConvergeOptions } from "./converge";
