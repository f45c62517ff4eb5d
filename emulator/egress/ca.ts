/**
 * The per-environment certificate authority of the egress proxy, and the leaf certificates it signs
 * for the hosts a sandbox CONNECTs to.
 *
 * - Keys are RSA 2048 made by node:crypto (native: ~50 ms, where node-forge's pure-JS keygen takes
 *   seconds); node-forge builds and signs the X.509 certificates.
 * - The CA lives in `<dataDir>/egress/<env-id>/ca/` (`ca.pem`, and `ca.key` with mode 0600 in a 0700
 *   directory), so a restarted emulator keeps the CA a sandbox may have copied. Only that
 *   environment's sandbox sees `ca.pem` (bound read-only into its `/etc`); the key never enters any
 *   sandbox.
 * - Extensions follow what strict verifiers (OpenSSL 3, Python 3.13's VERIFY_X509_STRICT) demand:
 *   a critical basicConstraints and keyUsage on the CA; SAN, extKeyUsage serverAuth, subject and
 *   authority key identifiers on leaves.
 */
import { generateKeyPair, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import forge from "node-forge";

const KEY_BITS = 2048;
const CA_YEARS = 10;
const LEAF_DAYS = 365;
const BACKDATE_MS = 24 * 3600 * 1000; // 1 day: tolerate a sandbox clock slightly behind

/** A CA able to sign leaves. */
export interface CertificateAuthority {
  /** PEM of the CA certificate: what the sandbox trusts. */
  certPem: string;
  /** Host path of `ca.pem`, bound into the sandbox. */
  certPath: string;
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
}

/** A key pair as PEM texts and as node-forge objects. */
export interface KeyPair {
  privatePem: string;
  privateKey: forge.pki.rsa.PrivateKey;
  publicKey: forge.pki.rsa.PublicKey;
}

const generateKeyPairAsync = promisify(generateKeyPair);

/** A fresh RSA key pair (off the event loop). */
export async function newKeyPair(): Promise<KeyPair> {
  const { privateKey } = await generateKeyPairAsync("rsa", {
    modulusLength: KEY_BITS,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { privatePem: privateKey, privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}

/** Loads the CA of `dir`, or creates it there (key 0600, directory 0700). */
export async function loadOrCreateCa(dir: string, commonName: string): Promise<CertificateAuthority> {
  const certPath = path.join(dir, "ca.pem");
  const keyPath = path.join(dir, "ca.key");
  const existing = await Promise.all([fs.readFile(certPath, "utf8"), fs.readFile(keyPath, "utf8")]).catch(() => undefined);
  if (existing) {
    const [certPem, keyPem] = existing;
    return { certPem, certPath, cert: forge.pki.certificateFromPem(certPem), key: forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey };
  }
  const pair = await newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = pair.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - BACKDATE_MS);
  cert.validity.notAfter = new Date(Date.now() + CA_YEARS * 365 * 24 * 3600 * 1000);
  const subject = [{ name: "commonName", value: commonName }, { name: "organizationName", value: "genv egress proxy" }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  cert.sign(pair.privateKey, forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);

  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.writeFile(keyPath, pair.privatePem, { mode: 0o600 });
  await fs.writeFile(certPath, certPem, { mode: 0o644 });
  return { certPem, certPath, cert, key: pair.privateKey };
}

/** A leaf certificate for `host` (a name or an IP literal) signed by `ca`, as PEM. */
export function signLeaf(ca: CertificateAuthority, leafKey: KeyPair, host: string): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = leafKey.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - BACKDATE_MS);
  cert.validity.notAfter = new Date(Date.now() + LEAF_DAYS * 24 * 3600 * 1000);
  cert.setSubject([{ name: "commonName", value: host.slice(0, 64) }]);
  cert.setIssuer(ca.cert.subject.attributes);
  const altName = isIP(host) !== 0 ? { type: 7, ip: host } : { type: 2, value: host };
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: [altName] },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.cert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(ca.key, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/** A positive random serial number (hex, high bit clear). */
function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString("hex");
}
