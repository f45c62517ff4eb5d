/**
 * Starting and stopping the local Environments API: the store, the trees and the HTTP handler.
 */
import { createServer, type Server } from "node:http";
import { promises as fs } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createHandler, routes, Uploads, type RequestLogEntry } from "./api";
import { FaultInjector, parseFaultSpec, type FaultSpec } from "./api/faults";
import { EgressProxy, sweepSocketDirectories, type CredentialResolver } from "./egress";
import { sandboxOwner } from "./sandbox";
import { credentialsKeySource } from "./services/credential-cipher";
import { CredentialsService } from "./services/credentials";
import { EnvironmentsService } from "./services/environments";
import { FilesService } from "./services/files";
import { RecordedCallsService } from "./services/recorded-calls";
import { ToolCallsService } from "./services/tool-calls";
import { normaliseGcsEndpoint } from "./sources/gcs";
import { Store } from "./store";
import { TreeStore } from "./trees";
import { finishInterruptedMerges } from "./trees/extract";

export interface EmulatorOptions {
  /** Echoed specs one ListEnvironments page holds at most (default 64 MiB; at least one environment a page). */
  maxPageBytes?: number;
  /** Faults on purpose, e.g. `rate=0.2,seed=7` (see `faults.ts`); none by default. */
  faults?: string | FaultSpec;
  /** Where the database and file trees live. Ignored with `inMemory`. */
  dataDir?: string;
  /** A throwaway emulator: in-memory database, trees in a temporary directory removed on close. */
  inMemory?: boolean;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Accepted API keys; each sees only the environments it created. */
  apiKeys: readonly string[];
  /** Idle time after which an environment is `expired`. Default 7 days. */
  idleTtlMs?: number;
  /**
   * Regular files per environment: creation, uploads and tool calls (a call that leaves more has its
   * growth undone). Default 100,000.
   */
  maxFiles?: number;
  /** Bytes of regular files per environment, held as `maxFiles` is. Default 1 GiB. */
  maxBytes?: number;
  /** Default 256 MiB: a 1,000-file inline tree of 100 KiB files fits. */
  maxBodyBytes?: number;
  now?: () => number;
  onRequest?: (entry: RequestLogEntry) => void;
  onInternalError?: (error: unknown) => void;
  /**
   * Operator overrides of egress (`genv serve --egress-route HOST=URL`): a sandbox's traffic for HOST
   * goes to URL, e.g. `{"telemetry.example.com": "http://127.0.0.1:9000"}` — the only way to loopback.
   */
  egressRoutes?: Readonly<Record<string, string>>;
  /** Test only: extra PEM CAs the egress proxy trusts for upstream TLS (e.g. a local HTTPS upstream's). */
  egressUpstreamCa?: string | readonly string[];
  /** Reveals a credential an allowlist entry references, for the egress proxy to inject. Default: the stored credentials. */
  resolveCredential?: CredentialResolver;
  /**
   * AES-256-GCM key for stored credential secrets (32 bytes). Default: env `GENV_CREDENTIALS_KEY`
   * (base64), else `<dataDir>/credentials.key`, created with mode 0600 on first use.
   */
  credentialsKey?: Buffer;
  /**
   * Directory that `skill_registry` sources resolve in: `{"type": "skill_registry", "source":
   * "skills/my-skill"}` copies `<skillRegistryDir>/skills/my-skill`. Without it such sources are a 400.
   */
  skillRegistryDir?: string;
  /** Limit on each git command of a `repository` source. Default 60 s. */
  gitTimeoutMs?: number;
  /**
   * Cloud Storage JSON API that `gcs` sources read, without authentication — a local emulator such
   * as fake-gcs-server: `"http://127.0.0.1:4443"` (`host:port` means http). Default: env
   * `STORAGE_EMULATOR_HOST`, read at start, else storage.googleapis.com with Google's application
   * default credentials.
   */
  gcsEndpoint?: string;
  /** Limit on one `gcs` source, listing and downloads together. Default 60 s. */
  gcsTimeoutMs?: number;
  /** How long a resumable upload session may take from its start. Default 1 hour. */
  uploadSessionTtlMs?: number;
}

export const EMULATOR_DEFAULTS = {
  host: "127.0.0.1",
  port: 0,
  idleTtlMs: 7 * 24 * 3600 * 1000, // 7 days
  maxFiles: 100_000,
  maxBytes: 1024 ** 3, // 1 GiB
  maxBodyBytes: 256 * 1024 ** 2, // 256 MiB
} as const;

