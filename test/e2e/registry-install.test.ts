// A signed release installed as a registry's user gets it. scripts/release --terraform-only, for this
// machine's platform only, with GPG_FINGERPRINT naming a throwaway key made here (with a passphrase, from
// GENV_GPG_PASSPHRASE_FILE, as the release workflow passes it), writes the _SHA256SUMS.sig: a binary
// detached signature that gpg verifies with the public key alone. A registry on this machine
// (test/support/provider-registry.ts) serves that release through the provider registry protocol over
// HTTPS, its certificate trusted through SSL_CERT_FILE, and `terraform init` and `tofu init` check the
// signature themselves: they install the release, naming the key, and refuse a tampered one (another
// zip, its _SHA256SUMS line rewritten to match, the .sig as it was) and one signed by a key the
// registry does not list. A fingerprint of no key in the keyring, or a key whose passphrase is not
// given, stops scripts/release before it builds anything.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { cachedOpenTofuBinary, PROVIDER_SOURCE, terraformEnv, terraformOnPath, terraformPlatform } from "../../devtools/terraform";
import { serverCertificate } from "../../provider/terraform/certificate";
import { runCommand, timeLeftOf, type CommandError } from "../support/commands";
import { describeNeeding } from "../support/prerequisites";
import { startProviderRegistry, type ProviderRegistry, type PublicKey } from "../support/provider-registry";
import { repoRoot } from "./engine";

const execFileAsync = promisify(execFile);
const VERSION = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
const TYPE = "geminienvironments";
const NAMESPACE = PROVIDER_SOURCE.split("/")[0];
const TF = `terraform-provider-${TYPE}_${VERSION}`;
const PLATFORM = terraformPlatform();
const ZIP = `${TF}_${PLATFORM}.zip`;
const SUMS = `${TF}_SHA256SUMS`;
const EXECUTABLE = `terraform-provider-${TYPE}_v${VERSION}`;
// scripts/release --terraform-only of one platform: a single executable from a startup snapshot, and two
// keys: under a minute on a busy 2-core machine (42 s at a load of 15).
const RELEASE_TIMEOUT_MS = 5 * 60_000;
// A checked refusal costs gpg a second; an init unzips and hashes a 60 MB zip.
const STOPS_TIMEOUT_MS = 60_000;
const INIT_TIMEOUT_MS = 120_000;

/** gpg's answer, run with the test's own keyring. */
const gpg = (gnupgHome: string, args: string[], input?: string) =>
  new Promise<string>((resolve, reject) => {
    const child = execFile("gpg", ["--batch", ...args], { env: { ...process.env, GNUPGHOME: gnupgHome }, encoding: "utf8" }, (error, stdout, stderr) =>
      error ? reject(new Error(`gpg ${args.join(" ")}: ${stderr}`)) : resolve(stdout),
    );
    // gpg may exit before it reads its input (a failed --verify): its exit code tells.
    child.stdin!.on("error", () => undefined).end(input ?? "");
  });

/** A new RSA signing key in the keyring (empty passphrase: none); its fingerprint, key ID and armored public key. */
async function generateKey(gnupgHome: string, name: string, passphraseFile: string): Promise<PublicKey & { fingerprint: string }> {
  await gpg(gnupgHome, ["--pinentry-mode", "loopback", "--passphrase-file", passphraseFile, "--quick-gen-key", `${name} <${name.replace(/\W+/g, "-")}@example.invalid>`, "rsa2048", "sign", "1d"]);
  const listing = await gpg(gnupgHome, ["--with-colons", "--list-secret-keys", `${name} <`]);
  const fingerprint = /^fpr:(?:[^:]*:){8}([0-9A-F]{40}):/m.exec(listing)![1];
  return { fingerprint, keyId: fingerprint.slice(-16), asciiArmor: await gpg(gnupgHome, ["--armor", "--export", fingerprint]) };
}

