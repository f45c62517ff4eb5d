/**
 * The entry of the Linux plugins as single executables (Node.js SEA, made by scripts/pack-plugin): a
 * Node.js binary with this script injected. It runs main.js from the files beside the executable
 * (the plugin tarball's dist/ and node_modules/), as the Node.js launcher does, so the plugin is the
 * same code either way: an injected script's own `require` reaches Node's built-in modules only,
 * so the plugin is loaded through a `require` rooted at the executable's directory.
 *
 * One executable, two plugins: named `terraform-provider-…` (the Terraform provider's zip,
 * scripts/pack-terraform) it is the Terraform provider, else the Pulumi plugin.
 */
import { createRequire } from "node:module";
import * as path from "node:path";

const main = path.basename(process.execPath).startsWith("terraform-provider-") ? "./dist/provider/terraform/main.js" : "./dist/provider/plugin/main.js";
createRequire(path.join(path.dirname(process.execPath), "package.json"))(main);
