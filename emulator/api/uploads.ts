/**
 * File uploads, with Google's resumable protocol exactly as the official client speaks it
 * (SDK_WIRE §3.3):
 *
 *   PUT  /upload/{v}/environments/{env}/files/{path}?extract=&overwrite=   X-Goog-Upload-Command: start
 *     → 200, X-Goog-Upload-URL: http://host:port/upload/{v}/uploads/{session}, X-Goog-Upload-Status: active
 *   POST {X-Goog-Upload-URL}   X-Goog-Upload-Command: upload | upload, finalize   X-Goog-Upload-Offset: n
 *     → 200 (intermediate chunks: empty body) … final: {"files": [EnvironmentFile…]}
 *
 * - Chunks are appended to `<data>/tmp/uploads/<session>`: a partial upload is never a visible file.
 *   Finalize hands the staged file to `FilesService.upload`, which renames it into the tree
 *   (atomic) or unpacks it (`extract=true`). A finalize that fails ends the session; start again.
 * - `overwrite` defaults to false, as an unset proto3 bool: an existing file is 409 ALREADY_EXISTS.
 *   It is checked when the upload finalizes (the state that matters), and not at start, where the
 *   client would retry a 409 four times.
 * - The API key is checked on every chunk, and a session answers only the key that started it (404
 *   otherwise). Sessions live in memory for `sessionTtlMs` (default 1 h) from their start; expired
 *   ones and their staging files are swept every minute, and all of them are gone after a restart.
 * - Also understood: `X-Goog-Upload-Command: query` (status and bytes received) and `cancel`.
 * - Every reply carries `X-Goog-Upload-Status`, errors included: `active` while the session takes
 *   more chunks (after an intermediate chunk, and after a chunk refused for its offset, its length or
 *   an early finalize, which the client may send again), `final` once it is over (after a finalize,
 *   failed or not, and for a session that does not exist or belongs to another key). google-genai
 *   for Python re-sends a chunk whose reply lacks it, and stops at the first `final`, so a refused
 *   finalize (409 ALREADY_EXISTS, a 400 for an archive entry) reaches its caller at once.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { pathLengthProblem } from "../../client/schemas";
import { HttpError, invalidArgument, notFound } from "../errors";
import type { EnvironmentsService } from "../services/environments";
import type { FilesService } from "../services/files";
import { boolParam, decodeSegment, drain, header, sendJson, type RouteContext } from "./_request";

export interface UploadOptions {
  /** How long an upload session may take from its start. Default 1 hour. */
  sessionTtlMs?: number;
  /** Most bytes one environment may hold: a larger upload is refused at its start. */
  maxBytes: number;
  /** Where sessions stage their bytes (`TreeStore.uploadsDir`). */
  dir: string;
  now: () => number;
}

/** Google's resumable upload protocol: `active` while a session takes more chunks, `final` once it is over. */
export const UPLOAD_STATUS = "X-Goog-Upload-Status";

export const UPLOAD_DEFAULTS = {
  sessionTtlMs: 3600 * 1000, // 1 h
  sweepEveryMs: 60 * 1000, // 1 min
} as const;

interface Session {
  id: string;
  owner: string;
  environmentId: string;
  /** Destination path, split and decoded. */
  segments: string[];
  extract: boolean;
  overwrite: boolean;
  totalBytes: number;
  received: number;
  staging: string;
  expiresAtMs: number;
  busy: boolean;
}


