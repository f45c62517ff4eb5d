/**
 * The plugin as go-plugin serves one to Terraform (hashicorp/go-plugin's server.go, and
 * hashicorp/terraform's docs/plugin-protocol/):
 *
 * 1. Terraform starts it with `TF_PLUGIN_MAGIC_COOKIE` set to the cookie below; without it the binary
 *    was run by hand, and says so.
 * 2. It serves gRPC on 127.0.0.1 with mutual TLS: a certificate of its own (certificate.ts), and
 *    only Terraform's, which comes in `PLUGIN_CLIENT_CERT`, trusted.
 * 3. It prints the handshake line on stdout, `1|6|tcp|127.0.0.1:<port>|grpc|<its certificate, base64
 *    DER without padding>`: core protocol 1, plugin protocol 6.
 * 4. Terraform checks the health service's "plugin", opens `plugin.GRPCStdio/StreamStdio`, calls the
 *    provider (tfplugin6.Provider), and when done `plugin.GRPCController/Shutdown`, after which the
 *    plugin exits.
 *
 * What the plugin writes on stdout and stderr after the handshake goes through StreamStdio, as a Go
 * provider's does (go-plugin redirects its os.Stdout and os.Stderr): Terraform writes it into its log
 * (`TF_LOG`), as `unexpected data: <provider>:stderr`. Until Terraform opens the stream, and after
 * it closes it, it goes to the process's own stderr, which go-plugin logs too.
 */
import { X509Certificate } from "node:crypto";
import * as path from "node:path";
import type * as Grpc from "@grpc/grpc-js";
import type * as ProtoLoader from "@grpc/proto-loader";
import { singleExecutableAsset } from "../contracts/package-identity";
import { serverCertificate, type ServerCertificate } from "./certificate";
import type { Handlers } from "./provider";

const MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE";
const MAGIC_COOKIE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
const PROTOCOL_VERSION = 6;
/** Terraform's states and plans can be large: no limit on a message, as go-plugin sets none. */
const UNLIMITED = -1;

export const NOT_A_COMMAND =
  "This binary is a plugin. These are not meant to be executed directly.\n" +
  "Please execute the program that consumes these plugins, which will\n" +
  "load any plugins automatically\n";

/** Whether Terraform (or OpenTofu) started the plugin. */
export function startedByTerraform(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[MAGIC_COOKIE_KEY] === MAGIC_COOKIE;
}

/** The protocol's definition, beside this module (npm run build copies them into dist/). */
const PROTOCOL_FILES = ["tfplugin6.proto", "go-plugin.proto", "health.proto"];
/** Their protobufjs JSON (keepCase), the asset name scripts/pack-plugin gives it. */
const PROTOCOL_ASSET = "terraform-protocol.json";

let definition: ProtoLoader.PackageDefinition | undefined;

/**
 * The protocol's services and messages from its .proto files, parsed once: gRPC's server is made from
 * it at each start, and the single executable's startup snapshot holds it parsed.
 */
export function protocolDefinition(): ProtoLoader.PackageDefinition {
  if (definition) return definition;
  const loader = require("@grpc/proto-loader") as typeof ProtoLoader;
  const options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };
  // A single executable without a snapshot has no .proto files beside it: scripts/pack-plugin injects
  // them parsed, as protobufjs's JSON of the three (PROTOCOL_ASSET).
  const parsed = singleExecutableAsset(PROTOCOL_ASSET);
  return (definition =
    parsed === undefined ? loader.loadSync(PROTOCOL_FILES.map((file) => path.join(__dirname, file)), options) : loader.fromJSON(JSON.parse(parsed) as Parameters<typeof ProtoLoader.fromJSON>[0], options));
}

/**
 * Has protobufjs generate, ahead of a start, the encoders and decoders it otherwise generates at a
 * message type's first use: each method's request and answer, and the types nested in the answers
 * `samples` gives by method name. Run before the single executable's startup snapshot is made, it takes
 * about 10 ms off each start's first call, most of it GetProviderSchema's answer.
 */
