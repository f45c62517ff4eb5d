// The Terraform provider's mutual TLS, as go-plugin's client meets it: started with PLUGIN_CLIENT_CERT
// (Terraform's certificate), it serves gRPC over TLS with its own certificate from the handshake line,
// and answers only the peer that presents Terraform's certificate. Attacks: another local process
// connecting with a certificate of its own, or with none, gets no call through.
import { spawn, type ChildProcess } from "node:child_process";
import { X509Certificate } from "node:crypto";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { serverCertificate, type ServerCertificate } from "../../../provider/terraform/certificate";
import { getProviderSchema, TERRAFORM_PLUGIN_ENV } from "../../support/terraform-client";

const repoRoot = path.resolve(__dirname, "..", "..", "..");
const terraform = serverCertificate();

let provider: ChildProcess;
let port: number;
let providerCertificatePem: string;

beforeAll(async () => {
  provider = spawn(path.join(repoRoot, "bin", "terraform-provider-geminienvironments"), [], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...TERRAFORM_PLUGIN_ENV, PLUGIN_PROTOCOL_VERSIONS: "6", PLUGIN_CLIENT_CERT: terraform.certificatePem },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let output = "";
    provider.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("\n")) resolve(output.split("\n")[0]);
    });
    provider.once("exit", (code) => reject(new Error(`the provider exited (${code}) before its handshake: ${output}`)));
  });
  const match = /^1\|6\|tcp\|127\.0\.0\.1:(\d+)\|grpc\|([A-Za-z0-9+/]+)$/.exec(line);
  if (!match) throw new Error(`not a go-plugin handshake with a certificate: ${line}`);
  port = Number(match[1]);
  providerCertificatePem = new X509Certificate(Buffer.from(match[2], "base64")).toString();
}, 30_000);

afterAll(() => {
  provider?.kill("SIGKILL");
});

/** GetProviderSchema over TLS, trusting the provider's certificate, presenting `client` (or no certificate). */
function getProviderSchemaAs(client: ServerCertificate | undefined) {
  return getProviderSchema(port, 10_000, grpc.credentials.createSsl(Buffer.from(providerCertificatePem), client && Buffer.from(client.privateKeyPem), client && Buffer.from(client.certificatePem)));
}

test("Terraform's certificate gets its calls answered", async () => {
  const schema = await getProviderSchemaAs(terraform);
  expect(Object.keys(schema.resource_schemas)).toContain("geminienvironments_environment");
});

test("attack: another process's certificate is refused before any call reaches the provider", async () => {
  await expect(getProviderSchemaAs(serverCertificate())).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
});

test("attack: a client that shows no certificate is refused", async () => {
  await expect(getProviderSchemaAs(undefined)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
});
