/**
 * scripts/release-version, the release workflow's first step, decides what a tag publishes: a
 * prerelease (a SemVer version with a `-`) goes to npm's `next` dist-tag and a GitHub prerelease,
 * never to `latest`; no release leaves without its dated CHANGELOG section (its notes); and the
 * emulator's image is named as EmulatorContainer names its default. Run on a
 * copy of the script beside a package.json and a CHANGELOG.md of the case's making.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
const repoRoot = path.resolve(__dirname, "..", "..", "..");

/** The package's name under the repository owner's container registry (lowercased: registries take no capitals). */
const IMAGE = "ghcr.io/gemini-environments/pulumi-gemini-environments";

let dir: string;
beforeEach(async () => {
  dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-release-version-"));
  await fs.promises.mkdir(path.join(dir, "scripts"));
  await fs.promises.copyFile(path.join(repoRoot, "scripts", "release-version"), path.join(dir, "scripts", "release-version"));
});
afterEach(() => fs.promises.rm(dir, { recursive: true, force: true }));

async function releaseVersion(version: string, changelog: string, tag = `v${version}`): Promise<string> {
  await fs.promises.writeFile(path.join(dir, "package.json"), JSON.stringify({ name: "pulumi-gemini-environments", version, repository: { type: "git", url: "git+https://github.com/Gemini-Environments/pulumi-gemini-environments.git" } }));
  await fs.promises.writeFile(path.join(dir, "CHANGELOG.md"), `# Changelog\n\n${changelog}`);
  const { stdout } = await execFileAsync(path.join(dir, "scripts", "release-version"), [tag]);
  return stdout;
}

test("a release: npm's latest, a full GitHub release", async () => {
  expect(await releaseVersion("0.3.0", "## [0.3.0] — 2026-12-05\n\n### Added\n- a thing\n")).toBe(`version=0.3.0\ntag=v0.3.0\ngo_tag=sdk/go/v0.3.0\nprerelease=false\nnpm_tag=latest\nemulator_image=${IMAGE}\n`);
});

test("a prerelease (v0.3.0-rc.1): npm's next dist-tag and a GitHub prerelease", async () => {
  expect(await releaseVersion("0.3.0-rc.1", "## [0.3.0-rc.1] — 2026-12-05\n\n- a candidate\n")).toBe(
    `version=0.3.0-rc.1\ntag=v0.3.0-rc.1\ngo_tag=sdk/go/v0.3.0-rc.1\nprerelease=true\nnpm_tag=next\nemulator_image=${IMAGE}\n`,
  );
});

test("a CHANGELOG section with no date stops the release, saying what to write", async () => {
  await expect(releaseVersion("0.3.0", "## [0.3.0] — unreleased\n\n- a thing\n")).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/CHANGELOG\.md's section for 0\.3\.0 has no date \("## \[0\.3\.0\] — unreleased"\): write "## \[0\.3\.0\] — \d{4}-\d{2}-\d{2}" in the release commit/),
  });
});

test("no CHANGELOG section for the version stops the release (another version's dated section does not count)", async () => {
  await expect(releaseVersion("0.3.0", "## [0.2.0] — 2026-12-03\n\n- before\n")).rejects.toMatchObject({
    stderr: expect.stringContaining("CHANGELOG.md has no section ## [0.3.0]"),
  });
});

test("the image name is the one EmulatorContainer defaults to, less the version tag", async () => {
  const { releasedEmulatorImage } = await import("../../../provider/contracts/package-identity");
  const version = (JSON.parse(await fs.promises.readFile(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
  const { stdout } = await execFileAsync(path.join(repoRoot, "scripts", "release-version"));
  expect(`${/^emulator_image=(.+)$/m.exec(stdout)?.[1]}:${version}`).toBe(releasedEmulatorImage());
});
