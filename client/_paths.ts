/**
 * URL path segments for environment ids and file paths. Private to the client.
 *
 * The official client encodes a file path with `encodeURIComponent` and then puts `? # & = + …` back
 * literally, so `q?x=1` starts a query string and `h#frag` loses its tail; it keeps a leading `/` and lets
 * the URL parser resolve `..`. Here each segment is percent-encoded on its own and joined with literal
 * slashes, a leading `/` is stripped, and `.`/`..` segments are refused: the request line says exactly
 * which file is meant, and the dispatcher sends it verbatim (no WHATWG normalisation).
 */
import { ValidationError } from "./errors";
import { issueAt } from "./issues";

const PREFIX = "environments/";
const CREDENTIAL_PREFIX = "credentials/";
const MAX_PAGE_SIZE = 1000;

/** `env_abc` from `env_abc` or `environments/env_abc`, percent-encoded for one path segment. */
export function environmentSegment(id: string, field: string): string {
  const bare = typeof id === "string" && id.startsWith(PREFIX) ? id.slice(PREFIX.length) : id;
  if (typeof bare !== "string" || bare.length === 0) {
    throw new ValidationError("environment id", [issueAt([field], "empty", "is empty: give an id such as env_abc123 or environments/env_abc123")]);
  }
  if (bare.includes("/")) {
    throw new ValidationError("environment id", [issueAt([field], "invalid-id", `${JSON.stringify(id)} is not an environment id such as env_abc123`)]);
  }
  return encodeURIComponent(bare);
}

/** `workspace/src/main.py` as a path with literal slashes and each segment percent-encoded. */
export function filePathSegments(path: string, field: string): string {
  if (typeof path !== "string") throw new ValidationError("file path", [issueAt([field], "invalid-type", "must be a string")]);
  const relative = path.replace(/^\/+/, "");
  if (relative.includes("\0")) throw new ValidationError("file path", [issueAt([field], "nul-character", "contains a NUL character")]);
  const segments = relative === "" ? [] : relative.split("/");
  if (segments.some((segment) => segment === "." || segment === "..")) {
    throw new ValidationError("file path", [issueAt([field], "dot-segment", `${JSON.stringify(path)} has "." or ".." segments: give the path from the environment root`)]);
  }
  return segments.map(encodeURIComponent).join("/");
}

/** `?a=1&b=x%20y` from the defined entries, in order; empty when none. */
export function queryString(entries: ReadonlyArray<readonly [string, string | number | boolean | undefined]>): string {
  const parts = entries
    .filter((entry): entry is readonly [string, string | number | boolean] => entry[1] !== undefined)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  return parts.length > 0 ? `?${parts.join("&")}` : "";
}

/** `gh-token` from `gh-token` or `credentials/gh-token`, percent-encoded for one path segment. */
export function credentialSegment(id: string, field: string): string {
  const bare = typeof id === "string" && id.startsWith(CREDENTIAL_PREFIX) ? id.slice(CREDENTIAL_PREFIX.length) : id;
  if (typeof bare !== "string" || bare.length === 0) {
    throw new ValidationError("credential id", [issueAt([field], "empty", "is empty: give an id such as gh-token or credentials/gh-token")]);
  }
  if (bare.includes("/")) {
    throw new ValidationError("credential id", [issueAt([field], "invalid-id", `${JSON.stringify(id)} is not a credential id such as gh-token`)]);
  }
  return encodeURIComponent(bare);
}

/** A list call's `page_size`, checked: 1–1000, or undefined for the server's default. */
export function pageSize(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw new ValidationError("list request", [issueAt(["pageSize"], "out-of-range", `must be an integer from 1 to ${MAX_PAGE_SIZE} (got ${value})`)]);
  }
  return value;
}
