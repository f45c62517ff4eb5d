/**
 * `genv serve`: the local Environments API. Prints its base URL on stdout when ready (and the API
 * key when it generated one); logs one line per request on stderr.
 */
import { randomBytes } from "node:crypto";
import { Command, Option } from "commander";
import ms from "ms";
import type { RunningEmulator } from "../../emulator/server";
import type { RequestLogEntry } from "../../emulator/api";
import { FaultSpecError, parseFaultSpec, type FaultSpec } from "../../emulator/api/faults";
import { sandboxReadiness } from "../../emulator/sandbox";
import { CLIError } from "../errors";
import { loadEmulator } from "./load-emulator";

export interface ServeOptions {
  /** Default: the emulator's, 127.0.0.1. */
  host?: string;
  port: number;
  dataDir: string;
  apiKey: string[];
  inMemory: boolean;
  idleTtl: string;
  logFormat: "text" | "json";
  egressRoute: string[];
  skillRegistry?: string;
  gcsEndpoint?: string;
  faults?: string;
}

export function register(program: Command): void {
  program
    .command("serve")
    .description("run the local Environments API")
    .option("--host <host>", 'address to listen on (default: "127.0.0.1")')
    .option("--port <port>", "port; 0 picks a free one", parsePort, 8765)
    .addOption(new Option("--data-dir <dir>", "where the database and file trees live").env("GENV_DATA_DIR").default(".genv-data"))
    .addOption(new Option("--api-key <key>", "accepted API key (repeatable); one is generated when omitted").env("GENV_API_KEY").argParser(collect).default([]))
    .option("--in-memory", "throwaway run: nothing kept after exit", false)
    .option("--idle-ttl <duration>", "idle time before an environment expires, e.g. 30m, 7d", "7d")
    .option("--skill-registry <dir>", "directory that skill_registry sources resolve in, e.g. DIR/skills/my-skill")
    .option("--gcs-endpoint <url>", "Cloud Storage JSON API for gcs sources, e.g. http://127.0.0.1:4443 (default: $STORAGE_EMULATOR_HOST, else Google's)")
    .option("--egress-route <host=url>", "send sandbox traffic for HOST to URL, e.g. api.example.com=http://127.0.0.1:9000 (repeatable)", collect, [])
    .option("--faults <spec>", "inject faults, seeded: rate=0.2,seed=7[,kinds=429+503+500+reset-before+reset-after+slow][,routes=create+…][,retry-after=1][,delay=30s]")
    .addOption(new Option("--log-format <format>", "request log format").choices(["text", "json"]).default("text"))
    .action(async (options: ServeOptions) => {
      const { emulator, generatedKey } = await runServe(options, (line) => process.stderr.write(`${line}\n`));
      process.stdout.write(`${emulator.url}\n`);
      if (generatedKey) process.stdout.write(`GEMINI_API_KEY=${generatedKey}\n`);
      // The API works without a sandbox; tool calls then answer FAILED_PRECONDITION with this reason.
      void sandboxReadiness().then(
        (answer) => answer.runnable || process.stderr.write(`genv serve: tool calls cannot run here: ${answer.reason}\n`),
        (error: unknown) => process.stderr.write(`genv serve: could not check the sandbox: ${(error as Error).message}\n`),
      );
      const stop = () => void emulator.close().then(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}

export async function runServe(
  options: ServeOptions,
  log: (line: string) => void,
): Promise<{ emulator: RunningEmulator; generatedKey?: string }> {
  const { startEmulator } = loadEmulator("genv serve");
  const idleTtlMs = ms(options.idleTtl as ms.StringValue);
  if (typeof idleTtlMs !== "number" || !(idleTtlMs > 0)) {
    throw new CLIError(`--idle-ttl: "${options.idleTtl}" is not a duration; use e.g. 90s, 30m, 12h or 7d`);
  }
  const generatedKey = options.apiKey.length === 0 ? `genv-${randomBytes(16).toString("hex")}` : undefined;
  let faults: FaultSpec | undefined;
  try {
    faults = options.faults === undefined ? undefined : parseFaultSpec(options.faults);
  } catch (error) {
    if (error instanceof FaultSpecError) throw new CLIError(error.message);
    throw error;
  }
  const emulator = await startEmulator({
    faults,
    host: options.host,
    port: options.port,
    dataDir: options.dataDir,
    inMemory: options.inMemory,
    apiKeys: generatedKey ? [generatedKey] : options.apiKey,
    idleTtlMs,
    egressRoutes: parseEgressRoutes(options.egressRoute ?? []),
    skillRegistryDir: options.skillRegistry,
    gcsEndpoint: options.gcsEndpoint,
    onRequest: (entry) => log(formatLogLine(entry, options.logFormat)),
    onInternalError: (error) => log(`internal error: ${(error as Error)?.stack ?? String(error)}`),
  });
  return { emulator, generatedKey };
}

export function formatLogLine(entry: RequestLogEntry, format: "text" | "json"): string {
  if (format === "json") return JSON.stringify({ time: new Date().toISOString(), ...entry });
  return `${entry.method} ${entry.path} ${entry.status} ${entry.ms}ms`;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CLIError(`--port: "${value}" is not a port number (0-65535)`);
  return port;
}

/** `HOST=URL` pairs of `--egress-route`; the URLs are checked by the emulator. */
export function parseEgressRoutes(values: readonly string[]): Record<string, string> {
  const routes: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf("=");
    if (at <= 0 || at === value.length - 1) throw new CLIError(`--egress-route: "${value}" is not HOST=URL, e.g. api.example.com=http://127.0.0.1:9000`);
    routes[value.slice(0, at)] = value.slice(at + 1);
  }
  const { parseRoutes } = loadEmulator("genv serve");
  try {
    parseRoutes(routes);
  } catch (error) {
    throw new CLIError(`--egress-route: ${(error as Error).message}`);
  }
  return routes;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
