/**
 * `gcs` sources: `gs://bucket[/prefix]` (or `gcs://…`), read through the Cloud Storage JSON API with
 * `@google-cloud/storage`.
 *
 * - The prefix is a directory: the objects under `prefix/` land under `target` (default: the
 *   prefix's last segment, or the bucket's name without a prefix — as `gcloud storage cp -r` names
 *   the copy), with the prefix stripped and nested paths kept. When nothing lies under `prefix/`
 *   but an object named exactly `prefix` exists, that one object is copied as a file (default
 *   target: its last segment).
 * - Objects whose name ends in `/` (the console's "folder" placeholders) are skipped. An object
 *   name with an empty, `.` or `..` segment, a backslash or a NUL refuses the whole source, as does
 *   an object that would need to be both a file and a directory (`p/a` and `p/a/b`).
 * - Objects land as stored (no gzip transcoding), so their sizes are known before anything is
 *   downloaded and the environment's file and byte limits are checked first.
 * - Where: `gcsEndpoint` (`genv serve --gcs-endpoint`), else `STORAGE_EMULATOR_HOST`, read as
 *   Google's Go and Python clients read it (`host:port` or `http://host:port`; unauthenticated);
 *   else storage.googleapis.com with Google's application default credentials.
 * - A listing or download that fails or takes longer than the timeout (default 60 s for the whole
 *   source) is a 400 FAILED_PRECONDITION naming `sources[i].source` and the reason.
 *
 * LIMITATIONS: live object versions only (no `#generation`); no requester-pays (`userProject`);
 * object metadata (content type, custom metadata) is dropped and files are mode 0644; no retries of
 * transient errors (the create fails and may be retried); a prefix holding only placeholders
 * matches nothing.
 */
import { createWriteStream } from "node:fs";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Bucket, File, Storage } from "@google-cloud/storage";
import { pathLengthProblem, targetPathProblem, type Source } from "../../client/schemas";
import { ensureDirectories } from "./_build-dirs";
import { HttpError, invalidArgument } from "../errors";
import { spend, type Budget } from "./_copy";

export const GCS_DEFAULTS = {
  timeoutMs: 60_000, // 60 s for one source: the listing and every download
  concurrency: 8, // downloads at once
  pageSize: 1000, // objects per listing page
} as const;

const GOOGLE_STORAGE = "https://storage.googleapis.com";

export interface GcsOptions {
  /** Base URL of a Cloud Storage JSON API, e.g. `http://127.0.0.1:4443` (no auth); default: Google's, with ADC. */
  endpoint?: string;
  /** Limit on one source, listing and downloads together. Default 60 s. */
  timeoutMs?: number;
}

interface GcsLocation {
  bucket: string;
  /** Without leading or trailing `/`; empty for the whole bucket. */
  prefix: string;
  /** Default target. */
  name: string;
}

type Stage = "list" | "download";

interface PlannedObject {
  file: File;
  /** Path below the target. */
  relative: string;
  size: number;
}

const URL_SHAPE = /^(?:gs|gcs):\/\/([^/]*)(?:\/(.*))?$/;
// Cloud Storage bucket names: 3–222 characters of lowercase letters, digits, '-', '_' and '.', starting and ending alphanumeric.
const BUCKET = /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/;

export function parseGcs(source: string, field: string): GcsLocation {
  const match = URL_SHAPE.exec(source);
  if (!match) throw invalidArgument(`${field}: "${source}" is not a Cloud Storage URL; use gs://bucket/prefix`);
  const [, bucket, rest] = match;
  if (!BUCKET.test(bucket)) throw invalidArgument(`${field}: "${bucket}" is not a bucket name (3-222 characters: a-z, 0-9, '-', '_', '.')`);
  const prefix = (rest ?? "").replace(/\/+$/, "");
  if (prefix) {
    const problem = targetPathProblem(prefix);
    if (problem) throw invalidArgument(`${field}: prefix ${problem}`);
  }
  return { bucket, prefix, name: prefix ? path.posix.basename(prefix) : bucket };
}

/**
 * The JSON API's base URL from `gcsEndpoint` or `STORAGE_EMULATOR_HOST`, as Google's Go and Python
 * clients read the variable: a bare `host:port` means http, a trailing `/storage/v1` is dropped.
 * Throws on anything that is not an http(s) URL.
 */
