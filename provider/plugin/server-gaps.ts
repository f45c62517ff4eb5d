/**
 * Five gRPC methods that `@pulumi/pulumi`'s provider server (`provider.main`, 3.248 to 3.276, the newest
 * release checked) cannot carry for us, answered here over the same server; every other method stays its own.
 *
 * - **Diff**: `DiffResult` (`@pulumi/pulumi/provider`) has `changes`, `replaces`, `stables` and
 *   `deleteBeforeReplace`, and the server copies all but `stables`: no `detailedDiff`. Without one
 *   the engine shows the inputs' object diff with no kinds, so a preview cannot say which property
 *   replaces and which updates. Our diff answers the same fields plus `detailedDiff`: every changed
 *   path (`sources[1].content`, `token`) with its kind (`UPDATE_REPLACE`, `UPDATE`, …).
 * - **Read** (a known defect): on `pulumi import` the engine sends a ReadRequest whose `properties` is
 *   nil, and the server's `req.getProperties().toJavaScript()` throws ("Cannot read properties of
 *   undefined"), so every import fails. Ours reads with no properties, and the core then derives the
 *   inputs from the API's answer (a read by id alone returns inputs as well as outputs).
 * - **Configure**: the server answers without looking at the request, so an explicit provider's
 *   `apiKey`/`baseUrl` would never arrive. Ours hands `args` to the provider, then answers as the
 *   server does (secrets, resources and output values accepted).
 * - **CheckConfig**: the server answers UNIMPLEMENTED, and the engine then stores a provider's
 *   inputs as given: a plain-text `apiKey` would sit in the state. Ours makes it secret.
 * - **Update** (and Diff and Read, for the same reason): the server hands the provider the old
 *   outputs only. The plugin's outputs hold the computed values only — the state keeps an
 *   environment's inputs once, not a second time in its outputs — so these need the request's old
 *   inputs too, which ours pass.
 *
 * Mechanism: `provider.main` builds a `grpc.Server` and registers its implementation with one
 * `addService` call; `serveWithGaps` wraps that one call (the same `@grpc/grpc-js` instance that
 * `@pulumi/pulumi` loads) to override these methods on the implementation, then restores
 * `addService`. Chosen over a gRPC server of our own, which would restate the other twenty methods
 * (construct above all) that `provider.main` already gets right.
 *
 * It reaches into the SDK's private server, so it checks that server's shape before serving: a server
 * that registers no service through `addService`, or lacks a method or message field used here,
 * stops the plugin at start with an error naming the `@pulumi/pulumi` version found and the range
 * the package supports (its peer range: the oldest, 3.248, is the suite's, the newest is what
 * scripts/e2e-node22 installs), instead of a plugin that half works.
 */
import * as path from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";
import type * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { PluginProvider, PropertyDiffKind } from "./provider";
import { profiling, timedHandlers } from "./_profile";
import { inSingleExecutable, packagedFile } from "../contracts/package-identity";

type Callback<T> = (error: Error | null, value?: T) => void;
type Handler<Req, Res> = (call: { request: Req }, callback: Callback<Res>) => void;

/** The calls that GENV_PROVIDER_PROFILE times (_profile.ts): the resource lifecycle and construct. */
const PROFILED_METHODS = ["check", "diff", "create", "read", "update", "delete", "construct"] as const;

const KIND: Record<PropertyDiffKind, provproto.PropertyDiff.Kind> = { add: 0, addReplace: 1, delete: 2, deleteReplace: 3, update: 4, updateReplace: 5 };

/** The methods answered here, as the service definition and the server's implementation name them. */
const GAPS = ["configure", "checkConfig", "diff", "read", "update"] as const;

