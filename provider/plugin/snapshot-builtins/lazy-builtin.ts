/**
 * Node.js built-in modules as the Terraform provider's startup snapshot takes them: scripts/pack-plugin
 * bundles the snapshot's script with `http`, `http2` and `tls` aliased to the modules beside this one,
 * so that gRPC's modules, which require those as they load, are loaded into the snapshot, not at each
 * of Terraform's 3-5 starts a command (their loading was 10 ms of each). Node.js 22 cannot put those
 * built-ins themselves into a snapshot ("Unknown external reference", "global handle not serialized"):
 * while the snapshot is made, each is a stand-in that loads the real module at its first use, at a
 * start; its `eager` members (http2's constants, which gRPC reads as it loads) are there at once.
 * Without a snapshot being made (the bundle run as it is, on darwin and Windows) it is the module itself.
 */
import { startupSnapshot } from "node:v8";

export function lazyBuiltin(name: string, eager: Record<string, unknown> = {}): unknown {
  if (!startupSnapshot.isBuildingSnapshot()) return require(name);
  let loaded: Record<string | symbol, unknown> | undefined;
  const real = () => (loaded ??= require(name) as Record<string | symbol, unknown>);
  return new Proxy(eager, {
    get: (target, key) => (key in target ? target[key as string] : real()[key]),
    has: (target, key) => key in target || key in real(),
  });
}
