/**
 * A Terraform provider registry on this machine, as registry.terraform.io and registry.opentofu.org
 * serve the provider registry protocol (https://developer.hashicorp.com/terraform/internals/provider-registry-protocol):
 *
 *   GET /.well-known/terraform.json                                  service discovery: providers.v1
 *   GET /v1/providers/:namespace/:type/versions                      the versions, their protocols and platforms
 *   GET /v1/providers/:namespace/:type/:version/download/:os/:arch   the zip's name, URL and SHA-256, the
 *       URLs of the _SHA256SUMS and its .sig, and the public keys the signature is checked with
 *   GET /files/:namespace/:file                                      the release's files
 *
 * Each namespace serves one release directory, as scripts/release writes it (the zips, the _SHA256SUMS,
 * its .sig and the _manifest.json), with the keys the registry lists for it. What it answers comes from
 * those files as a registry takes them at publishing: the versions and platforms from the zips' names,
 * the protocols from the manifest, each zip's SHA-256 from the _SHA256SUMS. HTTPS only (Terraform and
 * OpenTofu speak nothing else to a registry), on port 0 of 127.0.0.1, named `localhost:<port>`.
 */
import * as fs from "node:fs";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

export interface PublicKey {
  /** The key's ID, 16 hex digits (the fingerprint's end). */
  keyId: string;
  /** `gpg --armor --export`. */
  asciiArmor: string;
}

export interface RegistryNamespace {
  /** The release's files. */
  dir: string;
  /** The keys the download answer lists. */
  keys: readonly PublicKey[];
}

export interface ProviderRegistry {
  /** `localhost:<port>`: a provider source's host. */
  host: string;
  /** Every path requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

interface Release {
  version: string;
  protocols: string[];
  /** The zips by `<os>_<arch>`: name and SHA-256. */
  zips: Map<string, { filename: string; shasum: string }>;
  sums: string;
}

/** What a registry reads from a release directory of `type` (terraform-provider-<type>_<version>_…). */
function readRelease(dir: string, type: string): Release {
  const files = fs.readdirSync(dir);
  const sums = files.find((file) => file.startsWith(`terraform-provider-${type}_`) && file.endsWith("_SHA256SUMS"));
  if (!sums) throw new Error(`${dir} holds no terraform-provider-${type}_<version>_SHA256SUMS`);
  const version = sums.slice(`terraform-provider-${type}_`.length, -"_SHA256SUMS".length);
  const prefix = `terraform-provider-${type}_${version}`;
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, `${prefix}_manifest.json`), "utf8")) as { metadata: { protocol_versions: string[] } };
  const shasums = new Map(
    fs
      .readFileSync(path.join(dir, sums), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/).reverse() as [string, string]),
  );
  const zips = new Map<string, { filename: string; shasum: string }>();
  for (const filename of files) {
    const platform = new RegExp(`^${prefix.replace(/\./g, "\\.")}_([a-z0-9]+_[a-z0-9]+)\\.zip$`).exec(filename)?.[1];
    if (!platform) continue;
    const shasum = shasums.get(filename);
    if (!shasum) throw new Error(`${sums} lists no ${filename}`);
    zips.set(platform, { filename, shasum });
  }
  return { version, protocols: manifest.metadata.protocol_versions, zips, sums };
}

/** Serves each namespace's release for the provider `type`, with a TLS certificate for localhost. */
export async function startProviderRegistry(options: { type: string; namespaces: Record<string, RegistryNamespace>; certificatePem: string; privateKeyPem: string }): Promise<ProviderRegistry> {
  const requests: string[] = [];
  const json = (response: import("node:http").ServerResponse, body: unknown) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  const server = https.createServer({ cert: options.certificatePem, key: options.privateKeyPem }, (request, response) => {
    const url = new URL(request.url ?? "/", `https://${request.headers.host}`);
    requests.push(url.pathname);
    const notFound = () => response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ errors: ["Not Found"] }));
    if (url.pathname === "/.well-known/terraform.json") return json(response, { "providers.v1": "/v1/providers/" });

    const file = /^\/files\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (file) {
      const namespace = options.namespaces[file[1]];
      if (!namespace || !fs.readdirSync(namespace.dir).includes(file[2])) return notFound();
      return fs.createReadStream(path.join(namespace.dir, file[2])).pipe(response.writeHead(200, { "content-type": "application/octet-stream" }));
    }

    const provider = /^\/v1\/providers\/([^/]+)\/([^/]+)\/(.+)$/.exec(url.pathname);
    const namespace = provider && provider[2] === options.type ? options.namespaces[provider[1]] : undefined;
    if (!provider || !namespace) return notFound();
    const release = readRelease(namespace.dir, options.type);
    if (provider[3] === "versions") {
      const platforms = [...release.zips.keys()].map((platform) => ({ os: platform.split("_")[0], arch: platform.split("_")[1] }));
      return json(response, { versions: [{ version: release.version, protocols: release.protocols, platforms }] });
    }
    const download = /^([^/]+)\/download\/([^/]+)\/([^/]+)$/.exec(provider[3]);
    const zip = download && download[1] === release.version ? release.zips.get(`${download[2]}_${download[3]}`) : undefined;
    if (!download || !zip) return notFound();
    const files = `https://${request.headers.host}/files/${provider[1]}`;
    return json(response, {
      protocols: release.protocols,
      os: download[2],
      arch: download[3],
      filename: zip.filename,
      download_url: `${files}/${zip.filename}`,
      shasums_url: `${files}/${release.sums}`,
      shasums_signature_url: `${files}/${release.sums}.sig`,
      shasum: zip.shasum,
      signing_keys: { gpg_public_keys: namespace.keys.map((key) => ({ key_id: key.keyId, ascii_armor: key.asciiArmor, trust_signature: "", source: "", source_url: null })) },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    host: `localhost:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
