// The stand-ins scripts/pack-plugin aliases `http`, `http2` and `tls` to in the Terraform provider's
// bundle: the same bundle runs without a snapshot (the darwin and Windows executables), where each must
// be the built-in module itself, not a stand-in.
import * as http from "node:http";
import * as http2 from "node:http2";
import * as tls from "node:tls";
import { types } from "node:util";

test.each([
  ["http", http.createServer],
  ["http2", http2.createSecureServer],
  ["tls", tls.createServer],
])("outside a snapshot's build, %s's stand-in is the built-in module", (name, createServer) => {
  const standIn = require(`../../../provider/plugin/snapshot-builtins/${name}`) as { createServer?: unknown; createSecureServer?: unknown };
  expect(types.isProxy(standIn)).toBe(false);
  expect(standIn.createSecureServer ?? standIn.createServer).toBe(createServer);
});
