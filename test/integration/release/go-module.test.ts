/**
 * The Go SDK as a Go user gets it once released: the module github.com/gemini-environments/pulumi-gemini-environments/sdk/go
 * resolved from a git remote by its tag sdk/go/v<version> (what the release workflow pushes), with no
 * `replace`. The remote is a local clone of this repository, tagged, with this worktree's sdk/go;
 * git reaches it through `url.<clone>.insteadOf` for the GitHub URL the go command derives from the
 * module path, and GOPRIVATE (our path only) sends the go command to git directly, past the module
 * proxy and the checksum database. A consumer module, examples/go-environment's program, then
 * `go get`s the tag, `go mod tidy`s, builds and vets; its Pulumi SDK is the version sdk/go/go.mod
 * requires (tidy had nothing of ours to raise), and sdk/go itself is tidy.
 *
 * Our module's entries in the shared module cache (GOMODCACHE) are removed before and after, and the
 * go command's index of module directories is off (GODEBUG=goindex=0), so that each run resolves the
 * SDK of this tree and not a cached one of the same version.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { runCommand, timeLeftOf } from "../../support/commands";
import { goToolchainNeeds } from "../../support/go";
import { describeNeeding } from "../../support/prerequisites";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..", "..", "..");
const VERSION = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
const REPOSITORY = "github.com/gemini-environments/pulumi-gemini-environments";
const MODULE = `${REPOSITORY}/sdk/go`;
const PULUMI_SDK = "github.com/pulumi/pulumi/sdk/v3";
// The first run downloads github.com/pulumi/pulumi/sdk/v3 and its dependencies, then compiles them
// (minutes on a busy 2-core machine; seconds once Go's caches hold them).
const TEST_TIMEOUT_MS = 10 * 60_000;

/** The version `modFile` requires of `modulePath` (go mod edit -json reads it). */
async function requiredVersion(modFile: string, modulePath: string): Promise<string | undefined> {
  const { stdout } = await run("go", ["mod", "edit", "-json", modFile]);
  return (JSON.parse(stdout) as { Require?: Array<{ Path: string; Version: string }> }).Require?.find((r) => r.Path === modulePath)?.Version;
}

