/**
 * Provider processes that leave when their engine is gone. The engine starts each provider plugin in
 * a process group of its own and passes it the engine's gRPC address as the first argument; when
 * the engine is killed (a cancelled CI job: SIGKILL to `pulumi`'s group), nothing tells the plugin,
 * and `@pulumi/pulumi`'s servers (`provider.main`, and the dynamic provider's host
 * `cmd/dynamic-provider`) serve on forever. Pulumi's Go language hosts poll the engine's health
 * every 5 minutes (`rpcutil.Healthcheck`); a killed deploy should leave nothing running within
 * seconds, so this polls a connect to the engine's address every second and exits once it is
 * refused: no process listens there any more.
 *
 * Used by the plugin (plugin/main.ts) and, loaded into the dynamic provider's host with our provider
 * module, by the dynamic provider (dynamic-adapter.ts): the host's `sh` wrapper exits with it.
 */
import * as net from "node:net";

/** Defaults: a connect every second, given 2 s to answer (a loaded machine is slow, not gone). */
const INTERVAL_MS = 1_000;
const CONNECT_TIMEOUT_MS = 2_000;

let watching = false;

/**
 * Exits the process (code 1) once a connect to `engineAddress` (`127.0.0.1:PORT`) is refused after
 * one succeeded. The timer is unref'd: it never keeps a process alive by itself. At most one
 * watchdog per process.
 */
export function exitWhenEngineGone(engineAddress: string | undefined, onGone: () => void = () => process.exit(1)): void {
  const match = /^(.*):(\d+)$/.exec(engineAddress ?? "");
  if (watching || !match) return;
  watching = true;
  const [, host, port] = match;
  // Gone means reached, then refused: a process started with an address nobody ever served (a test
  // talking to the plugin directly) is not a killed engine's.
  let seen = false;
  const check = () => {
    const socket = net.connect({ host, port: Number(port) });
    socket.setTimeout(CONNECT_TIMEOUT_MS);
    socket.once("connect", () => {
      seen = true;
      socket.destroy();
    });
    socket.once("timeout", () => socket.destroy());
    socket.once("error", (error: NodeJS.ErrnoException) => {
      socket.destroy();
      if (seen && error.code === "ECONNREFUSED") onGone();
    });
  };
  // At once: the engine is waiting on this process now (for the plugin's port, or the dynamic host's
  // answer to the call that loaded us), so the first connect finds it even if it is killed soon after.
  check();
  setInterval(check, INTERVAL_MS).unref();
}

/**
 * The engine's address among a provider's arguments: the first that is not a logging flag
 * (`--logtostderr`, `-v=9`, `--tracing URL` come first when the engine logs), as `@pulumi/pulumi`'s
 * own `parseArgs` finds it.
 */
export function engineAddressOf(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    if (args[index] === "--tracing") index += 1;
    else if (args[index] !== "--logtostderr" && !args[index].startsWith("-v=")) return args[index];
  }
  return undefined;
}

/** The engine's address when this process is the dynamic provider's host (Pulumi's `cmd/dynamic-provider`). */
export function dynamicProviderHostEngine(): string | undefined {
  const main = require.main?.filename ?? process.argv[1] ?? "";
  return /[\\/]cmd[\\/]dynamic-provider[\\/]index\.js$/.test(main) ? engineAddressOf(process.argv.slice(2)) : undefined;
}
