/**
 * `http2` in the Terraform provider's startup snapshot (lazy-builtin.ts), with its constants at once:
 * gRPC reads them as it loads. scripts/pack-plugin writes them beside the snapshot's script, as the
 * executable's own Node.js has them (`http2-constants.json`), before the snapshot is made.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { startupSnapshot } from "node:v8";
import { lazyBuiltin } from "./lazy-builtin";

export = lazyBuiltin("node:http2", startupSnapshot.isBuildingSnapshot() ? { constants: JSON.parse(readFileSync(path.join(__dirname, "http2-constants.json"), "utf8")) as unknown } : {});
