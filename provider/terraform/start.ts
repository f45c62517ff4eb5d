/**
 * Starting the provider as Terraform and OpenTofu run it (main.ts, or the single executable's startup
 * snapshot: plugin/single-executable.ts), and what a start needs loaded beforehand.
 */
import { prepareCodecs, serve, startedByTerraform, NOT_A_COMMAND } from "./server";

/** How often it looks whether Terraform is still its parent. */
const PARENT_CHECK_MS = 1_000;

export function startTerraformProvider(): void {
  if (!startedByTerraform()) {
    process.stderr.write(NOT_A_COMMAND);
    process.exitCode = 1;
    return;
  }
  // The provider (the schema, zod, the cores) loads once the handshake line is out, unless loaded already.
  serve(() => (require("./provider") as typeof import("./provider")).terraformProvider()).then(
    () => exitWithParent(),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * Loads, before any start, what each start needs and can be kept in a V8 startup snapshot: the
 * protocol's definition with its messages' codecs, the provider's cores, and gRPC's modules (the
 * built-in modules they load, HTTP/2's and TLS's, load at the start: plugin/snapshot-builtins). The
 * API's client is left to the first call that needs it; the calls that need no API are run once (warm-up.ts).
 * @public (required by plugin/single-executable.ts while its snapshot is made, which knip does not follow)
 */
export function preloadTerraformProvider(): void {
  const provider = require("./provider") as typeof import("./provider");
  provider.loadCores();
  prepareCodecs({ GetProviderSchema: provider.providerSchemaResponse() });
  require("@grpc/grpc-js");
  // The snapshot is made once the event loop is empty: after the warm-up's calls.
  (require("./warm-up") as typeof import("./warm-up")).warmUpCalls().catch((error: unknown) => {
    console.error("the warm-up of the Terraform provider's calls failed:", error);
    process.exit(1);
  });
}

/**
 * Terraform stops its providers through GRPCController.Shutdown; a Terraform killed (SIGKILL, a
 * cancelled CI job) tells them nothing, and the gRPC server would serve on: the plugin leaves once
 * it is orphaned (its parent is no longer the process that started it).
 */
function exitWithParent(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(1);
  }, PARENT_CHECK_MS).unref();
}
