/**
 * The provider's configuration as schema.json declares it (`config.variables` and the Provider
 * resource's inputs): each value, whether it is secret, its default and the environment variables
 * it falls back to (meta `environment`, schema.json's `defaultInfo`), which the generated SDKs read.
 * contracts/configuration.ts resolves the same values at run time.
 */
import { z } from "zod";
import { API_KEY_ENV_VARS, BASE_URL_ENV_VAR, DEFAULTS } from "../../client/config";

export const ProviderConfigInputs = z
  .object({
    apiKey: z
      .string()
      .optional()
      .meta({
        description: `API key (x-goog-api-key). Default: the ${API_KEY_ENV_VARS.join(" or ")} environment variable.`,
        secret: true,
        environment: API_KEY_ENV_VARS,
      }),
    baseUrl: z
      .string()
      .default(DEFAULTS.baseUrl)
      .meta({
        description: `Base URL of the Environments API, e.g. http://127.0.0.1:8765 for \`genv serve\`. Default: ${BASE_URL_ENV_VAR}, else the hosted service.`,
        environment: [BASE_URL_ENV_VAR],
      }),
  })
  .meta({ description: "The provider: its API key and base URL. What it leaves out comes from the stack's `gemini-environments:` config, then the environment." });
