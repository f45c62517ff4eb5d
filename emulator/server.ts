/**
 * Starting and stopping the local Environments API: the store, the trees and the HTTP handler.
 */
import { createServer, type Server } from "node:http";
import { promises as fs } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createHandler, type RequestLogEntry, type Route } from "./http";
import { EnvironmentsService } from "./service";
import { EnvironmentStore } from "./store";
import { toolsRoute } from "./tools-route";
import { TreeStore } from "./trees";

export interface EmulatorOptions {
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
  /** Default 100,000 files. */
  maxFiles?: number;
  /** Default 1 GiB. */
  maxBytes?: number;
  /** Default 256 MiB: a 1,000-file inline tree of 100 KiB files fits. */
  maxBodyBytes?: number;
  now?: () => number;
  onRequest?: (entry: RequestLogEntry) => void;
  onInternalError?: (error: unknown) => void;
  /** Routes added by other parts of the emulator (tools, uploads, credentials). */
  extraRoutes?: (context: { service: EnvironmentsService; trees: TreeStore; dataDir: string }) => Route[];
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
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  if (options.apiKeys.length === 0) throw new Error("startEmulator: apiKeys must hold at least one key");
  const dataDir = options.inMemory
    ? await fs.mkdtemp(path.join(os.tmpdir(), "genv-"))
    : path.resolve(options.dataDir ?? ".genv-data");
  await fs.mkdir(dataDir, { recursive: true });

  const store = new EnvironmentStore(options.inMemory ? ":memory:" : path.join(dataDir, "environments.sqlite"));
  const trees = new TreeStore(dataDir);
  await trees.init();
  await trees.sweep(store.allIds());

  const service = new EnvironmentsService(store, trees, {
    idleTtlMs: options.idleTtlMs ?? EMULATOR_DEFAULTS.idleTtlMs,
    maxFiles: options.maxFiles ?? EMULATOR_DEFAULTS.maxFiles,
    maxBytes: options.maxBytes ?? EMULATOR_DEFAULTS.maxBytes,
    now: options.now ?? Date.now,
  });
  const server: Server = createServer(
    createHandler(service, {
      apiKeys: new Set(options.apiKeys),
      maxBodyBytes: options.maxBodyBytes ?? EMULATOR_DEFAULTS.maxBodyBytes,
      onRequest: options.onRequest,
      onInternalError: options.onInternalError,
      extraRoutes: [toolsRoute({ service, trees }), ...(options.extraRoutes?.({ service, trees, dataDir }) ?? [])],
    }),
  );
  const host = options.host ?? EMULATOR_DEFAULTS.host;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? EMULATOR_DEFAULTS.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    dataDir,
    service,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
      if (options.inMemory) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