describeNeeding({ "gpg (Debian's gnupg; scripts/prerequisites test)": hasGpg() })("a signed release, through the provider registry protocol", () => {
  let scratch: string;
  let gnupgHome: string;
  let passphraseFile: string;
  /** The key the release is signed with, and another one. */
  let signer: PublicKey & { fingerprint: string };
  let stranger: PublicKey & { fingerprint: string };
  let release: string;
  let releaseOutput: { stdout: string; stderr: string };
  let registry: ProviderRegistry;
  let caFile: string;

  const releaseEnv = (gpgEnv: Record<string, string>) => {
    const env: NodeJS.ProcessEnv = { ...process.env, GNUPGHOME: gnupgHome, ...gpgEnv };
    for (const name of ["GPG_FINGERPRINT", "GENV_GPG_PASSPHRASE_FILE"]) if (!(name in gpgEnv)) delete env[name];
    return env;
  };
  /** scripts/release for this machine's platform into `out`. */
  const runRelease = (out: string, gpgEnv: Record<string, string>, timeoutMs: number) =>
    runCommand([path.join(repoRoot, "scripts", "release"), "--out", out, "--platforms", PLATFORM.replace("_", "-"), "--terraform-only"], { cwd: repoRoot, env: releaseEnv(gpgEnv), timeoutMs });

  beforeAll(async () => {
    const left = timeLeftOf(RELEASE_TIMEOUT_MS);
    if (!fs.existsSync(path.join(repoRoot, "dist", "provider", "plugin", "main.js"))) throw new Error("dist/ is missing: run npm run build first");
    scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-registry-"));
    gnupgHome = path.join(scratch, "gnupg");
    await fs.promises.mkdir(gnupgHome, { mode: 0o700 });
    passphraseFile = path.join(scratch, "passphrase");
    await fs.promises.writeFile(path.join(scratch, "no-passphrase"), "");
    await fs.promises.writeFile(passphraseFile, "a throwaway passphrase\n", { mode: 0o600 });
    signer = await generateKey(gnupgHome, "Throwaway release key", passphraseFile);
    stranger = await generateKey(gnupgHome, "Someone else", path.join(scratch, "no-passphrase"));

    release = path.join(scratch, "release");
    releaseOutput = await runRelease(release, { GPG_FINGERPRINT: signer.fingerprint, GENV_GPG_PASSPHRASE_FILE: passphraseFile }, left());

    // The same release with another zip, its line in the _SHA256SUMS rewritten to match: what someone
    // who can change the release's files but has no key would publish. Only the signature tells.
    const tampered = path.join(scratch, "tampered");
    await fs.promises.cp(release, tampered, { recursive: true });
    await fs.promises.rm(path.join(tampered, ZIP));
    // With Python's zipfile, as scripts/pack-plugin writes the zips (`zip` is no prerequisite).
    const writeZip = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n  i = zipfile.ZipInfo(sys.argv[2]); i.external_attr = 0o755 << 16; z.writestr(i, sys.argv[3])";
    await execFileAsync("python3", ["-c", writeZip, path.join(tampered, ZIP), EXECUTABLE, "#!/bin/sh\necho 'not the provider' >&2\nexit 1\n"]);
    const shasum = createHash("sha256").update(await fs.promises.readFile(path.join(tampered, ZIP))).digest("hex");
    const sums = await fs.promises.readFile(path.join(tampered, SUMS), "utf8");
    await fs.promises.writeFile(path.join(tampered, SUMS), sums.replace(new RegExp(`^[0-9a-f]{64}(?=  ${ZIP.replace(/\./g, "\\.")}$)`, "m"), shasum));

    const certificate = serverCertificate();
    caFile = path.join(scratch, "ca.pem");
    await fs.promises.writeFile(caFile, certificate.certificatePem);
    registry = await startProviderRegistry({
      type: TYPE,
      ...certificate,
      namespaces: {
        [NAMESPACE]: { dir: release, keys: [signer] },
        tampered: { dir: tampered, keys: [signer] },
        "unlisted-key": { dir: release, keys: [stranger] },
      },
    });
  }, RELEASE_TIMEOUT_MS);

  afterAll(async () => {
    await registry?.close();
    if (gnupgHome) await execFileAsync("gpgconf", ["--kill", "gpg-agent"], { env: { ...process.env, GNUPGHOME: gnupgHome } }).catch(() => undefined);
    if (scratch) await fs.promises.rm(scratch, { recursive: true, force: true });
  });

  test("scripts/release with GPG_FINGERPRINT writes the _SHA256SUMS.sig, a binary detached signature by that key, which gpg verifies with the public key alone", async () => {
    expect(releaseOutput.stdout.trim().split("\n")).toContain(path.join(release, `${SUMS}.sig`));
    expect(releaseOutput.stderr).toContain(`${SUMS}.sig: signed by ${signer.fingerprint}`);
    expect((await fs.promises.readdir(release)).filter((file) => file.startsWith(TF)).sort()).toEqual([ZIP, SUMS, `${SUMS}.sig`, `${TF}_manifest.json`].sort());
    const signature = await fs.promises.readFile(path.join(release, `${SUMS}.sig`));
    expect(signature.subarray(0, 5).toString("latin1")).not.toBe("-----");
    // A keyring that holds only the public key, as a user's or a registry's.
    const verifier = path.join(scratch, "verifier");
    await fs.promises.mkdir(verifier, { mode: 0o700 });
    try {
      await gpg(verifier, ["--import"], signer.asciiArmor);
      const status = await gpg(verifier, ["--status-fd", "1", "--verify", path.join(release, `${SUMS}.sig`), path.join(release, SUMS)]);
      expect(status).toMatch(new RegExp(`^\\[GNUPG:\\] VALIDSIG ${signer.fingerprint} `, "m"));
    } finally {
      await execFileAsync("gpgconf", ["--kill", "gpg-agent"], { env: { ...process.env, GNUPGHOME: verifier } }).catch(() => undefined);
    }
  });

  test("GPG_FINGERPRINT naming no key in the keyring, or a key whose passphrase is not given, stops scripts/release before it builds anything", async () => {
    const left = timeLeftOf(STOPS_TIMEOUT_MS);
    const out = path.join(scratch, "stopped");
    const unknown = "0123456789ABCDEF0123456789ABCDEF01234567";
    const noKey = (await runRelease(out, { GPG_FINGERPRINT: unknown }, left()).catch((error: CommandError) => error)) as CommandError;
    expect(noKey.stderr).toContain(`release: error: GPG_FINGERPRINT=${unknown} names no secret key in the keyring`);
    // The agent forgets the passphrase the release's signing gave it.
    await execFileAsync("gpgconf", ["--kill", "gpg-agent"], { env: { ...process.env, GNUPGHOME: gnupgHome } });
    const noPassphrase = (await runRelease(out, { GPG_FINGERPRINT: signer.fingerprint }, left()).catch((error: CommandError) => error)) as CommandError;
    expect(noPassphrase.stderr).toContain(`release: error: gpg cannot sign with ${signer.fingerprint}: a key with a passphrase takes it from GENV_GPG_PASSPHRASE_FILE`);
    expect(await fs.promises.readdir(out)).toEqual([]);
  }, STOPS_TIMEOUT_MS);

  const ENGINES = [
    // How each says a provider signed by a key of its developer's (not HashiCorp's, not a partner's) was checked.
    { name: "terraform", binary: terraformOnPath(), needs: "terraform on PATH (Terraform 1.11 or newer)", signedBy: "self-signed" },
    { name: "tofu", binary: cachedOpenTofuBinary(repoRoot), needs: "tofu (scripts/opentofu)", signedBy: "signed" },
  ];
  for (const engine of ENGINES) {
    describeNeeding({ [engine.needs]: engine.binary !== undefined })(`${engine.name} init from the registry`, () => {
      /** `init` of a configuration that requires the provider from `namespace` of the registry; its exit and output, and the directory. */
      const init = async (namespace: string) => {
        const dir = await fs.promises.mkdtemp(path.join(scratch, `${engine.name}-${namespace}-`));
        const source = `${registry.host}/${namespace}/${TYPE}`;
        await fs.promises.writeFile(path.join(dir, "main.tf"), `terraform {\n  required_providers {\n    ${TYPE} = {\n      source  = "${source}"\n      version = "${VERSION}"\n    }\n  }\n}\n`);
        // Only the registry: no mirror, no plugin directory, and no network (the proxy is no proxy; localhost bypasses it).
        await fs.promises.writeFile(path.join(dir, "cli.tfrc"), "provider_installation {\n  direct {}\n}\n");
        const env = {
          ...terraformEnv({ cliConfigFile: path.join(dir, "cli.tfrc"), baseUrl: "http://127.0.0.1:9", apiKey: "unused" }),
          SSL_CERT_FILE: caFile,
          HTTPS_PROXY: "http://127.0.0.1:9",
          HTTP_PROXY: "http://127.0.0.1:9",
        };
        const result = await runCommand([engine.binary!, "init", "-no-color"], { cwd: dir, env, timeoutMs: INIT_TIMEOUT_MS - 20_000 }).then(
          (output) => ({ code: 0, ...output }),
          (error: CommandError) => ({ code: 1, stdout: error.stdout, stderr: error.stderr }),
        );
        const installed = path.join(dir, ".terraform", "providers", source, VERSION, PLATFORM, EXECUTABLE);
        return { ...result, dir, source, installed };
      };

      test("installs the signed release, names the key it was signed with, and locks the zip's hash from the _SHA256SUMS", async () => {
        const requestsBefore = registry.requests.length;
        const { code, stdout, stderr, dir, source, installed } = await init(NAMESPACE);
        expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
        expect(stdout).toContain(`Installed ${source} v${VERSION} (${engine.signedBy}, key ID ${signer.keyId})`);
        const zipSha = (await fs.promises.readFile(path.join(release, SUMS), "utf8")).split("\n").find((line) => line.endsWith(`  ${ZIP}`))!.slice(0, 64);
        expect(await fs.promises.readFile(path.join(dir, ".terraform.lock.hcl"), "utf8")).toContain(`"zh:${zipSha}"`);
        const { stdout: fromZip } = await execFileAsync("unzip", ["-p", path.join(release, ZIP), EXECUTABLE], { encoding: "buffer", maxBuffer: 512 * 1024 * 1024 });
        expect((await fs.promises.readFile(installed)).equals(fromZip)).toBe(true);
        // Through the protocol: discovery, versions, download, then the files, the signature among them.
        const files = `/files/${NAMESPACE}`;
        expect(registry.requests.slice(requestsBefore)).toEqual(
          expect.arrayContaining([
            "/.well-known/terraform.json",
            `/v1/providers/${NAMESPACE}/${TYPE}/versions`,
            `/v1/providers/${NAMESPACE}/${TYPE}/${VERSION}/download/${PLATFORM.replace("_", "/")}`,
            `${files}/${SUMS}`,
            `${files}/${SUMS}.sig`,
            `${files}/${ZIP}`,
          ]),
        );
      }, INIT_TIMEOUT_MS);

      test("refuses a tampered release: another zip, its _SHA256SUMS line rewritten to match, the signature as it was", async () => {
        const { code, stderr, dir, source, installed } = await init("tampered");
        expect(code).not.toBe(0);
        expect(oneLine(stderr)).toContain(`Error while installing ${source} v${VERSION}: `);
        expect(oneLine(stderr)).toContain("error checking signature: openpgp: invalid signature");
        expect(fs.existsSync(installed)).toBe(false);
        expect(fs.existsSync(path.join(dir, ".terraform.lock.hcl"))).toBe(false);
      }, INIT_TIMEOUT_MS);

      test("refuses a release signed by a key the registry does not list", async () => {
        const { code, stderr, source, installed } = await init("unlisted-key");
        expect(code).not.toBe(0);
        expect(oneLine(stderr)).toContain(`Error while installing ${source} v${VERSION}: `);
        expect(oneLine(stderr)).toContain("authentication signature from unknown issuer");
        expect(fs.existsSync(installed)).toBe(false);
      }, INIT_TIMEOUT_MS);
    });
  }
});

/** Terraform's and OpenTofu's messages, wrapped to the terminal's width, on one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ");
}

/** Whether gpg answers. */
function hasGpg(): boolean {
  try {
    execFileSync("gpg", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
