/**
 * The contract of a function: a read-only lookup such as `gemini-environments:index:getEnvironment`.
 * One module per concept (functions/environments.ts, functions/environment-file.ts,
 * functions/credentials.ts) holds each function's arguments and result as zod schemas — the result's
 * properties taken from the resources' own (environment/inputs.ts, credential/inputs.ts), so that a
 * lookup and a resource name and describe a field alike — and `invoke` over plain values. Thin
 * adapters call it: the plugin's Invoke (plugin/provider.ts), and the TypeScript package's functions
 * (functions/direct.ts over the API client, functions/invoked.ts through the plugin). schema.json's
 * `functions` (scripts/generate-schema.ts) derive from the same schemas.
 *
 * As a resource core, a function never imports `@pulumi/pulumi` and never reads configuration: the
 * adapter hands it a client. A result holds no secret: the API returns none to a lookup.
 */
import type { z } from "zod";
import type { EnvironmentsClient } from "../../client/client";
import { isNotFound } from "../../client/errors";
import { validationIssues } from "../../client/issues";
import { InvalidInputError } from "./errors";
import { propertyMeta } from "./resource-schema";

export interface FunctionCore<Args extends z.ZodObject = z.ZodObject, Result extends z.ZodObject = z.ZodObject> {
  /** The function's name in the package: `getEnvironment` is `gemini-environments:index:getEnvironment`. */
  readonly name: string;
  /** What it looks up and what it returns, for schema.json and every language's docs. */
  readonly description: string;
  readonly args: Args;
  readonly result: Result;
  /**
   * Looks it up. Throws `InvalidInputError` whose issues name the argument at fault (an unknown id,
   * a path that is a directory), with what to check; any other error is the API's or the network's.
   */
  invoke(client: EnvironmentsClient, args: z.infer<Args>): Promise<z.infer<Result>>;
}

/** A function's call: the arguments checked against its schema (`InvalidInputError` naming each one at fault), then `invoke`. */
export async function callFunction<Args extends z.ZodObject, Result extends z.ZodObject>(
  core: FunctionCore<Args, Result>,
  client: () => EnvironmentsClient,
  args: unknown,
): Promise<z.infer<Result>> {
  const parsed = core.args.safeParse(args ?? {});
  if (!parsed.success) throw new InvalidInputError(validationIssues(parsed.error), { what: core.name });
  return core.invoke(client(), parsed.data);
}

/** A resource's property as a lookup returns it: its schema and meta, with a description of what the value says (not what a change of it does). */
export function described<Schema extends z.ZodType>(schema: Schema, description: string): Schema {
  return schema.meta({ ...propertyMeta(schema), description }) as Schema;
}

/** The API's answer; its 404 becomes `notFound()`, an error that names the argument and what to check. */
export async function orNotFound<T>(answer: Promise<T>, notFound: () => Error): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    if (isNotFound(error)) throw notFound();
    throw error;
  }
}
