/**
 * The plugin's TLS server certificate for go-plugin's automatic mTLS: self-signed, for `localhost`, a
 * CA of itself (Terraform trusts exactly the certificate the handshake line carries), as go-plugin's
 * own `generateCert` makes it (mtls.go), but on a P-256 key.
 *
 * Why by hand: Node.js signs but cannot write an X.509 certificate, and node-forge (an optional peer
 * of the package) signs only with RSA keys, whose generation costs ≈ 150 ms of the plugin's start; an
 * EC key costs under 1 ms. The DER below is the six ASN.1 types a certificate needs, nothing parsed.
 */
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";

export interface ServerCertificate {
  /** PEM, for the TLS server. */
  certificatePem: string;
  privateKeyPem: string;
  /** DER, which the handshake line carries in base64. */
  certificateDer: Buffer;
}

const OID = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

export function serverCertificate(now = new Date()): ServerCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const name = sequence(set(sequence(oid(OID.organization), utf8("HashiCorp"))), set(sequence(oid(OID.commonName), utf8("localhost"))));
  const serial = randomBytes(16);
  // A positive INTEGER in its minimal form: a first byte of 0x00 followed by one under 0x80 is not DER,
  // which OpenSSL and Go refuse (once in 256 starts, a plugin that exits before its handshake).
  serial[0] = (serial[0] & 0x3f) | 0x40;
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const tbs = sequence(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    algorithm,
    name,
    sequence(utcTime(new Date(now.getTime() - 30_000)), utcTime(new Date(now.getTime() + 20 * 365 * 86_400_000))),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    tlv(
      0xa3,
      sequence(
        extension(OID.basicConstraints, sequence(tlv(0x01, Buffer.from([0xff]))), true),
        // digitalSignature, keyEncipherment, keyAgreement, keyCertSign: bits 0, 2, 4, 5 (2 unused bits).
        extension(OID.keyUsage, tlv(0x03, Buffer.from([0x02, 0xac])), true),
        extension(OID.extKeyUsage, sequence(oid(OID.clientAuth), oid(OID.serverAuth))),
        extension(OID.subjectAltName, sequence(tlv(0x82, Buffer.from("localhost")))),
      ),
    ),
  );
  const signature = sign("sha256", tbs, { key: privateKey, dsaEncoding: "der" });
  const certificateDer = sequence(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const base64 = certificateDer.toString("base64").replace(/.{64}/g, "$&\n");
  return {
    certificatePem: `-----BEGIN CERTIFICATE-----\n${base64}${base64.endsWith("\n") ? "" : "\n"}-----END CERTIFICATE-----\n`,
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    certificateDer,
  };
}

// ---------------------------------------------------------------------------------------------
// DER
// ---------------------------------------------------------------------------------------------

function tlv(tag: number, value: Buffer): Buffer {
  const length = value.length;
  const header =
    length < 0x80 ? Buffer.from([tag, length]) : length < 0x100 ? Buffer.from([tag, 0x81, length]) : Buffer.from([tag, 0x82, length >> 8, length & 0xff]);
  return Buffer.concat([header, value]);
}

function sequence(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

function integer(bytes: Buffer): Buffer {
  return tlv(0x02, bytes);
}

function utf8(text: string): Buffer {
  return tlv(0x0c, Buffer.from(text, "utf8"));
}

/** UTCTime, `YYMMDDHHMMSSZ` (valid to 2049). */
function utcTime(date: Date): Buffer {
  return tlv(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, "").slice(2, 14) + "Z"));
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split(".").map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let value = arc >>> 7; value > 0; value >>>= 7) base128.unshift((value & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function extension(id: string, value: Buffer, critical = false): Buffer {
  return sequence(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}
