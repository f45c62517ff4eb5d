/**
 * The Terraform provider as Terraform speaks to it, without Terraform: its go-plugin handshake line
 * (`1|6|tcp|127.0.0.1:<port>|grpc|<certificate>`), then tfplugin6.Provider over gRPC. Started without
 * PLUGIN_CLIENT_CERT, the provider serves plain gRPC (no certificate in the line), which this client
 * speaks; the protocol's definition is the repository's .proto files.
 */
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

const repoRoot = path.resolve(__dirname, "..", "..");

/** What makes the provider serve instead of saying that it is a plugin. */
export const TERRAFORM_PLUGIN_ENV = { TF_PLUGIN_MAGIC_COOKIE: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2" };

/** The port of a handshake line, or an error naming the line. */
export function portOfHandshake(line: string): number {
  const match = /^1\|6\|tcp\|127\.0\.0\.1:(\d+)\|grpc\|/.exec(line);
  if (!match) throw new Error(`not a go-plugin handshake (core 1, protocol 6, tcp, grpc): ${line}`);
  return Number(match[1]);
}

export interface ProviderSchema {
  provider: unknown;
  resource_schemas: Record<string, unknown>;
  data_source_schemas: Record<string, unknown>;
}

function protocol(): protoLoader.PackageDefinition {
  return protoLoader.loadSync(path.join(repoRoot, "provider", "terraform", "tfplugin6.proto"), { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true });
}

/** GetProviderSchema's answer as these sources make it, encoded and decoded as it travels: what a provider built from them serves. */
export async function providerSchemaOfSources(): Promise<ProviderSchema> {
  const { terraformProvider } = await import("../../provider/terraform/provider");
  const method = (protocol()["tfplugin6.Provider"] as grpc.ServiceDefinition).GetProviderSchema;
  return method.responseDeserialize(method.responseSerialize(await terraformProvider().GetProviderSchema!({}))) as ProviderSchema;
}

/**
 * GetProviderSchema of the provider serving on `port`: plain gRPC, or over TLS with `credentials`
 * (the provider's certificate is for `localhost`, as go-plugin's are).
 */
export async function getProviderSchema(port: number, timeoutMs = 60_000, credentials = grpc.credentials.createInsecure()): Promise<ProviderSchema> {
  const { tfplugin6 } = grpc.loadPackageDefinition(protocol()) as unknown as { tfplugin6: { Provider: grpc.ServiceClientConstructor } };
  const client = new tfplugin6.Provider(`127.0.0.1:${port}`, credentials, { "grpc.ssl_target_name_override": "localhost" });
  try {
    return await new Promise<ProviderSchema>((resolve, reject) =>
      (client as unknown as Record<string, (request: object, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response: ProviderSchema) => void) => void>).GetProviderSchema(
        {},
        { deadline: Date.now() + timeoutMs },
        (error, response) => (error ? reject(error) : resolve(response)),
      ),
    );
  } finally {
    client.close();
  }
}
