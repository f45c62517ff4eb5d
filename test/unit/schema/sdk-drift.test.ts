/**
 * sdk/python and sdk/go are generated from schema.json by Pulumi's own generators (scripts/generate-sdks,
 * `npm run sdks`) and checked in, as published providers do: this regenerates them into a temporary
 * directory and fails on any difference, naming the files — sdk/go's go.mod and go.sum (after
 * `go mod tidy`) and sdk/python's README.md and classifiers included. The first run builds the
 * generator (scripts/sdkgen, about a minute cold), cached outside the repository.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { runCommand, timeLeftOf } from "../../support/commands";

const root = path.resolve(__dirname, "../../..");
const GENERATED = ["python", "go"];
// The first run builds the generator (above); then a generation takes about a second.
const GENERATION_TIMEOUT_MS = 10 * 60_000;

/** Every file under `dir`, relative to it, with its text. */
function files(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    found.set(path.relative(dir, full), fs.readFileSync(full, "utf8"));
  }
  return found;
}

/**
 * The files of the repository's `sdk/<language>` that git sees (tracked, or new and not ignored): a
 * wheel built in place leaves build/ and *.egg-info, which the generated .gitignore ignores.
 */
function repositoryFiles(language: string): Map<string, string> {
  const dir = path.join(root, "sdk", language);
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "."], { cwd: dir, encoding: "utf8" });
  return new Map(
    listed
      .split("\0")
      .filter((file) => file !== "" && fs.existsSync(path.join(dir, file)))
      .map((file) => [file, fs.readFileSync(path.join(dir, file), "utf8")]),
  );
}

let out: string;

beforeAll(async () => {
  const left = timeLeftOf(GENERATION_TIMEOUT_MS);
  out = fs.mkdtempSync(path.join(os.tmpdir(), "genv-sdks-"));
  await runCommand([path.join(root, "scripts", "generate-sdks"), out], { timeoutMs: left() });
}, GENERATION_TIMEOUT_MS);

afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

test.each(GENERATED)("the committed sdk/%s is the generators' output (run `npm run sdks` to update it)", (language) => {
  const committed = repositoryFiles(language);
  const generated = files(path.join(out, language));
  const differing = [...new Set([...committed.keys(), ...generated.keys()])]
    .filter((file) => committed.get(file) !== generated.get(file))
    .map((file) => `sdk/${language}/${file}${!committed.has(file) ? " (not committed)" : !generated.has(file) ? " (not generated)" : ""}`)
    .sort();
  expect(differing).toEqual([]);
  expect(generated.size).toBeGreaterThan(0);
});

test("the SDKs carry the package's version and identity", () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  expect(fs.readFileSync(path.join(out, "python", "pyproject.toml"), "utf8")).toMatch(new RegExp(`name = "pulumi_gemini_environments"[\\s\\S]*version = "${version.replace(/\./g, "\\.")}"`));
  expect(JSON.parse(fs.readFileSync(path.join(out, "python", "pulumi_gemini_environments", "pulumi-plugin.json"), "utf8"))).toMatchObject({ name: "gemini-environments", version });
  const goMod = fs.readFileSync(path.join(out, "go", "go.mod"), "utf8");
  const modulePath = /^module (\S+)$/m.exec(goMod)?.[1];
  // The package's imports of its own internal package use the module's path: the code builds where it is written.
  expect(fs.readFileSync(path.join(out, "go", "geminienvironments", "environment.go"), "utf8")).toContain(`"${modulePath}/geminienvironments/internal"`);
});

test("a key Pulumi's schema package does not know fails generation, named (Pulumi would drop it, and what it says with it)", async () => {
  const schema = JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8")) as {
    resources: Record<string, { inputProperties: Record<string, Record<string, unknown>>; [key: string]: unknown }>;
    language: Record<string, Record<string, unknown>>;
  };
  const credential = schema.resources["gemini-environments:index:Credential"]!;
  credential.replaceOnChanges = ["type"];
  credential.inputProperties.type!.willReplaceOnChange = true;
  schema.language.python!.packagename = "typo";
  const file = path.join(out, "unknown-keys.json");
  fs.writeFileSync(file, JSON.stringify(schema));
  const { stdout: sdkgen } = await promisify(execFile)(path.join(root, "scripts", "generate-sdks"), ["--build"]);
  const failure = await promisify(execFile)(sdkgen.trim(), [file, path.join(out, "unknown-keys-sdks")]).then(
    () => undefined,
    (error: { stderr: string }) => error,
  );
  expect(failure?.stderr).toContain("keys Pulumi's schema does not know");
  for (const key of [
    "resources.gemini-environments:index:Credential.replaceOnChanges",
    "resources.gemini-environments:index:Credential.inputProperties.type.willReplaceOnChange",
    "language.python.packagename",
  ]) {
    expect(failure?.stderr).toContain(key);
  }
});

test("the Go module requires the Pulumi SDK scripts/sdkgen pins (the engine's), and every module its code imports, with a go.sum", async () => {
  const required = async (modFile: string) =>
    new Map(
      (JSON.parse((await promisify(execFile)("go", ["mod", "edit", "-json", modFile])).stdout) as { Require: Array<{ Path: string; Version: string; Indirect?: boolean }> }).Require.map(
        (r) => [r.Path, r],
      ),
    );
  const pinned = (await required(path.join(root, "scripts", "sdkgen", "go.mod"))).get("github.com/pulumi/pulumi/sdk/v3")?.Version;
  const sdk = await required(path.join(out, "go", "go.mod"));
  expect(pinned).toMatch(/^v3\./);
  expect(sdk.get("github.com/pulumi/pulumi/sdk/v3")).toMatchObject({ Version: pinned });
  // init.go imports it to parse the plugin's version.
  expect(sdk.get("github.com/pulumi/pulumi/sdk/v3")?.Indirect).toBeFalsy();
  expect(sdk.get("github.com/blang/semver")?.Indirect).toBeFalsy();
  expect(fs.readFileSync(path.join(out, "go", "go.sum"), "utf8")).toContain(`github.com/pulumi/pulumi/sdk/v3 ${pinned} h1:`);
});

test("the wheel's readme is the registry overview, and its metadata has classifiers", () => {
  expect(fs.readFileSync(path.join(out, "python", "README.md"), "utf8")).toBe(fs.readFileSync(path.join(root, "docs", "registry", "overview.md"), "utf8"));
  expect(fs.readFileSync(path.join(out, "python", "pyproject.toml"), "utf8")).toMatch(/^ {2}classifiers = \[.*"Typing :: Typed".*\]$/m);
});