export function prepareCodecs(samples: Record<string, object>): void {
  for (const service of Object.values(protocolDefinition())) {
    if ("format" in service) continue; // a message type, not a service
    for (const [name, method] of Object.entries(service)) {
      method.requestDeserialize(Buffer.alloc(0));
      const answer = method.responseSerialize(samples[name] ?? {});
      // A sample is an answer made once (GetProviderSchema's): encoded once too.
      if (samples[name]) encodedAnswers.set(samples[name], answer);
    }
  }
}

/** Answers encoded ahead, by the object the handler returns. */
const encodedAnswers = new WeakMap<object, Buffer>();

/**
 * Serves the handlers `load` gives and prints the handshake line; resolves once the line is out. The
 * handlers (the schema, zod, the cores) load after it, on the first call or the next turn, so that
 * Terraform connects while they load.
 */
export async function serve(load: () => Handlers, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const grpc = require("@grpc/grpc-js") as typeof Grpc;
  const proto = grpc.loadPackageDefinition(protocolDefinition()) as unknown as {
    tfplugin6: { Provider: Grpc.ServiceClientConstructor };
    plugin: { GRPCController: Grpc.ServiceClientConstructor; GRPCStdio: Grpc.ServiceClientConstructor };
    grpc: { health: { v1: { Health: Grpc.ServiceClientConstructor } } };
  };
  const server = new grpc.Server({ "grpc.max_receive_message_length": UNLIMITED, "grpc.max_send_message_length": UNLIMITED });

  let handlers: Handlers | undefined;
  const implementation: Grpc.UntypedServiceImplementation = {};
  // The unary calls: the streaming ones (list resources, actions, state stores) are Terraform's later features, left unimplemented.
  const unary = Object.entries(proto.tfplugin6.Provider.service).filter(([, definition]) => !definition.requestStream && !definition.responseStream);
  for (const [method] of unary) {
    implementation[method] = (call: Grpc.ServerUnaryCall<Record<string, unknown>, unknown>, callback: Grpc.sendUnaryData<unknown>) => {
      const handle = (handlers ??= load())[method];
      if (!handle) return callback({ code: grpc.status.UNIMPLEMENTED, details: `${method} is not served by this provider` }, null);
      // Every failure is a diagnostic, which Terraform shows with the resource it is about.
      handle(call.request).then(
        (response) => callback(null, response),
        (error: unknown) => {
          // Its stack, for whoever reads Terraform's log; the diagnostic says what went wrong.
          process.stderr.write(`${PROVIDER_LOG_PREFIX}${method}: ${error instanceof Error ? error.stack : String(error)}\n`);
          callback(null, { diagnostics: [(require("./diagnostics") as typeof import("./diagnostics")).errorDiagnostic(error)] });
        },
      );
    };
  }
  const provider = Object.fromEntries(
    Object.entries(proto.tfplugin6.Provider.service).map(([name, method]) => [name, { ...method, responseSerialize: (answer: object) => encodedAnswers.get(answer) ?? method.responseSerialize(answer) }]),
  );
  server.addService(provider, implementation);
  server.addService(proto.plugin.GRPCController.service, {
    Shutdown: (_call: unknown, callback: Grpc.sendUnaryData<unknown>) => {
      callback(null, {});
      stdioStream?.end(); // an end of stream, not a reset, in Terraform's log
      // Once the answer is out, as go-plugin's server does; the exit closes the connections (closing
      // them first, server.forceShutdown(), took 5–8 ms of each start, which Terraform waits for).
      setImmediate(() => process.exit(0));
    },
  });
  server.addService(proto.plugin.GRPCStdio.service, { StreamStdio: streamStdio });
  server.addService(proto.grpc.health.v1.Health.service, {
    Check: (_call: unknown, callback: Grpc.sendUnaryData<unknown>) => callback(null, { status: "SERVING" }),
  });

  const clientCertificate = env.PLUGIN_CLIENT_CERT;
  const certificate = clientCertificate ? serverCertificate() : undefined;
  const port = certificate
    ? await serveMutualTls(server.createConnectionInjector(grpc.ServerCredentials.createInsecure()), clientCertificate!, certificate)
    : await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
  const encoded = certificate ? certificate.certificateDer.toString("base64").replace(/=+$/, "") : "";
  process.stdout.write(`1|${PROTOCOL_VERSION}|tcp|127.0.0.1:${port}|grpc|${encoded}\n`);
  redirectStdio();
  setImmediate(() => (handlers ??= load()));
}