export interface RunningEmulator {
  /** `http://127.0.0.1:<port>`, what a client's base URL should be. */
  url: string;
  port: number;
  dataDir: string;
  service: EnvironmentsService;
  /** The egress proxy: pass `{proxy: egress, network, owner, envId}` as a sandbox call's `egress`. */
  egress: EgressProxy;
  /** Stored credentials; `credentials.reveal(owner, id)` decrypts one for the egress proxy. */
  credentials: CredentialsService;
  /** Resumable upload sessions in progress. */
  uploads: Uploads;
  /** The fault injector, when `faults` was given: `faults.dealt` counts what it did. */
  faults?: FaultInjector;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  if (options.apiKeys.length === 0) throw new Error("startEmulator: apiKeys must hold at least one key");
  if (options.credentialsKey !== undefined && options.credentialsKey.length !== 32) throw new Error("startEmulator: credentialsKey must be 32 bytes");
  const faults = options.faults === undefined ? undefined : new FaultInjector(typeof options.faults === "string" ? parseFaultSpec(options.faults) : options.faults);
  const gcsEndpoint = options.gcsEndpoint ?? process.env.STORAGE_EMULATOR_HOST;
  const now = options.now ?? Date.now;
  const limits = { maxFiles: options.maxFiles ?? EMULATOR_DEFAULTS.maxFiles, maxBytes: options.maxBytes ?? EMULATOR_DEFAULTS.maxBytes };
  const dataDir = options.inMemory ? await fs.mkdtemp(path.join(os.tmpdir(), "genv-")) : path.resolve(options.dataDir ?? ".genv-data");
  await fs.mkdir(dataDir, { recursive: true });

  const store = new Store(options.inMemory ? ":memory:" : path.join(dataDir, "environments.sqlite"));
  const trees = new TreeStore(dataDir, sandboxOwner());
  const credentialsKey = options.credentialsKey;
  const credentials = new CredentialsService(store, { key: credentialsKey ? () => credentialsKey : credentialsKeySource(dataDir), now });
  const egress = new EgressProxy({
    dataDir,
    routes: options.egressRoutes,
    upstreamCa: options.egressUpstreamCa,
    resolveCredential: options.resolveCredential ?? ((owner, id) => credentials.reveal(owner, id)),
  });
  const service = new EnvironmentsService(store, trees, {
    ...limits,
    idleTtlMs: options.idleTtlMs ?? EMULATOR_DEFAULTS.idleTtlMs,
    now,
    skillRegistryDir: options.skillRegistryDir && path.resolve(options.skillRegistryDir),
    gitTimeoutMs: options.gitTimeoutMs,
    gcsEndpoint: gcsEndpoint ? normaliseGcsEndpoint(gcsEndpoint) : undefined,
    gcsTimeoutMs: options.gcsTimeoutMs,
    afterDelete: (id) => egress.forget(id),
    maxPageBytes: options.maxPageBytes,
  });
  const files = new FilesService(service, trees, limits);
  const uploads = new Uploads(service, files, { sessionTtlMs: options.uploadSessionTtlMs, maxBytes: limits.maxBytes, dir: trees.uploadsDir, now });
  const recorded = new RecordedCallsService(store, service, now);
  const toolCalls = new ToolCallsService({ environments: service, trees, egress, limits, recorded });

  await trees.init();
  // After a crash: finish the extracts it interrupted, then sweep, then recount what may be stale.
  await finishInterruptedMerges(trees.uploadsDir, (id) => trees.treePath(id), trees.owner);
  await trees.sweep(store.allIds());
  await sweepSocketDirectories();
  await service.recountStale();
  uploads.init();

  const handler = createHandler(routes({ environments: service, files, credentials, uploads, toolCalls, recorded }), {
    apiKeys: new Set(options.apiKeys),
    maxBodyBytes: options.maxBodyBytes ?? EMULATOR_DEFAULTS.maxBodyBytes,
    onRequest: options.onRequest,
    onInternalError: options.onInternalError,
    faults,
  });
  const host = options.host ?? EMULATOR_DEFAULTS.host;
  const server = await listen(createServer(handler), options.port ?? EMULATOR_DEFAULTS.port, host);
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    dataDir,
    service,
    egress,
    credentials,
    uploads,
    faults,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await egress.close();
      await uploads.close();
      await trees.emptied();
      store.close();
      if (options.inMemory) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}
