// scripts/release (what `npm run release` runs after the build) into a temp dir: the artifacts are
// named as the engine, npm and pip expect them, all of package.json's version. Each plugin tarball and
// each Terraform zip holds its platform's single executable alone (linux-amd64, linux-arm64,
// darwin-amd64, darwin-arm64, windows-amd64 with .exe), package.json injected into it: this machine's
// starts with no Node.js on PATH and serves; the Linux ones carry what their platform's Node.js made
// (the Terraform provider's startup snapshot, the Pulumi plugin's code cache: read from the blob's
// header, test/support/sea-blob.ts); linux-arm64's under qemu-user and windows-amd64's under
// Wine print their port or handshake and answer GetSchema / GetProviderSchema (start times logged);
// the darwin ones are Mach-O of their CPU with the NODE_SEA segment, the SEA fuse flipped, and an ad
// hoc signature whose every page hash matches the file (test/support/macho.ts, not the signer's
// word). The npm tarball does not hold the release dir; the wheel builds without a
// deprecation warning, its metadata names the package and the version, passes `twine check
// --strict` (what PyPI checks of the metadata and renders of the readme), and installs with pip into
// a fresh venv, where it imports and reports its version. The checksums file lists every artifact
// and `sha256sum -c` verifies it. One version, package.json's, is in every artifact, schema.json, the
// SDKs and the tags the release workflow pushes (scripts/release-version). The Terraform provider's
// zips are listed with the manifest (terraform-registry-manifest.json: protocol 6.0) in the
// _SHA256SUMS, which `sha256sum -c` verifies; a filesystem mirror made of those zips, and nothing
// else, is all `terraform init` and `tofu init` need (no network), and the provider they install from
// it serves its resources and data sources. Runs from the repo after `npm run build`.
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { cliConfig, mirrorOfZips, PROVIDER_SOURCE, terraformEngine, terraformEnv, terraformOnPath, TERRAFORM_TOOLS_TIMEOUT_MS, type EngineName } from "../../../devtools/terraform";
import { runCommand, timeLeftOf } from "../../support/commands";
import { runnerFor, qemuNeeds, startExecutable, wineNeeds, type Runner } from "../../support/foreign-executables";
import { goToolchainNeeds } from "../../support/go";
import { CPU_TYPE, CS_ADHOC, readMachO, signatureProblems } from "../../support/macho";
import { connectPlugin } from "../../support/plugin-client";
import { describeNeeding } from "../../support/prerequisites";
import { seaBlobOfElf } from "../../support/sea-blob";
import { getProviderSchema, portOfHandshake, providerSchemaOfSources, TERRAFORM_PLUGIN_ENV } from "../../support/terraform-client";

