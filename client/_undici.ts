/**
 * The two parts of undici the client uses, loaded from their own modules: undici's index also loads
 * fetch, WebSocket, cookies, caches and mocks, which the client never uses, and that took about 30 ms
 * at every start of a plugin or a `genv` command (half of undici's load). They are the very objects
 * undici's index exports (test/unit/client/undici-parts.test.ts).
 */
import type { Agent as UndiciAgent, Dispatcher } from "undici";

/** undici's `Agent`. */
export const Agent = require("undici/lib/dispatcher/agent") as typeof UndiciAgent;

const requestMethod = require("undici/lib/api/api-request") as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/**
 * `dispatcher.request(options)` through undici's own `request`, which undici's index mixes into every
 * dispatcher: here it works with any dispatcher, a caller's `ProxyAgent` or `MockAgent` included.
 */
export function request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return requestMethod.call(dispatcher, options);
}
