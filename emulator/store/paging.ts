/**
 * Paging, written once for every listing: a page size as the API takes it, opaque page tokens, and
 * keyset pages in creation order — a token is a position (`seq`), so paging is stable while rows are
 * added and removed between pages.
 */
import { invalidArgument } from "../errors";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

/** `page_size` as the API reads it: 0 or absent is the default, more than the maximum is the maximum. */
export function pageSizeOf(pageSize: number | undefined): number {
  if (pageSize === undefined || pageSize === 0) return DEFAULT_PAGE_SIZE;
  if (pageSize < 0) throw invalidArgument(`page_size: must not be negative (got ${pageSize})`);
  return Math.min(pageSize, MAX_PAGE_SIZE);
}

/** A token for a position in the listing `kind`, e.g. `encodeToken("files", {env, dir, after})`. */
export function encodeToken(kind: string, value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ k: kind, ...value })).toString("base64url");
}

/** The position `encodeToken` put in a token of this `kind`; a 400 for anything else. */
export function decodeToken(token: string, kind: string): Record<string, unknown> {
  try {
    const value = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (value && typeof value === "object" && value.k === kind) return value;
  } catch {
    // fall through
  }
  throw invalidArgument("page_token: is not a token this server issued for this listing; start again without it");
}

/**
 * One page of a listing in creation order. `fetch(afterSeq, limit)` reads rows after a position;
 * `take(rows)` turns up to a page of them into the page's items, and may keep fewer (a prefix: a page
 * may also end on size). The token for the next page is there when rows are left.
 */
export function keysetPage<Row extends { seq: number }, Item>(
  kind: string,
  request: { pageSize: number | undefined; pageToken: string | undefined },
  fetch: (afterSeq: number, limit: number) => Row[],
  take: (rows: Row[]) => Item[],
): { items: Item[]; nextPageToken?: string } {
  const size = pageSizeOf(request.pageSize);
  const after = request.pageToken ? decodeToken(request.pageToken, kind).seq : 0;
  if (typeof after !== "number") throw invalidArgument("page_token: is not a token this server issued");
  const rows = fetch(after, size + 1);
  const items = take(rows.slice(0, size));
  if (rows.length <= items.length) return { items };
  return { items, nextPageToken: encodeToken(kind, { seq: rows[items.length - 1].seq }) };
}