const execFileAsync = promisify(execFile);
const repoRoot = path.resolve(__dirname, "..", "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
const VERSION = manifest.version;
const PLATFORMS = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"];
const HOST = `${os.platform()}-${os.arch() === "x64" ? "amd64" : os.arch()}`;
/** ELF e_machine of each Linux architecture. */
const ELF_MACHINE: Record<string, number> = { "linux-amd64": 62, "linux-arm64": 183 };
/** The Mach-O CPU type of each darwin architecture. */
const MACHO_CPU: Record<string, number> = { "darwin-amd64": CPU_TYPE.x86_64, "darwin-arm64": CPU_TYPE.arm64 };
/** The fuse a SEA's Node.js checks: postject flips its last character to 1 when it injects the blob. */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
/** An executable's name on its platform. */
const onPlatform = (platform: string, name: string) => (platform.startsWith("windows-") ? `${name}.exe` : name);
/** Runs the executables of a platform that is not this machine's, and what that needs. */
const FOREIGN: Record<string, () => Record<string, boolean>> = { "linux-arm64": qemuNeeds, "windows-amd64": wineNeeds };
// Ten single executables (two made from startup snapshots and two with code caches, one of each under qemu), the npm package and the wheel (a few minutes on a busy 2-core machine).
const RELEASE_TIMEOUT_MS = 10 * 60_000;
const EXECUTABLE = "pulumi-resource-gemini-environments";
const plugin = (platform: string) => `pulumi-resource-gemini-environments-v${VERSION}-${platform}.tar.gz`;
const NPM_PACKAGE = `pulumi-gemini-environments-${VERSION}.tgz`;
const WHEEL = `pulumi_gemini_environments-${VERSION}-py3-none-any.whl`;
const SDIST = `pulumi_gemini_environments-${VERSION}.tar.gz`;
const CHECKSUMS = `pulumi-gemini-environments_${VERSION}_checksums.txt`;
const TF = `terraform-provider-geminienvironments_${VERSION}`;
const terraformZip = (platform: string) => `${TF}_${platform.replace("-", "_")}.zip`;
const TF_MANIFEST = `${TF}_manifest.json`;
const TF_SUMS = `${TF}_SHA256SUMS`;
const TF_EXECUTABLE = `terraform-provider-geminienvironments_v${VERSION}`;
const TERRAFORM_FILES = [...PLATFORMS.map(terraformZip), TF_MANIFEST, TF_SUMS];
// A fresh venv's pip install of the wheel fetches pulumi and its dependencies (pip's cache makes it quick).
const PIP_TEST_TIMEOUT_MS = 10 * 60_000;

/** The venv of scripts/python-build, with twine. */
async function releaseVenv(): Promise<string> {
  const { stdout } = await execFileAsync(path.join(repoRoot, "scripts", "python-build"));
  return stdout.trim().split("\n").pop()!;
}

/** Runs a plugin executable; resolves with the first stdout line (its port) or rejects with its exit and stderr. */
function startPlugin(executable: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, ["127.0.0.1:1"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.stdout!.once("data", (chunk: Buffer) => {
      child.kill("SIGKILL");
      resolve(chunk.toString().trim());
    });
    child.once("exit", (code) => reject(Object.assign(new Error(`exited ${code}: ${stderr}`), { code, stderr })));
  });
}

