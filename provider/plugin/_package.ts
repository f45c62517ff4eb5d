/**
 * The plugin's own package: its root (three levels above dist/provider/plugin, where package.json and
 * schema.json are) and its version, read once. Loads nothing else, so the compile cache can use it
 * before any other module loads.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

export const PACKAGE_ROOT = path.resolve(__dirname, "..", "..", "..");

let version: string | undefined;

/** `version` of the package's package.json. Throws when it cannot be read. */
export function packageVersion(): string {
  return (version ??= (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version);
}
