/**
 * The native plugin `pulumi-resource-gemini-environments`: what `bin/pulumi-resource-gemini-environments`
 * runs. The engine starts it with its address as the argument; `provider.main` serves the provider
 * (provider.ts) over gRPC and prints the port, with the methods of `server-gaps.ts` answered by us.
 *
 * Loads only `@pulumi/pulumi/provider` and the adapter before the port is out (no zod: bench fleet's
 * start-up row); the Environment core, zod and the HTTP client right after it (warmUp), the rest on
 * the first call that needs it. From dist/ (the npm package's launcher) they are compiled once into
 * the user's cache on Node.js 22+ (_compile-cache.ts), which it then keeps bounded; the released
 * single executable carries its bundle's code cache instead (single-executable.ts).
 */
import { pruneCompileCache, savingCompiledCode } from "./_compile-cache"; // first: the compile cache is on before anything else loads
import { main } from "@pulumi/pulumi/provider";
import { pluginProvider, warmUp } from "./provider";
import { serveWithGaps } from "./server-gaps";
import { profiling, timedMethods } from "./_profile";
import { engineAddressOf, exitWhenEngineGone } from "../contracts/engine-watchdog";

// A killed engine leaves the plugin running in its own process group: it leaves on its own.
exitWhenEngineGone(engineAddressOf(process.argv.slice(2)));
// GENV_PROVIDER_PROFILE (_profile.ts): the component's own part of construct, timed apart from the server's wait for its outputs.
const provider = savingCompiledCode(profiling ? timedMethods(pluginProvider(), "component", ["construct"]) : pluginProvider());
serveWithGaps(provider, () => main(provider, process.argv.slice(2))).then(
  async () => {
    withoutSourceMapSupport();
    await warmUp();
    await pruneCompileCache().catch(() => undefined); // a cache it cannot tidy is no reason to fail a deploy
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);

/**
 * `provider.main` installs source-map-support, which then maps every stack @pulumi/pulumi formats: one
 * per promise it tracks (debuggablePromise), dozens for each component a construct registers, at
 * ≈ 125 µs a stack against ≈ 20 µs unmapped (3 ms per remote component), to positions in TypeScript
 * sources the package does not ship. Without it a stack names the shipped dist/*.js lines.
 * NODE_OPTIONS=--enable-source-maps maps them again, by Node.js itself, for whoever has the sources.
 */
function withoutSourceMapSupport(): void {
  (Error as { prepareStackTrace?: unknown }).prepareStackTrace = undefined;
}
