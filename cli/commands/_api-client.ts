/**
 * The API client of the commands that talk to an Environments API (`genv exec`, `genv env …`): the
 * emulator or the hosted service, by the same rules — `--base-url`, else GOOGLE_GEMINI_BASE_URL, else
 * the hosted service; `--api-key`, else GOOGLE_API_KEY, else GEMINI_API_KEY — and the exit codes their
 * failures map to: 2 for unusable arguments, 1 when the API refused or could not be reached.
 */
import { EnvironmentsClient } from "../../client/client";
import { ConfigurationError, EnvironmentsError, ValidationError } from "../../client/errors";
import { CLIError } from "../errors";

export interface ApiArgs {
  /** Default: env GOOGLE_GEMINI_BASE_URL, else the hosted service. */
  baseUrl?: string;
  /** Default: env GOOGLE_API_KEY, else GEMINI_API_KEY. */
  apiKey?: string;
  /** Where the defaults are read; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** The commander options every such command takes. */
export const API_OPTIONS = [
  ["--base-url <url>", "API base URL, e.g. the emulator's http://127.0.0.1:8765 (default: $GOOGLE_GEMINI_BASE_URL, else the hosted service)"],
  ["--api-key <key>", "API key (default: $GOOGLE_API_KEY or $GEMINI_API_KEY)"],
] as const;

/**
 * Runs `body` with a client, closed after; failures become CLIError with their exit code.
 * `timeoutMs` bounds each attempt (tool calls take longer than metadata reads).
 */
export async function withClient<T>(args: ApiArgs, body: (client: EnvironmentsClient) => Promise<T>, timeoutMs?: number): Promise<T> {
  let client: EnvironmentsClient;
  try {
    client = new EnvironmentsClient({ baseUrl: args.baseUrl, apiKey: args.apiKey, env: args.env, ...(timeoutMs !== undefined && { timeoutMs }) });
  } catch (error) {
    if (error instanceof ConfigurationError) throw new CLIError(`${error.message} (or pass --api-key / --base-url)`, 2);
    throw error;
  }
  try {
    return await body(client);
  } catch (error) {
    if (error instanceof ValidationError) throw new CLIError(error.message, 2);
    if (error instanceof EnvironmentsError) throw new CLIError(error.message, 1);
    throw error;
  } finally {
    await client.close();
  }
}