/** The generated message accessors used here: `Message.prototype.method`. */
const MESSAGE_ACCESSORS = [
  ["ConfigureRequest", "getArgs"],
  ["ConfigureResponse", "setAcceptoutputs"],
  ["DiffRequest", "getOldInputs"],
  ["DiffResponse", "getDetaileddiffMap"],
  ["PropertyDiff", "setInputdiff"],
  ["ReadRequest", "getInputs"],
  ["ReadResponse", "setInputs"],
  ["UpdateRequest", "getOldInputs"],
] as const;

/** The server's shape is not the one patched: the plugin must not serve. */
export class UnsupportedPulumiSdkError extends Error {
  override name = "UnsupportedPulumiSdkError";
  readonly code = "GENV_UNSUPPORTED_PULUMI_SDK";
}

/** Runs `serve` (which calls `provider.main`) with the methods above answered by `provider`. */
export async function serveWithGaps(provider: PluginProvider, serve: () => Promise<void>): Promise<void> {
  const grpc = fromPulumi("@grpc/grpc-js") as typeof grpcTypes;
  checkMessages(require("@pulumi/pulumi/proto/provider_pb") as Record<string, { prototype?: object } | undefined>);
  const original = grpc.Server.prototype.addService;
  let patched = false;
  grpc.Server.prototype.addService = function addService(this: grpcTypes.Server, service, implementation) {
    grpc.Server.prototype.addService = original;
    checkService(service, implementation);
    patched = true;
    // The server's implementation stays the prototype: its other methods (and their `this`) as they are.
    const served = Object.assign(Object.create(implementation) as grpcTypes.UntypedServiceImplementation, gaps(provider));
    return original.call(this, service, profiling ? (timedHandlers(served, PROFILED_METHODS) as grpcTypes.UntypedServiceImplementation) : served);
  };
  try {
    await serve();
  } finally {
    grpc.Server.prototype.addService = original;
  }
  if (!patched) throw unsupported("serves without registering its service through grpc.Server.addService");
}

function checkMessages(proto: Record<string, { prototype?: object } | undefined>): void {
  const missing = MESSAGE_ACCESSORS.filter(([message, method]) => typeof (proto[message]?.prototype as Record<string, unknown> | undefined)?.[method] !== "function");
  if (missing.length > 0) throw unsupported(`has no ${missing.map(([message, method]) => `${message}.${method}`).join(", ")} in its provider protocol`);
}

function checkService(service: grpcTypes.ServiceDefinition, implementation: grpcTypes.UntypedServiceImplementation): void {
  const missing = GAPS.filter((method) => typeof implementation[method] !== "function" || !Object.hasOwn(service, method));
  if (missing.length > 0) throw unsupported(`has no ${missing.join(", ")} in its provider server`);
}

function unsupported(problem: string): UnsupportedPulumiSdkError {
  const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
  const { version } = require(path.join(pulumiDir, "package.json")) as { version: string };
  const supported = (JSON.parse(packagedFile("package.json")) as { peerDependencies: Record<string, string> }).peerDependencies["@pulumi/pulumi"];
  return new UnsupportedPulumiSdkError(
    `@pulumi/pulumi ${version} (${pulumiDir}) ${problem}, which this plugin patches: it supports @pulumi/pulumi ${supported}. Install a version in that range beside the package (npm install @pulumi/pulumi@"${supported}"), or use the plugin's release build, which carries its own.`,
  );
}

/**
 * The dependencies of `@pulumi/pulumi` used here, named statically for the single executable's bundle,
 * which holds one copy of each, the one `@pulumi/pulumi` loads (an injected script cannot resolve a path).
 */
const BUNDLED = {
  "@grpc/grpc-js": () => require("@grpc/grpc-js") as unknown,
  "google-protobuf/google/protobuf/struct_pb": () => require("google-protobuf/google/protobuf/struct_pb") as unknown,
};

/** A dependency of `@pulumi/pulumi` as it loads it (the same module instance), wherever npm put it. */
function fromPulumi(id: keyof typeof BUNDLED): unknown {
  if (inSingleExecutable()) return BUNDLED[id]();
  const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
  return require(require.resolve(id, { paths: [pulumiDir] }));
}