export class Uploads {
  private readonly sessions = new Map<string, Session>();
  private readonly dir: string;
  private readonly ttlMs: number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly environments: EnvironmentsService,
    private readonly files: FilesService,
    private readonly options: UploadOptions,
  ) {
    this.dir = options.dir;
    this.ttlMs = options.sessionTtlMs ?? UPLOAD_DEFAULTS.sessionTtlMs;
  }

  init(): void {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), Math.min(this.ttlMs, UPLOAD_DEFAULTS.sweepEveryMs));
    this.sweeper.unref();
  }

  /** Ends expired sessions and removes their staged bytes. */
  async sweep(): Promise<void> {
    const now = this.options.now();
    for (const session of [...this.sessions.values()]) {
      if (session.expiresAtMs <= now && !session.busy) await this.end(session);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const session of [...this.sessions.values()]) await this.end(session);
  }

  get activeSessions(): number {
    return this.sessions.size;
  }

  async start(context: RouteContext, environment: string, rawPath: string): Promise<void> {
    const { request, response, owner, query } = context;
    const command = header(request, "x-goog-upload-command")?.trim().toLowerCase();
    if (command !== "start") throw invalidArgument(`X-Goog-Upload-Command: must be "start" to begin an upload (got ${JSON.stringify(command ?? "")})`);
    const protocol = header(request, "x-goog-upload-protocol");
    if (protocol !== undefined && protocol.toLowerCase() !== "resumable") throw invalidArgument(`X-Goog-Upload-Protocol: only "resumable" is supported`);
    const lengthHeader = header(request, "x-goog-upload-header-content-length");
    if (lengthHeader === undefined || !/^\d+$/.test(lengthHeader.trim())) {
      throw invalidArgument("X-Goog-Upload-Header-Content-Length: is required: the total number of bytes, e.g. 1024");
    }
    const totalBytes = Number(lengthHeader.trim());
    if (totalBytes > this.options.maxBytes) throw invalidArgument(`X-Goog-Upload-Header-Content-Length: ${totalBytes} bytes exceeds the environment limit of ${this.options.maxBytes}`);
    const extract = boolParam(query, "extract");
    const overwrite = boolParam(query, "overwrite");
    const segments = pathSegments(rawPath);
    if (segments.length === 0 && !extract) throw invalidArgument("path: is empty: give the file's path relative to the environment root, e.g. workspace/data.csv");

    const row = this.environments.writable(owner, decodeSegment(environment).replace(/^environments\//, ""));
    const id = randomBytes(16).toString("hex");
    const session: Session = {
      id,
      owner,
      environmentId: row.id,
      segments,
      extract,
      overwrite,
      totalBytes,
      received: 0,
      staging: path.join(this.dir, id),
      expiresAtMs: this.options.now() + this.ttlMs,
      busy: false,
    };
    await fs.mkdir(this.dir, { recursive: true });
    await fs.writeFile(session.staging, "", { mode: 0o644 });
    this.sessions.set(id, session);
    const version = context.request.url!.split("/")[2];
    response.writeHead(200, {
      "X-Goog-Upload-URL": `http://${request.headers.host}/upload/${version}/uploads/${id}`,
      "X-Goog-Upload-Status": "active",
      "X-Goog-Upload-Chunk-Granularity": "262144",
      "Content-Length": 0,
    });
    response.end();
  }

  async chunk(context: RouteContext, id: string): Promise<void> {
    const { request, response, owner } = context;
    const session = this.sessions.get(id);
    if (!session || session.owner !== owner || session.expiresAtMs <= this.options.now()) {
      await drain(request);
      throw notFound(`upload session ${id} not found or expired; start the upload again`);
    }
    if (session.busy) {
      await drain(request);
      response.setHeader(UPLOAD_STATUS, "active"); // the other request goes on
      throw new HttpError("ABORTED", `upload session ${id} is busy with another request`);
    }
    const commands = new Set((header(request, "x-goog-upload-command") ?? "").split(",").map((part) => part.trim().toLowerCase()).filter(Boolean));
    session.busy = true;
    try {
      if (commands.has("cancel")) {
        await drain(request);
        await this.end(session);
        response.writeHead(200, { "X-Goog-Upload-Status": "cancelled", "Content-Length": 0 }).end();
        return;
      }
      if (commands.has("query")) {
        await drain(request);
        response.writeHead(200, { "X-Goog-Upload-Status": "active", "X-Goog-Upload-Size-Received": String(session.received), "Content-Length": 0 }).end();
        return;
      }
      const unknown = [...commands].filter((command) => command !== "upload" && command !== "finalize");
      if (commands.size === 0 || unknown.length > 0) {
        await drain(request);
        response.setHeader(UPLOAD_STATUS, "active");
        throw invalidArgument(`X-Goog-Upload-Command: must be "upload", "upload, finalize", "finalize", "query" or "cancel" (got ${JSON.stringify(header(request, "x-goog-upload-command") ?? "")})`);
      }
      if (commands.has("upload")) await this.append(session, request, response);
      else await drain(request);
      if (!commands.has("finalize")) {
        response.writeHead(200, { [UPLOAD_STATUS]: "active", "X-Goog-Upload-Size-Received": String(session.received), "Content-Length": 0 }).end();
        return;
      }
      if (session.received !== session.totalBytes) {
        response.setHeader(UPLOAD_STATUS, "active");
        throw invalidArgument(`X-Goog-Upload-Command: finalize after ${session.received} of ${session.totalBytes} bytes; send the rest first`);
      }
      try {
        const files = await this.files.upload({ ...session, sizeBytes: session.totalBytes });
        response.setHeader(UPLOAD_STATUS, "final");
        sendJson(response, 200, { files });
      } finally {
        await this.end(session);
      }
    } catch (error) {
      // A reply that will say `final` (the HTTP layer's default for errors) ends the session for real.
      if (response.getHeader(UPLOAD_STATUS) !== "active") await this.end(session);
      throw error;
    } finally {
      session.busy = false;
    }
  }

  /** Appends the chunk at `X-Goog-Upload-Offset`; a refused chunk leaves the session open (`active`). */
  private async append(session: Session, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const offsetHeader = header(request, "x-goog-upload-offset");
    if (offsetHeader === undefined || !/^\d+$/.test(offsetHeader.trim()) || Number(offsetHeader) !== session.received) {
      await drain(request);
      response.setHeader(UPLOAD_STATUS, "active");
      throw invalidArgument(`X-Goog-Upload-Offset: expected ${session.received} (the bytes received so far), got ${JSON.stringify(offsetHeader ?? "")}`);
    }
    const handle = await fs.open(session.staging, "a");
    let size = 0;
    let tooMuch = false;
    try {
      for await (const chunk of request) {
        size += (chunk as Buffer).length;
        if (session.received + size > session.totalBytes) tooMuch = true;
        if (!tooMuch) await handle.write(chunk as Buffer);
      }
      if (tooMuch) {
        await handle.truncate(session.received);
        response.setHeader(UPLOAD_STATUS, "active");
        throw invalidArgument(`X-Goog-Upload-Offset: the chunk goes past the declared ${session.totalBytes} bytes (X-Goog-Upload-Header-Content-Length)`);
      }
    } finally {
      await handle.close();
    }
    session.received += size;
  }

  private async end(session: Session): Promise<void> {
    this.sessions.delete(session.id);
    await fs.rm(session.staging, { force: true });
  }
}

function pathSegments(rawPath: string): string[] {
  const segments = rawPath.split("/").filter((segment) => segment !== "").map(decodeSegment);
  for (const segment of segments) {
    if (segment === "." || segment === ".." || segment.includes("\0") || segment.includes("/") || segment.includes("\\")) {
      throw invalidArgument(`path: segment ${JSON.stringify(segment)} is not allowed; give a path relative to the environment root`);
    }
  }
  const tooLong = pathLengthProblem(segments);
  if (tooLong) throw invalidArgument(`path: ${tooLong}`);
  return segments;
}
