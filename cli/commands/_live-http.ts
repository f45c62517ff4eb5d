/**
 * `genv hooks diff --http live`: HTTP hooks of a replay POSTed from this machine, straight to the
 * handler's URL with its own headers — not through an environment's egress proxy, so no allowlist
 * check and no injected credential (an endpoint that needs one answers 401, and the hook fails open).
 */
import { request } from "undici";
import type { HttpDeliverer } from "../../hooks/runtime";

const MAX_ANSWER_BYTES = 1024 * 1024; // as the egress proxy keeps

export const liveHttp: HttpDeliverer = async ({ url, headers, timeoutSeconds, body }) => {
  try {
    const response = await request(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text.slice(0, MAX_ANSWER_BYTES) };
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError" ? `no answer within ${timeoutSeconds} s` : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    return { failure: `not delivered: POST ${url}: ${reason}` };
  }
};