describeNeeding(goToolchainNeeds())("the Go SDK from a tagged git remote, as a Go user gets it", () => {
  let scratch: string;
  let remote: string;
  let consumer: string;
  let env: NodeJS.ProcessEnv;

  const go = (args: string[], timeoutMs: number, cwd = consumer) => runCommand(["go", ...args], { cwd, env, timeoutMs });
  const git = (args: string[], cwd = remote) => run("git", args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: "release test", GIT_AUTHOR_EMAIL: "release@test.invalid", GIT_COMMITTER_NAME: "release test", GIT_COMMITTER_EMAIL: "release@test.invalid" } });

  /** Removes our module from the shared module cache (read-only files, as the go command leaves them). */
  async function forgetOurModule(): Promise<void> {
    const { stdout } = await run("go", ["env", "GOMODCACHE"]);
    const cache = stdout.trim();
    const owner = REPOSITORY.split("/").slice(0, 2).join("/");
    const vcs = path.join(cache, "cache", "vcs");
    const ours = [path.join(cache, owner), path.join(cache, "cache", "download", owner)];
    // The go command's git clones: a directory named by a hash, whose .info file names the URL.
    for (const entry of fs.existsSync(vcs) ? await fs.promises.readdir(vcs) : []) {
      if (entry.endsWith(".info") && (await fs.promises.readFile(path.join(vcs, entry), "utf8")).includes(REPOSITORY)) {
        const hash = entry.slice(0, -".info".length);
        ours.push(path.join(vcs, hash), path.join(vcs, entry), path.join(vcs, `${hash}.lock`));
      }
    }
    for (const dir of ours.filter((p) => fs.existsSync(p))) {
      await run("chmod", ["-R", "u+w", dir]);
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }

  beforeAll(async () => {
    const left = timeLeftOf(TEST_TIMEOUT_MS);
    scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-go-module-"));
    remote = path.join(scratch, "remote");
    consumer = path.join(scratch, "consumer");
    await forgetOurModule();

    // The remote: this repository's history, with this tree's sdk/go committed and tagged as the release does.
    await runCommand(["git", "clone", "--quiet", "--no-hardlinks", root, remote], { timeoutMs: left() });
    const { stdout: listed } = await run("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "sdk/go"], { cwd: root });
    await fs.promises.rm(path.join(remote, "sdk", "go"), { recursive: true, force: true });
    for (const file of listed.split("\0").filter((f) => f !== "" && fs.existsSync(path.join(root, f)))) {
      await fs.promises.mkdir(path.dirname(path.join(remote, file)), { recursive: true });
      await fs.promises.copyFile(path.join(root, file), path.join(remote, file));
    }
    await git(["add", "-A", "sdk/go"]);
    await git(["commit", "--quiet", "--allow-empty", "-m", "sdk/go of the tree under test"]);
    await git(["tag", `sdk/go/v${VERSION}`]);

    env = {
      ...process.env,
      GOPRIVATE: REPOSITORY,
      GOFLAGS: "",
      // As test/unit/examples-go.test.ts builds: the same build cache entries for the Pulumi SDK.
      CGO_ENABLED: "0",
      // The go command keeps an index of each module cache directory in GOCACHE, by path alone (the
      // module cache being immutable): without it, a tree of this version indexed by an earlier run.
      GODEBUG: [process.env.GODEBUG, "goindex=0"].filter(Boolean).join(","),
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: `url.${remote}.insteadOf`,
      GIT_CONFIG_VALUE_0: `https://${REPOSITORY}`,
    };
    await fs.promises.mkdir(consumer);
    await fs.promises.copyFile(path.join(root, "examples", "go-environment", "main.go"), path.join(consumer, "main.go"));
    await go(["mod", "init", "example.com/consumer"], left());
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await forgetOurModule();
    await fs.promises.rm(scratch, { recursive: true, force: true });
  });

  test(
    `go get ${MODULE}@v${VERSION}, go mod tidy, go build and go vet of a program succeed, with no replace`,
    async () => {
      const left = timeLeftOf(TEST_TIMEOUT_MS);
      await go(["get", `${MODULE}@v${VERSION}`], left());
      await go(["mod", "tidy"], left());
      await go(["build", "-o", path.join(scratch, "program"), "."], left());
      await go(["vet", "."], left());
      expect(fs.statSync(path.join(scratch, "program")).size).toBeGreaterThan(0);

      const { stdout } = await go(["mod", "edit", "-json"], left());
      const consumerMod = JSON.parse(stdout) as { Require: Array<{ Path: string; Version: string }>; Replace?: unknown[] };
      expect(consumerMod.Replace ?? []).toEqual([]);
      expect(consumerMod.Require.find((r) => r.Path === MODULE)?.Version).toBe(`v${VERSION}`);
      // The SDK named the Pulumi SDK its code needs: tidy raised nothing of ours.
      const sdkPulumi = await requiredVersion(path.join(root, "sdk", "go", "go.mod"), PULUMI_SDK);
      expect(sdkPulumi).toMatch(/^v3\./);
      expect(consumerMod.Require.find((r) => r.Path === PULUMI_SDK)?.Version).toBe(sdkPulumi);
      // The module resolved from the tag, not from the tree.
      const { stdout: listed } = await go(["list", "-m", "-f", "{{.Version}} {{.Dir}}", MODULE], left());
      const [version, dir] = listed.trim().split(" ");
      expect(version).toBe(`v${VERSION}`);
      expect(dir.startsWith(root)).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  test("sdk/go is tidy: go mod tidy -diff has nothing to change", async () => {
    await go(["mod", "tidy", "-diff"], timeLeftOf(TEST_TIMEOUT_MS)(), path.join(root, "sdk", "go"));
  }, TEST_TIMEOUT_MS);
});