/**
 * go-plugin's mutual TLS (its server's tls.Config: RequireAndVerifyClientCert, ClientCAs the one
 * certificate of PLUGIN_CLIENT_CERT), served by a TLS server that hands gRPC a connection only once its
 * peer has shown that very certificate: go-plugin's client presents the one it sent, whose key no
 * other process holds. Not gRPC's own TLS: a TLS context that trusts a CA makes Node.js build its
 * whole root store first (its bundled roots, and NODE_EXTRA_CA_CERTS' file where set: 20–30 ms of
 * each of the 3–5 starts of a command), and this one trusts none. Resolves to the port it listens on.
 */
async function serveMutualTls(grpc: Grpc.ConnectionInjector, clientCertificatePem: string, certificate: ServerCertificate): Promise<number> {
  const tls = require("node:tls") as typeof import("node:tls");
  const terraformsCertificate = new X509Certificate(clientCertificatePem).raw;
  const tlsServer = tls.createServer(
    // `ca: []`: no root store; the peer's certificate is compared below, whatever it chains to.
    { key: certificate.privateKeyPem, cert: certificate.certificatePem, ca: [], requestCert: true, rejectUnauthorized: false, ALPNProtocols: ["h2"], minVersion: "TLSv1.2" },
    (socket) => {
      if (socket.getPeerX509Certificate()?.raw.equals(terraformsCertificate)) grpc.injectConnection(socket);
      else socket.destroy();
    },
  );
  return new Promise<number>((resolve, reject) => {
    tlsServer.once("error", reject);
    tlsServer.listen(0, "127.0.0.1", () => resolve((tlsServer.address() as import("node:net").AddressInfo).port));
  });
}

/** What starts each line the provider writes into Terraform's log. */
const PROVIDER_LOG_PREFIX = "terraform-provider-geminienvironments: ";

type Channel = "STDOUT" | "STDERR";
/** The open StreamStdio call, if Terraform has opened it and not closed it. */
let stdioStream: Grpc.ServerWritableStream<unknown, { channel: Channel; data: Buffer }> | undefined;

/** StreamStdio: from now on, stdout and stderr go to Terraform through this call, until it ends. */
function streamStdio(call: Grpc.ServerWritableStream<unknown, { channel: Channel; data: Buffer }>): void {
  stdioStream = call;
  const detach = () => {
    if (stdioStream === call) stdioStream = undefined;
  };
  call.on("cancelled", detach);
  call.on("close", detach);
  call.on("error", detach);
}

/** process.stdout and process.stderr, after the handshake line, written to the stdio stream while it is open. */
function redirectStdio(): void {
  for (const [stream, channel] of [
    [process.stdout, "STDOUT"],
    [process.stderr, "STDERR"],
  ] as const) {
    const original = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (!stdioStream) return original(chunk, ...rest);
      const encoding = typeof rest[0] === "string" ? (rest[0] as BufferEncoding) : "utf8";
      stdioStream.write({ channel, data: typeof chunk === "string" ? Buffer.from(chunk, encoding) : Buffer.from(chunk as Uint8Array) });
      const callback = rest.find((item) => typeof item === "function") as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
  }
}