export function normaliseGcsEndpoint(value: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  const url = URL.canParse(withScheme) ? new URL(withScheme) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new Error(`gcsEndpoint: "${value}" is not an http(s) URL, e.g. http://127.0.0.1:4443`);
  }
  return withScheme.replace(/\/+$/, "").replace(/\/storage\/v1$/, "");
}

export async function materializeGcs(source: Source, index: number, root: string, options: GcsOptions, budget: Budget): Promise<void> {
  const field = `sources[${index}].source`;
  const targetField = `sources[${index}].target`;
  const location = parseGcs(source.source!, field);
  const timeoutMs = options.timeoutMs ?? GCS_DEFAULTS.timeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const display = `gs://${location.bucket}${location.prefix ? `/${location.prefix}` : ""}`;
  let stage: Stage = "list";
  try {
    const storage = await client(options.endpoint, timeoutMs);
    const bucket = storage.bucket(location.bucket);
    const trial = { ...budget }; // the limits are checked on the listing, before anything is downloaded
    const target = source.target ?? location.name;
    let objects = await withDeadline(list(bucket, location.prefix, field, trial), deadline);
    let base: string | undefined;
    if (objects.length === 0 && location.prefix) {
      // Nothing under prefix/: perhaps the prefix names one object, copied as a file to target.
      const single = bucket.file(location.prefix);
      const [metadata] = await withDeadline(single.getMetadata(), deadline).catch((error) => {
        if ((error as { code?: unknown }).code === 404) return [undefined];
        throw error;
      });
      if (metadata) {
        objects = [{ file: single, relative: target, size: Number(metadata.size ?? 0) }];
        spend(trial, objects[0].size);
        base = root;
      }
    }
    if (objects.length === 0) throw new HttpError("FAILED_PRECONDITION", `${field}: "${display}" matches no objects`);
    checkLayout(objects, field, location.prefix);
    base ??= await ensureDirectories(root, target.split("/"), targetField);
    stage = "download";
    await download(objects, base, base === root ? "" : target, budget, targetField, deadline);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw fetchError(display, error, stage, deadline.aborted ? timeoutMs : undefined, options.endpoint, field);
  }
}

async function client(endpoint: string | undefined, timeoutMs: number): Promise<Storage> {
  const { Storage } = await import("@google-cloud/storage"); // heavy: loaded on the first gcs source
  // No retries: the library's retries run on timers that outlive a give-up at the deadline (they
  // would keep calling the endpoint after the 400 is sent); a failed create is the client's to retry.
  // Each request's own timeout is a little longer than the deadline, which always wins.
  const storage = new Storage({
    ...(endpoint ? { apiEndpoint: endpoint } : {}),
    timeout: timeoutMs + 1_000,
    retryOptions: { autoRetry: false, maxRetries: 0 },
  });
  // The library takes STORAGE_EMULATOR_HOST, when set, verbatim as the JSON API's base URL (no
  // /storage/v1, unlike Google's other clients: googleapis/nodejs-storage#1314); use the normalised one.
  if (endpoint) storage.baseUrl = `${endpoint}/storage/v1`;
  return storage;
}

/** The objects under `prefix/`, page by page, stopping as soon as there are more than the budget allows. */
async function list(bucket: Bucket, prefix: string, field: string, trial: Budget): Promise<PlannedObject[]> {
  const listPrefix = prefix ? `${prefix}/` : "";
  const objects: PlannedObject[] = [];
  let pageToken: string | undefined;
  do {
    const [files, next] = await bucket.getFiles({ prefix: listPrefix, autoPaginate: false, maxResults: GCS_DEFAULTS.pageSize, pageToken });
    for (const file of files) {
      const relative = file.name.slice(listPrefix.length);
      if (relative === "" || relative.endsWith("/")) continue; // a "folder" placeholder
      const problem = objectNameProblem(relative);
      if (problem) throw invalidArgument(`${field}: object "${file.name}" ${problem}; such objects are refused`);
      const size = Number(file.metadata.size ?? 0);
      spend(trial, size);
      objects.push({ file, relative, size });
    }
    pageToken = (next as { pageToken?: string } | null)?.pageToken;
  } while (pageToken);
  return objects;
}