function gaps(provider: PluginProvider) {
  const proto = require("@pulumi/pulumi/proto/provider_pb") as typeof provproto;
  const { Struct } = fromPulumi("google-protobuf/google/protobuf/struct_pb") as typeof import("google-protobuf/google/protobuf/struct_pb");
  const answer = <Res>(callback: Callback<Res>, body: () => Promise<Res>) => {
    body().then(
      (response) => callback(null, response),
      (error: Error) => {
        console.error(`${error}: ${error.stack}`);
        callback(error);
      },
    );
  };

  const configure: Handler<provproto.ConfigureRequest, provproto.ConfigureResponse> = (call, callback) =>
    answer(callback, async () => {
      await provider.configure(call.request.getArgs()?.toJavaScript() ?? {});
      const response = new proto.ConfigureResponse();
      response.setAcceptsecrets(true);
      response.setAcceptresources(true);
      response.setAcceptoutputs(true);
      return response;
    });

  const checkConfig: Handler<provproto.CheckRequest, provproto.CheckResponse> = (call, callback) =>
    answer(callback, async () => {
      const { request } = call;
      const result = await provider.checkConfig(request.getUrn(), request.getOlds()?.toJavaScript() ?? {}, request.getNews()?.toJavaScript() ?? {});
      const response = new proto.CheckResponse();
      response.setInputs(Struct.fromJavaScript(result.inputs));
      response.setFailuresList((result.failures ?? []).map((failure) => new proto.CheckFailure().setProperty(failure.property).setReason(failure.reason)));
      return response;
    });

  const diff: Handler<provproto.DiffRequest, provproto.DiffResponse> = (call, callback) =>
    answer(callback, async () => {
      const { request } = call;
      const result = await provider.diff(
        request.getId(),
        request.getUrn(),
        request.getOlds()?.toJavaScript() ?? {},
        request.getNews()?.toJavaScript() ?? {},
        request.getOldInputs()?.toJavaScript(),
      );
      const response = new proto.DiffResponse();
      response.setChanges(result.changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
      response.setReplacesList(result.replaces ?? []);
      response.setDeletebeforereplace(result.deleteBeforeReplace ?? false);
      response.setDiffsList([...new Set(Object.keys(result.detailedDiff).map((property) => property.split(/[.[]/)[0]))]);
      response.setHasdetaileddiff(true);
      const detailed = response.getDetaileddiffMap();
      for (const [property, change] of Object.entries(result.detailedDiff)) {
        detailed.set(property, new proto.PropertyDiff().setKind(KIND[change.kind]).setInputdiff(change.inputDiff));
      }
      return response;
    });

  const read: Handler<provproto.ReadRequest, provproto.ReadResponse> = (call, callback) =>
    answer(callback, async () => {
      const { request } = call;
      // Nil on `pulumi import`: the engine knows only the id (see the module comment).
      const properties = request.getProperties()?.toJavaScript();
      const result = await provider.read(request.getId(), request.getUrn(), properties, request.getInputs()?.toJavaScript());
      const response = new proto.ReadResponse();
      response.setId(result.id ?? "");
      if (result.props !== undefined) response.setProperties(Struct.fromJavaScript(result.props));
      if (result.inputs !== undefined) response.setInputs(Struct.fromJavaScript(result.inputs));
      return response;
    });

  const update: Handler<provproto.UpdateRequest, provproto.UpdateResponse> = (call, callback) =>
    answer(callback, async () => {
      const { request } = call;
      const olds = request.getOlds()?.toJavaScript() ?? {};
      const result = await provider.update(request.getId(), request.getUrn(), olds, request.getNews()?.toJavaScript() ?? {}, request.getOldInputs()?.toJavaScript());
      return new proto.UpdateResponse().setProperties(Struct.fromJavaScript(result.outs ?? {}));
    });

  return { configure, checkConfig, diff, read, update };
}
