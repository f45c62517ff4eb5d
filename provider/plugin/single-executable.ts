/**
 * The entry of the Linux plugins as single executables (Node.js SEA, made by scripts/pack-plugin): a
 * Node.js binary with this script injected. It runs main.js from the files beside the executable
 * (the plugin tarball's dist/ and node_modules/), as the Node.js launcher does, so the plugin is the
 * same code either way: an injected script's own `require` reaches Node's built-in modules only,
 * so the plugin is loaded through a `require` rooted at the executable's directory.
 */
import { createRequire } from "node:module";
import * as path from "node:path";

createRequire(path.join(path.dirname(process.execPath), "package.json"))("./dist/provider/plugin/main.js");
