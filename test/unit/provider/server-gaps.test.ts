/**
 * The plugin patches @pulumi/pulumi's private provider server (provider/plugin/server-gaps.ts), so it
 * runs only where that is tested, and says so at start when the server is not the one it patches:
 * - the peer range starts at the version the suite runs (devDependencies) and scripts/e2e-node22 runs
 *   the plugin's e2e files again on the newest release, so both ends of the range are tested;
 * - a server of another shape (a method gone, no addService) stops it with an error naming the
 *   version found and the supported range. A real SDK of another shape cannot be had here: the
 *   shapes are made by hand, over the real @grpc/grpc-js server the SDK uses.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { serveWithGaps, UnsupportedPulumiSdkError } from "../../../provider/plugin/server-gaps";
import type { PluginProvider } from "../../../provider/plugin/provider";

const root = path.resolve(__dirname, "../../..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string>; peerDependencies: Record<string, string> };
const installed = (JSON.parse(fs.readFileSync(path.join(root, "node_modules/@pulumi/pulumi/package.json"), "utf8")) as { version: string }).version;
const grpc = require(require.resolve("@grpc/grpc-js", { paths: [path.join(root, "node_modules/@pulumi/pulumi")] })) as typeof import("@grpc/grpc-js");
const { ResourceProviderService } = require("@pulumi/pulumi/proto/provider_grpc_pb") as { ResourceProviderService: import("@grpc/grpc-js").ServiceDefinition };
/** grpc's own addService, taken before any patch: the patch is a function named addService too, so only identity tells them apart. */
const grpcAddService = grpc.Server.prototype.addService;

const provider = {} as PluginProvider;
const handler = () => undefined;
const fullImplementation = { configure: handler, checkConfig: handler, diff: handler, read: handler, update: handler, create: handler };

test("the peer range starts at the @pulumi/pulumi the suite runs, and the Node.js 22 step runs the newest", () => {
  expect(manifest.peerDependencies["@pulumi/pulumi"]).toBe(`^${manifest.devDependencies["@pulumi/pulumi"]}`);
  expect(installed).toBe(manifest.devDependencies["@pulumi/pulumi"]);
  expect(fs.readFileSync(path.join(root, "scripts/e2e-node22"), "utf8")).toContain('"@pulumi/pulumi@latest"');
});

test("a server of the patched shape is served with the gaps answered by the plugin, the patch gone once the service is registered", async () => {
  let served: Record<string, unknown> | undefined;
  let afterRegistering: unknown;
  // What reaches the real addService (serveWithGaps wraps whatever is there): the SDK's implementation with our five methods over it.
  grpc.Server.prototype.addService = function capture(this: import("@grpc/grpc-js").Server, service, implementation) {
    served = implementation as Record<string, unknown>;
    return grpcAddService.call(this, service, implementation);
  };
  const capture = grpc.Server.prototype.addService;
  try {
    await serveWithGaps(provider, async () => {
      new grpc.Server().addService(ResourceProviderService, fullImplementation);
      afterRegistering = grpc.Server.prototype.addService;
    });
  } finally {
    grpc.Server.prototype.addService = grpcAddService;
  }
  for (const method of ["configure", "checkConfig", "diff", "read", "update"]) expect(served?.[method]).not.toBe(handler);
  expect(served?.create).toBe(handler);
  expect(afterRegistering).toBe(capture);
});

test("a provider server without one of the patched methods stops the plugin at start, naming the version and the range", async () => {
  const { diff: _diff, ...withoutDiff } = fullImplementation;
  const serving = serveWithGaps(provider, async () => new grpc.Server().addService(ResourceProviderService, withoutDiff));
  await expect(serving).rejects.toThrow(UnsupportedPulumiSdkError);
  await expect(serveWithGaps(provider, async () => new grpc.Server().addService(ResourceProviderService, withoutDiff))).rejects.toThrow(
    `@pulumi/pulumi ${installed} (${path.join(root, "node_modules/@pulumi/pulumi")}) has no diff in its provider server, which this plugin patches: it supports @pulumi/pulumi ${manifest.peerDependencies["@pulumi/pulumi"]}`,
  );
  expect(grpc.Server.prototype.addService).toBe(grpcAddService); // restored
});

test("a server that never registers through addService is refused once serve returns", async () => {
  await expect(serveWithGaps(provider, async () => undefined)).rejects.toThrow(/serves without registering its service through grpc\.Server\.addService/);
  expect(grpc.Server.prototype.addService).toBe(grpcAddService); // restored
});
