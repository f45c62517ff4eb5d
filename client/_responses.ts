/**
 * Reading 2xx answers: a body parsed with its zod schema, and list pages followed by their tokens.
 * Private to the client.
 */
import type { z } from "zod";
import type { TextResponse } from "./_http";
import { UnexpectedResponseError } from "./errors";
import { describeIssues, validationIssues } from "./issues";

/** Pages of a list call, following `next_page_token` until it is absent or empty. */
export async function* pages<P extends { next_page_token?: string }>(fetchPage: (pageToken: string | undefined) => Promise<P>): AsyncGenerator<P> {
  let token: string | undefined;
  const seen = new Set<string>();
  do {
    const page = await fetchPage(token);
    yield page;
    token = page.next_page_token || undefined;
    if (token !== undefined) {
      if (seen.has(token)) {
        throw new UnexpectedResponseError(`the server returned page token ${JSON.stringify(token)} twice; stopping to avoid a loop`, 200, "");
      }
      seen.add(token);
    }
  } while (token !== undefined);
}

/** Parses a 2xx body with `schema`; an empty body counts as `{}` (DELETE). */
export function parse<S extends z.ZodType>(schema: S, response: TextResponse, operation: string): z.infer<S> {
  let json: unknown;
  try {
    json = response.text.trim() === "" ? {} : JSON.parse(response.text);
  } catch (cause) {
    throw new UnexpectedResponseError(`${operation}: the response body is not JSON`, response.statusCode, response.text, [], { cause });
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issues = validationIssues(result.error);
    throw new UnexpectedResponseError(
      `${operation}: the response is not the documented shape: ${describeIssues(issues)}`,
      response.statusCode,
      response.text,
      issues,
    );
  }
  return result.data;
}

