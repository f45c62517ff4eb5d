/**
 * The entry of the Linux plugins as single executables (Node.js SEA, made by scripts/pack-plugin): a
 * Node.js binary with this script injected. It runs main.js from the files beside the executable
 * (the plugin tarball's dist/ and node_modules/), as the Node.js launcher does, so the plugin is the
 * same code either way: an injected script's own `require` reaches Node's built-in modules only,
 * so the plugin is loaded through a `require` rooted at the executable's directory.
 *
 * One executable, two plugins: named `terraform-provider-…` (the Terraform provider's zip,
 * scripts/pack-terraform) it is the Terraform provider, else the Pulumi plugin.
 *
 * Terraform starts its provider's process three to five times per command, so the executable of the
 * machine that packs it starts from a V8 startup snapshot: scripts/pack-plugin bundles this script
 * with the Terraform provider's code, runs it once to load the cores and the protocol's definition,
 * and injects the heap it leaves. A snapshot is made for one architecture: the other executables
 * inject this script alone and load everything from dist/ at each start.
 */
import * as path from "node:path";
import { startupSnapshot } from "node:v8";

function start(terraformProvider?: typeof import("../terraform/start")): void {
  // Required here, not above: Node.js warns when a snapshot is made with node:module loaded.
  const { createRequire } = require("node:module") as typeof import("node:module");
  const fromPackage = createRequire(path.join(path.dirname(process.execPath), "package.json"));
  if (!path.basename(process.execPath).startsWith("terraform-provider-")) fromPackage("./dist/provider/plugin/main.js");
  else if (terraformProvider) terraformProvider.startTerraformProvider();
  else fromPackage("./dist/provider/terraform/main.js");
}

if (startupSnapshot.isBuildingSnapshot()) {
  const terraformProvider = require("../terraform/start") as typeof import("../terraform/start");
  terraformProvider.preloadTerraformProvider();
  startupSnapshot.setDeserializeMainFunction(() => start(terraformProvider));
} else {
  start();
}
