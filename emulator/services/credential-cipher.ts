/**
 * Credential secrets at rest: one AES-256-GCM blob per row (random 96-bit IV, the owner and id as
 * additional data, so a blob cannot be moved to another row). The key comes from
 * `GENV_CREDENTIALS_KEY` (base64 of 32 bytes) or else `<data-dir>/credentials.key`, created with mode
 * 0600 the first time a secret is written or read.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export const CREDENTIALS_KEY_ENV = "GENV_CREDENTIALS_KEY";
export const KEY_FILE = "credentials.key";

/**
 * The 32-byte key, resolved lazily: `GENV_CREDENTIALS_KEY` when set (checked at once: fail fast), else
 * `<dataDir>/credentials.key` (base64 text), created with mode 0600 on first use.
 */
export function credentialsKeySource(dataDir: string, env: NodeJS.ProcessEnv = process.env): () => Buffer {
  const fromEnv = env[CREDENTIALS_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== "") {
    const key = Buffer.from(fromEnv, "base64");
    if (key.length !== 32) throw new Error(`${CREDENTIALS_KEY_ENV} must be the base64 of 32 bytes (e.g. openssl rand -base64 32); it decodes to ${key.length}`);
    return () => key;
  }
  let key: Buffer | undefined;
  return () => (key ??= readOrCreateKeyFile(path.join(dataDir, KEY_FILE)));
}

function readOrCreateKeyFile(file: string): Buffer {
  try {
    writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const key = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
  if (key.length !== 32) throw new Error(`${file} must hold the base64 of 32 bytes; remove it to start over (stored credentials are then lost)`);
  return key;
}

export function seal(key: Buffer, plain: string, aad: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function open(key: Buffer, sealed: Buffer, aad: string): string {
  const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString("utf8");
}