function objectNameProblem(relative: string): string | undefined {
  if (relative.includes("\0")) return "contains a NUL character";
  if (relative.includes("\\")) return "contains a backslash";
  const tooLong = pathLengthProblem(relative.split("/"));
  if (tooLong) return tooLong;
  for (const segment of relative.split("/")) {
    if (segment === "") return "has an empty path segment";
    if (segment === "." || segment === "..") return `has a "${segment}" path segment`;
  }
  return undefined;
}

/** No object may be both a file and a directory (`a` and `a/b`). */
function checkLayout(objects: readonly PlannedObject[], field: string, prefix: string): void {
  const files = new Set(objects.map((object) => object.relative));
  const full = (relative: string) => (prefix ? `${prefix}/${relative}` : relative);
  for (const object of objects) {
    const segments = object.relative.split("/");
    for (let depth = 1; depth < segments.length; depth++) {
      const parent = segments.slice(0, depth).join("/");
      if (files.has(parent)) throw invalidArgument(`${field}: object "${full(parent)}" is a file, but "${full(object.relative)}" needs it to be a directory`);
    }
  }
}

async function download(objects: readonly PlannedObject[], base: string, target: string, budget: Budget, targetField: string, deadline: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < objects.length && !deadline.aborted) {
      const object = objects[next++];
      const segments = object.relative.split("/");
      const directory = segments.length > 1 ? await ensureDirectories(base, segments.slice(0, -1), targetField) : base;
      const destination = path.join(directory, segments[segments.length - 1]);
      let received = 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          done(received > object.size ? new Error(`object "${object.file.name}" is longer than its listed ${object.size} bytes`) : null, chunk);
        },
      });
      try {
        await pipeline(object.file.createReadStream({ decompress: false }), count, createWriteStream(destination, { flags: "wx", mode: 0o644 }), { signal: deadline });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") {
          throw invalidArgument(`${targetField}: "${target ? `${target}/` : ""}${object.relative}" already exists in the environment`);
        }
        throw error;
      }
      spend(budget, received);
    }
  };
  await Promise.all(Array.from({ length: Math.min(GCS_DEFAULTS.concurrency, objects.length) }, worker));
  if (deadline.aborted) throw deadline.reason;
}

function withDeadline<T>(promise: Promise<T>, deadline: AbortSignal): Promise<T> {
  if (deadline.aborted) return Promise.reject(deadline.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadline.reason);
    deadline.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => deadline.removeEventListener("abort", onAbort));
  });
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNABORTED"]);

function fetchError(display: string, error: unknown, stage: Stage, timedOutAfterMs: number | undefined, endpoint: string | undefined, field: string): HttpError {
  const prefix = `${field}: cannot read "${display}"`;
  const where = endpoint ?? GOOGLE_STORAGE;
  if (timedOutAfterMs !== undefined) {
    return new HttpError("FAILED_PRECONDITION", `${prefix}: Cloud Storage at ${where} took longer than ${timedOutAfterMs / 1000} s`, { cause: error });
  }
  const failure = error as { code?: unknown; message?: string; cause?: { code?: unknown } };
  const code = typeof failure.code === "string" ? failure.code : typeof failure.cause?.code === "string" ? failure.cause.code : failure.code;
  const message = String(failure.message ?? error);
  let reason: string;
  if (typeof code === "string" && NETWORK_CODES.has(code)) {
    reason = `cannot reach Cloud Storage at ${where} (${code})${endpoint ? "" : "; for a local emulator set STORAGE_EMULATOR_HOST or --gcs-endpoint"}`;
  }
  else if (code === 404) reason = stage === "list" ? "no such bucket" : `an object disappeared while it was copied (${firstLine(message)})`;
  else if (code === 401 || code === 403) {
    reason = `permission denied${endpoint ? "" : " (Google application default credentials: GOOGLE_APPLICATION_CREDENTIALS or gcloud auth application-default login)"}: ${firstLine(message)}`;
  } else if (/default credentials/i.test(message)) reason = `no Google credentials: set GOOGLE_APPLICATION_CREDENTIALS or run gcloud auth application-default login`;
  else reason = firstLine(message);
  return new HttpError("FAILED_PRECONDITION", `${prefix}: ${reason}`, { cause: error });
}

function firstLine(message: string): string {
  return (message.split("\n").map((line) => line.trim()).find(Boolean) ?? message).slice(0, 300);
}