describe("npm run release (scripts/release)", () => {
  let scratch: string;
  let out: string;
  /** What the release printed on stderr, the wheel's build included. */
  let releaseLog: string;

  beforeAll(async () => {
    const left = timeLeftOf(RELEASE_TIMEOUT_MS);
    if (!fs.existsSync(path.join(repoRoot, "dist", "provider", "plugin", "main.js"))) throw new Error("dist/ is missing: run npm run build first");
    scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-release-"));
    out = path.join(scratch, "release");
    // Unsigned: the signed release is test/e2e/registry-install.test.ts's.
    const { GPG_FINGERPRINT: _, ...env } = process.env;
    ({ stderr: releaseLog } = await runCommand([path.join(repoRoot, "scripts", "release"), "--out", out], { cwd: repoRoot, env, timeoutMs: left() }));
  }, RELEASE_TIMEOUT_MS);

  afterAll(() => fs.promises.rm(scratch, { recursive: true, force: true }));

  test("writes the five plugin tarballs, the npm package, the wheel, the sdist and their checksums, and the Terraform provider's five zips, manifest and SHA256SUMS, all of package.json's version", async () => {
    expect((await fs.promises.readdir(out)).sort()).toEqual([...PLATFORMS.map(plugin), NPM_PACKAGE, WHEEL, SDIST, CHECKSUMS, ...TERRAFORM_FILES].sort());
  });

  test("without GPG_FINGERPRINT, signs nothing (no _SHA256SUMS.sig, above) and says so in one line", () => {
    expect(releaseLog.split("\n").filter((line) => line.includes("GPG_FINGERPRINT"))).toEqual([
      "release: GPG_FINGERPRINT is not set: the Terraform provider's _SHA256SUMS will not be signed (a registry needs its .sig: docs/releasing.md)",
    ]);
  });

  test("the checksums file has one SHA-256 line per artifact, and sha256sum -c verifies them", async () => {
    const lines = (await fs.promises.readFile(path.join(out, CHECKSUMS), "utf8")).trim().split("\n");
    expect(lines.map((line) => line.split("  ")[1]).sort()).toEqual([...PLATFORMS.map(plugin), NPM_PACKAGE, WHEEL, SDIST].sort());
    for (const line of lines) expect(line).toMatch(/^[0-9a-f]{64} {2}\S+$/);
    const { stdout } = await execFileAsync("sha256sum", ["-c", CHECKSUMS], { cwd: out });
    expect(stdout.trim().split("\n")).toEqual(lines.map((line) => `${line.split("  ")[1]}: OK`));
    // A changed artifact fails the check.
    const copy = path.join(scratch, "tampered");
    await fs.promises.cp(out, copy, { recursive: true });
    await fs.promises.appendFile(path.join(copy, NPM_PACKAGE), "x");
    await expect(execFileAsync("sha256sum", ["-c", CHECKSUMS], { cwd: copy })).rejects.toMatchObject({ stdout: expect.stringContaining(`${NPM_PACKAGE}: FAILED`) });
  });

  test("the Terraform SHA256SUMS lists the five zips and the manifest, and sha256sum -c verifies them (a changed zip fails)", async () => {
    const lines = (await fs.promises.readFile(path.join(out, TF_SUMS), "utf8")).trim().split("\n");
    expect(lines.map((line) => line.split("  ")[1]).sort()).toEqual([...PLATFORMS.map(terraformZip), TF_MANIFEST].sort());
    for (const line of lines) expect(line).toMatch(/^[0-9a-f]{64} {2}\S+$/);
    await execFileAsync("sha256sum", ["-c", TF_SUMS], { cwd: out });
    const copy = path.join(scratch, "tampered-terraform");
    await fs.promises.mkdir(copy);
    for (const file of [TF_SUMS, TF_MANIFEST, ...PLATFORMS.map(terraformZip)]) await fs.promises.link(path.join(out, file), path.join(copy, file));
    const changed = path.join(copy, terraformZip(PLATFORMS[0]));
    await fs.promises.rm(changed);
    await fs.promises.copyFile(path.join(out, terraformZip(PLATFORMS[1])), changed);
    await expect(execFileAsync("sha256sum", ["-c", TF_SUMS], { cwd: copy })).rejects.toMatchObject({ stdout: expect.stringContaining(`${terraformZip(PLATFORMS[0])}: FAILED`) });
  });

  test("the Terraform manifest is the repository's terraform-registry-manifest.json: version 1, protocol 6.0", async () => {
    const manifest = await fs.promises.readFile(path.join(out, TF_MANIFEST), "utf8");
    expect(manifest).toBe(await fs.promises.readFile(path.join(repoRoot, "terraform-registry-manifest.json"), "utf8"));
    expect(JSON.parse(manifest)).toEqual({ version: 1, metadata: { protocol_versions: ["6.0"] } });
  });

  test.each(PLATFORMS)("the %s Terraform zip holds the executable terraform-provider-geminienvironments_v<version> alone, of its platform", async (platform) => {
    const zip = path.join(out, terraformZip(platform));
    const { stdout } = await execFileAsync("zipinfo", ["-1", zip]);
    expect(stdout.trim().split("\n")).toEqual([onPlatform(platform, TF_EXECUTABLE)]);
    const { stdout: long } = await execFileAsync("zipinfo", [zip, onPlatform(platform, TF_EXECUTABLE)]);
    expect(long).toMatch(/^-rwxr-xr-x/m);
    const head = (await execFileAsync("unzip", ["-p", zip, onPlatform(platform, TF_EXECUTABLE)], { encoding: "buffer", maxBuffer: 512 * 1024 * 1024 })).stdout;
    expect(formatOf(head)).toBe(platform.split("-")[0]);
  });

  test("one version, package.json's: schema.json, the SDKs, the plugin executables, the npm package, the wheel and the tags the workflow pushes", async () => {
    const { stdout } = await execFileAsync(path.join(repoRoot, "scripts", "release-version"), [`v${VERSION}`]);
    expect(stdout).toBe(`version=${VERSION}\ntag=v${VERSION}\ngo_tag=sdk/go/v${VERSION}\nprerelease=false\nnpm_tag=latest\nemulator_image=ghcr.io/gemini-environments/pulumi-gemini-environments\n`);
    const read = async (file: string) => JSON.parse(await fs.promises.readFile(path.join(repoRoot, file), "utf8")) as { version: string };
    const versions: Record<string, string> = {
      "schema.json": (await read("schema.json")).version,
      "sdk/go pulumi-plugin.json": (await read("sdk/go/geminienvironments/pulumi-plugin.json")).version,
      "sdk/python pulumi-plugin.json": (await read("sdk/python/pulumi_gemini_environments/pulumi-plugin.json")).version,
    };
    // Each executable carries package.json as an asset (contracts/package-identity.ts reads it there).
    const packageJson = await fs.promises.readFile(path.join(repoRoot, "package.json"));
    for (const platform of PLATFORMS) {
      const { stdout: executable } = await execFileAsync("tar", ["-xOzf", path.join(out, plugin(platform)), `./${onPlatform(platform, EXECUTABLE)}`], { encoding: "buffer", maxBuffer: 512 * 1024 * 1024 });
      versions[plugin(platform)] = executable.includes(packageJson) ? VERSION : "package.json not injected";
    }
    const { stdout: npmPackageJson } = await execFileAsync("tar", ["-xOzf", path.join(out, NPM_PACKAGE), "package/package.json"]);
    versions[NPM_PACKAGE] = (JSON.parse(npmPackageJson) as { version: string }).version;
    const { stdout: wheelVersion } = await execFileAsync("python3", [
      "-c",
      "import sys, zipfile, email; z = zipfile.ZipFile(sys.argv[1]); print(email.message_from_bytes(z.read(next(n for n in z.namelist() if n.endswith('.dist-info/METADATA'))))['Version'])",
      path.join(out, WHEEL),
    ]);
    versions[WHEEL] = wheelVersion.trim();
    expect(versions).toEqual(Object.fromEntries(Object.keys(versions).map((key) => [key, VERSION])));
    // A release pushed for another tag stops before anything is built.
    await expect(execFileAsync(path.join(repoRoot, "scripts", "release-version"), ["v0.0.0-not-this"])).rejects.toMatchObject({
      stderr: expect.stringContaining(`is not package.json's version v${VERSION}`),
    });
  });

  test.each(PLATFORMS)("the %s tarball holds the executable pulumi-resource-gemini-environments alone, of its platform, executable", async (platform) => {
    const { stdout } = await execFileAsync("tar", ["-tvzf", path.join(out, plugin(platform))]);
    const entries = stdout.trim().split("\n");
    expect(entries.map((line) => line.split(" ").pop())).toEqual(["./", `./${onPlatform(platform, EXECUTABLE)}`]);
    expect(entries[1]).toMatch(/^-rwxr-xr-x/);
  });

  describe.each(PLATFORMS)("the %s executables", (platform) => {
    let dir: string;
    /** The Pulumi plugin's and the Terraform provider's executables, with their bytes. */
    let executables: Array<{ role: string; file: string; binary: Buffer }>;

    beforeAll(async () => {
      dir = path.join(scratch, platform);
      await fs.promises.mkdir(dir);
      await execFileAsync("tar", ["-xzf", path.join(out, plugin(platform)), "-C", dir]);
      await execFileAsync("unzip", ["-q", path.join(out, terraformZip(platform)), "-d", dir]);
      executables = await Promise.all(
        [
          ["Pulumi plugin", onPlatform(platform, EXECUTABLE)],
          ["Terraform provider", onPlatform(platform, TF_EXECUTABLE)],
        ].map(async ([role, name]) => ({ role, file: path.join(dir, name), binary: await fs.promises.readFile(path.join(dir, name)) })),
      );
    });

    test("are single executables: the SEA blob injected, and the fuse Node.js checks for it flipped", () => {
      for (const { binary } of executables) {
        expect(binary.includes(`${SEA_FUSE}:1`)).toBe(true);
        expect(binary.includes(`${SEA_FUSE}:0`)).toBe(false);
        // What the Pulumi plugin and the Terraform provider are told apart by, in the injected bundle.
        expect(binary.includes('"terraform-provider-"')).toBe(true);
      }
    });

    if (platform.startsWith("linux-")) {
      test("are ELF binaries of their architecture, with the blob's note", () => {
        for (const { binary } of executables) {
          expect(binary.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
          expect(binary.readUInt16LE(18)).toBe(ELF_MACHINE[platform]);
          expect(binary.includes("NODE_SEA_BLOB")).toBe(true);
        }
      });
      // Made by the platform's own Node.js: here, or under qemu-user (without it, the bare bundle).
      (platform === HOST ? describe : describeNeeding(FOREIGN[platform]?.() ?? {}))("made by their platform's Node.js", () => {
        test("start from what it made: the Terraform provider from a startup snapshot, the Pulumi plugin's bundle with its code cache", () => {
          expect(seaBlobOfElf(executables[0].binary)).toEqual({ snapshot: false, codeCache: true });
          expect(seaBlobOfElf(executables[1].binary)).toEqual({ snapshot: true, codeCache: false });
        });
      });
    } else if (platform.startsWith("windows-")) {
      test("are PE executables for x86-64 with the blob as the resource NODE_SEA_BLOB", () => {
        for (const { binary } of executables) {
          const pe = binary.readUInt32LE(0x3c);
          expect(binary.subarray(pe, pe + 4).toString("latin1")).toBe("PE\0\0");
          expect(binary.readUInt16LE(pe + 4)).toBe(0x8664);
          expect(binary.includes(Buffer.from("NODE_SEA_BLOB", "utf16le"))).toBe(true);
        }
      });
    } else {
      test("are Mach-O binaries of their CPU with the blob in the segment NODE_SEA, signed ad hoc again: every page hash matches the file", () => {
        for (const { role, file, binary } of executables) {
          const macho = readMachO(binary);
          expect(macho.cpuType).toBe(MACHO_CPU[platform]);
          const segment = macho.segments.find((candidate) => candidate.name === "NODE_SEA");
          expect(segment?.sections.map((section) => section.name)).toEqual(["__NODE_SEA_BLOB"]);
          expect(segment!.sections[0].size).toBeGreaterThan(1_000_000);
          // __LINKEDIT stays last, as the signature's place at the end of the file needs.
          expect(macho.segments.at(-1)?.name).toBe("__LINKEDIT");
          const { signature } = macho;
          expect(signature).toBeDefined();
          const { flags, hashType, pageSizeLog2, identifier } = signature!.codeDirectory;
          expect({ role, adhoc: (flags & CS_ADHOC) !== 0, identifier, hashType, pageSize: 2 ** pageSizeLog2 }).toEqual({
            role,
            adhoc: true,
            identifier: path.basename(file),
            hashType: 2, // SHA-256
            pageSize: 4096,
          });
          expect(signature!.offset + signature!.size).toBeLessThanOrEqual(binary.length);
          expect(signatureProblems(binary, signature!)).toEqual([]);
          // The checker catches a changed byte of the code.
          const changed = Buffer.from(binary);
          changed[segment!.sections[0].offset + 100] ^= 1;
          expect(signatureProblems(changed, signature!)).toEqual([expect.stringMatching(/^1 of \d+ page hashes differ/)]);
        }
      });
    }

    if (platform === HOST) {
      test("the Pulumi plugin starts here with no Node.js on PATH and prints its port", async () => {
        expect(await startPlugin(executables[0].file, { PATH: path.join(scratch, "no-such-dir") })).toMatch(/^\d+$/);
      });
      test("the Terraform provider starts here with no Node.js on PATH, prints its handshake and serves its schema", async () => {
        const runner: Runner = { prefix: [], env: {}, close: async () => undefined };
        await expectServing(runner, { PATH: path.join(scratch, "no-such-dir") });
      }, 60_000);
    } else if (FOREIGN[platform] && HOST === "linux-amd64") {
      describeNeeding(FOREIGN[platform]())(`run here (${platform === "windows-amd64" ? "under Wine" : "under qemu-user"})`, () => {
        let runner: Runner;
        beforeAll(async () => (runner = await runnerFor(platform, scratch)), 120_000);
        afterAll(() => runner?.close());

        test("the Pulumi plugin prints its port and answers GetSchema", async () => {
          const started = await startExecutable(runner, executables[0].file, ["127.0.0.1:1"], {}, path.join(dir, "plugin.out"));
          try {
            console.log(`release: the ${platform} Pulumi plugin printed its port in ${Math.round(started.elapsedMs)} ms`);
            expect(started.firstLine).toMatch(/^\d+$/);
            const client = connectPlugin(started.child, started.firstLine, started.stderr);
            expect(await client.schema()).toMatchObject({ name: "gemini-environments", version: VERSION });
            expect(await client.version()).toBe(VERSION);
          } finally {
            started.stop();
          }
        }, 120_000);

        test("the Terraform provider prints its handshake and answers GetProviderSchema", () => expectServing(runner, {}), 120_000);
      });
    } else {
      console.warn(`release: the ${platform} single executables are not started: this machine is ${HOST}`);
    }

    /** Starts the Terraform provider three times (the time of the fastest logged), and asks the last for its schema. */
    async function expectServing(runner: Runner, env: Record<string, string>): Promise<void> {
      const times: number[] = [];
      for (let start = 0; start < 3; start++) {
        const started = await startExecutable(runner, executables[1].file, [], { ...TERRAFORM_PLUGIN_ENV, ...env }, path.join(dir, "terraform.out"));
        try {
          times.push(started.elapsedMs);
          const port = portOfHandshake(started.firstLine);
          if (start < 2) continue;
          const schema = await getProviderSchema(port);
          expect(Object.keys(schema.resource_schemas).sort()).toEqual(["geminienvironments_credential", "geminienvironments_environment"]);
          expect(Object.keys(schema.data_source_schemas)).toHaveLength(6);
          // Encoded once, before the startup snapshot was made: the same answer, field for field.
          expect(schema).toEqual(await providerSchemaOfSources());
        } finally {
          started.stop();
        }
      }
      console.log(`release: the ${platform} Terraform provider printed its handshake in ${times.map((ms) => Math.round(ms)).join(", ")} ms`);
    }
  });

  test("the npm package: package.json of the version, the launcher, and no release artifacts", async () => {
    const tarball = path.join(out, `pulumi-gemini-environments-${VERSION}.tgz`);
    const { stdout } = await execFileAsync("tar", ["-tzf", tarball], { maxBuffer: 64 * 1024 * 1024 });
    expect(stdout).toContain(`package/bin/${EXECUTABLE}`);
    expect(stdout).not.toContain("package/dist/release/");
    const { stdout: packageJson } = await execFileAsync("tar", ["-xOzf", tarball, "package/package.json"]);
    expect(JSON.parse(packageJson)).toMatchObject({ name: "pulumi-gemini-environments", version: VERSION });
  });

  test("the wheel's metadata: pulumi_gemini_environments of the version, needing pulumi", async () => {
    const wheel = path.join(out, `pulumi_gemini_environments-${VERSION}-py3-none-any.whl`);
    const { stdout } = await execFileAsync("python3", [
      "-c",
      "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.read(next(n for n in z.namelist() if n.endswith('.dist-info/METADATA'))).decode())",
      wheel,
    ]);
    expect(stdout).toMatch(/^Name: pulumi_gemini_environments$/m);
    expect(stdout).toMatch(new RegExp(`^Version: ${VERSION.replace(/\./g, "\\.")}$`, "m"));
    expect(stdout).toMatch(/^Requires-Dist: pulumi<4\.0\.0,>=3\.248\.0$/m);
    // What PyPI shows: the license (an SPDX expression, PEP 639), the project's URLs, classifiers, and the registry overview as the readme.
    expect(stdout).toMatch(/^License-Expression: Apache-2\.0$/m);
    expect(stdout).toMatch(/^Project-URL: Repository, https:\/\/github\.com\/gemini-environments\/pulumi-gemini-environments$/m);
    expect(stdout).toMatch(/^Classifier: Typing :: Typed$/m);
    expect(stdout).toMatch(/^Description-Content-Type: text\/markdown$/m);
    expect(stdout).toContain(fs.readFileSync(path.join(repoRoot, "docs", "registry", "overview.md"), "utf8").split("\n")[0]);
  });

  test("the wheel builds without a deprecation warning of setuptools (the license is an SPDX expression, not a table)", () => {
    expect(releaseLog).toContain("python -m build --sdist --wheel");
    expect(releaseLog.split("\n").filter((line) => /deprecat/i.test(line))).toEqual([]);
  });

  test.each([WHEEL, SDIST])("%s passes twine check --strict", async (distribution) => {
    const bin = await releaseVenv();
    const { stdout } = await execFileAsync(path.join(bin, "twine"), ["--no-color", "check", "--strict", path.join(out, distribution)], { env: { ...process.env, COLUMNS: "500" } });
    // twine wraps its lines at the terminal's width, a path included.
    expect(stdout.replace(/\s*\n\s*/g, "")).toContain(`${distribution}: PASSED`);
  });

  test("the sdist holds the SDK's sources and builds the same package: its PKG-INFO names the version", async () => {
    const { stdout: names } = await execFileAsync("tar", ["-tzf", path.join(out, SDIST)], { maxBuffer: 16 * 1024 * 1024 });
    const root = `pulumi_gemini_environments-${VERSION}`;
    expect(names.split("\n")).toEqual(expect.arrayContaining([`${root}/pyproject.toml`, `${root}/pulumi_gemini_environments/__init__.py`, `${root}/pulumi_gemini_environments/pulumi-plugin.json`]));
    const { stdout: pkgInfo } = await execFileAsync("tar", ["-xOzf", path.join(out, SDIST), `${root}/PKG-INFO`]);
    expect(pkgInfo).toMatch(new RegExp(`^Version: ${VERSION.replace(/\./g, "\\.")}$`, "m"));
  });

  test(
    "a fresh venv's pip install of the wheel imports it and reports its version",
    async () => {
      const left = timeLeftOf(PIP_TEST_TIMEOUT_MS);
      const venv = path.join(scratch, "venv");
      await execFileAsync("python3", ["-m", "venv", venv]);
      await runCommand([path.join(venv, "bin", "python3"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", path.join(out, WHEEL)], { timeoutMs: left() });
      const { stdout } = await execFileAsync(path.join(venv, "bin", "python3"), [
        "-c",
        "import importlib.metadata, pulumi_gemini_environments as genv; from pulumi_gemini_environments import _utilities; print(importlib.metadata.version('pulumi_gemini_environments'), _utilities.get_version(), genv.Environment.__name__)",
      ]);
      expect(stdout.trim()).toBe(`${VERSION} ${VERSION} Environment`);
    },
    PIP_TEST_TIMEOUT_MS,
  );

  const engineNeeds: Record<EngineName, Record<string, boolean>> = {
    terraform: { "terraform on PATH (Terraform 1.11 or newer)": terraformOnPath() !== undefined },
    tofu: goToolchainNeeds(),
  };
  describe.each(["terraform", "tofu"] as const)("a filesystem mirror made of the zips, with %s", (name) => {
    describeNeeding(engineNeeds[name])(`is all ${name} init needs`, () => {
      let dir: string;
      let env: NodeJS.ProcessEnv;
      let binary: string;
      const run = (args: string[]) => runCommand([binary, ...args], { cwd: dir, env, timeoutMs: 60_000 });

      beforeAll(async () => {
        binary = (await terraformEngine(name, repoRoot)).binary;
        const base = path.join(scratch, `mirror-${name}`);
        dir = path.join(base, "config");
        await fs.promises.mkdir(dir, { recursive: true });
        // Nothing but the release's zips, as the release publishes them, in the packed layout.
        await mirrorOfZips(PLATFORMS.map((platform) => path.join(out, terraformZip(platform))), path.join(base, "mirror"));
        await fs.promises.writeFile(path.join(base, "cli.tfrc"), cliConfig([{ dir: path.join(base, "mirror"), providers: [PROVIDER_SOURCE] }]));
        await fs.promises.copyFile(path.join(repoRoot, "examples", "terraform", "provider", "provider.tf"), path.join(dir, "provider.tf"));
        // A provider no mirror holds would be downloaded: init must not need the network.
        env = { ...terraformEnv({ cliConfigFile: path.join(base, "cli.tfrc"), baseUrl: "http://127.0.0.1:9", apiKey: "unused" }), HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9" };
      }, TERRAFORM_TOOLS_TIMEOUT_MS);

      test(`${name} init installs the provider of the version from the zip of this machine, and locks it`, async () => {
        const { stdout } = await run(["init", "-no-color"]);
        expect(stdout).toContain(`Installing ${PROVIDER_SOURCE} v${VERSION}`);
        expect(stdout).toMatch(/has been successfully initialized/);
        const lock = await fs.promises.readFile(path.join(dir, ".terraform.lock.hcl"), "utf8");
        expect(lock).toMatch(new RegExp(`provider "registry\\.(terraform\\.io|opentofu\\.org)/${PROVIDER_SOURCE}" \\{\\n {2}version = "${VERSION.replace(/\./g, "\\.")}"`));
        // What it installed is the zip's executable, byte for byte.
        const host = name === "tofu" ? "registry.opentofu.org" : "registry.terraform.io";
        const installed = path.join(dir, ".terraform", "providers", host, PROVIDER_SOURCE, VERSION, HOST.replace("-", "_"), TF_EXECUTABLE);
        const { stdout: fromZip } = await execFileAsync("unzip", ["-p", path.join(out, terraformZip(HOST)), TF_EXECUTABLE], { encoding: "buffer", maxBuffer: 512 * 1024 * 1024 });
        expect((await fs.promises.readFile(installed)).equals(fromZip)).toBe(true);
      }, 120_000);

      test(`the provider ${name} installed serves its schema: both resources and the six data sources`, async () => {
        const { stdout } = await run(["providers", "schema", "-json"]);
        const schemas = (JSON.parse(stdout) as { provider_schemas: Record<string, { resource_schemas: object; data_source_schemas: object }> }).provider_schemas;
        const [address, schema] = Object.entries(schemas)[0];
        expect(address).toMatch(new RegExp(`/${PROVIDER_SOURCE}$`));
        expect(Object.keys(schema.resource_schemas).sort()).toEqual(["geminienvironments_credential", "geminienvironments_environment"]);
        expect(Object.keys(schema.data_source_schemas)).toHaveLength(6);
      }, 120_000);
    });
  });
});

/** linux, darwin or windows: the executable format of a binary's first bytes. */
function formatOf(binary: Buffer): string {
  if (binary.subarray(0, 4).toString("latin1") === "\x7fELF") return "linux";
  if (binary.readUInt32LE(0) === 0xfeedfacf) return "darwin";
  if (binary.subarray(0, 2).toString("latin1") === "MZ") return "windows";
  return `unknown (${binary.subarray(0, 4).toString("hex")})`;
}
