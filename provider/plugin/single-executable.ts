/**
 * The entry of the plugins as single executables (Node.js SEA, made by scripts/pack-plugin): a Node.js
 * binary with this script injected, bundled by esbuild with everything it loads (@pulumi/pulumi, gRPC,
 * zod, the cores), so that the executable needs no file beside it: an injected script's own `require`
 * reaches Node's built-in modules only. package.json, schema.json and the Terraform protocol's
 * definition are injected beside it as assets (contracts/package-identity.ts).
 *
 * One executable, two plugins: named `terraform-provider-…` (the Terraform provider's zip,
 * scripts/pack-terraform; `….exe` on Windows) it is the Terraform provider, else the Pulumi plugin.
 *
 * Terraform starts its provider's process three to five times per command, so the Terraform provider's
 * Linux executables start from a V8 startup snapshot: scripts/pack-plugin runs the bundle once (the
 * arm64 one under qemu-user) to load the cores and the protocol's definition, and injects the heap it
 * leaves. The Pulumi plugin's bundle cannot be snapshotted: @pulumi/pulumi loads @grpc/grpc-js as it
 * loads, which loads node:http2 and node:http, whose bindings Node.js 22 cannot serialize. Its Linux
 * executables carry the bundle's V8 code cache instead, so that a start neither parses nor compiles
 * the 12 MB bundle (a no-op preview of 50 environments within 1.05× the engine's floor: bench/fleet.ts).
 * A snapshot or a code cache is made by a Node.js of its own platform: the darwin and Windows
 * executables parse and run the bare bundle at each start.
 */
import * as path from "node:path";
import { startupSnapshot } from "node:v8";

function start(terraformProvider?: typeof import("../terraform/start")): void {
  if (!path.basename(process.execPath).startsWith("terraform-provider-")) require("./main");
  else (terraformProvider ?? (require("../terraform/start") as typeof import("../terraform/start"))).startTerraformProvider();
}

if (startupSnapshot.isBuildingSnapshot()) {
  const terraformProvider = require("../terraform/start") as typeof import("../terraform/start");
  terraformProvider.preloadTerraformProvider();
  startupSnapshot.setDeserializeMainFunction(() => start(terraformProvider));
} else {
  start();
}
