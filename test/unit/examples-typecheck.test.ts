/**
 * Every example under examples/ type-checks against the package's sources, with its own tsconfig.json,
 * as a user would compile it — `pulumi-gemini-environments` mapped to this repo's index.ts — so that an
 * API change cannot leave an example behind.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const root = path.resolve(__dirname, "../..");
const examplesDir = path.join(root, "examples");
// examples/emulator-image builds the emulator's Docker image and uses nothing of this package; it
// type-checks in test/e2e/emulator-image.test.ts, against the @pulumi/docker-build SDK that
// scripts/docker-build-plugin caches.
const NOT_OF_THE_PACKAGE = new Set(["emulator-image"]);
const examples = fs
  .readdirSync(examplesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(examplesDir, entry.name, "tsconfig.json")) && !NOT_OF_THE_PACKAGE.has(entry.name))
  .map((entry) => entry.name);

function diagnosticsOf(example: string): string[] {
  const dir = path.join(examplesDir, example);
  const configFile = ts.readConfigFile(path.join(dir, "tsconfig.json"), ts.sys.readFile);
  if (configFile.error) return [ts.flattenDiagnosticMessageText(configFile.error.messageText, "\n")];
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, dir);
  return diagnosticsOfFiles(parsed.fileNames, parsed.options, dir);
}

function diagnosticsOfFiles(fileNames: string[], compilerOptions: ts.CompilerOptions, dir: string): string[] {
  const options: ts.CompilerOptions = {
    ...compilerOptions,
    noEmit: true,
    baseUrl: dir,
    paths: { "pulumi-gemini-environments": [path.join(root, "index.ts")] },
  };
  const program = ts.createProgram(fileNames, options);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${path.relative(root, diagnostic.file.fileName)}:${line + 1}:${character + 1}: ${message}`;
  });
}

test("the examples are there", () => {
  expect(examples.sort()).toEqual(["audit-logging", "emulator-container", "fleet", "gitops", "privacy-gate", "security-gate"]);
});

test.each(examples)("examples/%s type-checks", (example) => {
  expect(diagnosticsOf(example)).toEqual([]);
}, 120_000);

test.each(examples)("examples/%s has what a Pulumi project needs", (example) => {
  const dir = path.join(examplesDir, example);
  expect(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")).toMatch(/^runtime: nodejs$/m);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  // examples/gitops runs the policy pack in its pull-request check, so it depends on the pack's optional peer.
  const policyPack = example === "gitops" ? { "@pulumi/policy": "1.21.0" } : {};
  // examples/emulator-container runs the emulator through EmulatorContainer, whose optional peer is @pulumi/docker.
  const docker = example === "emulator-container" ? { "@pulumi/docker": "5.0.0" } : {};
  expect(pkg.dependencies).toEqual({ ...policyPack, ...docker, "@pulumi/pulumi": "3.248.0", "pulumi-gemini-environments": "file:../.." });
  expect(fs.existsSync(path.join(dir, "README.md"))).toBe(true);
});

// The TypeScript programs of examples/reference (the schema's examples), as the examples' tsconfig.json compiles them.
test("examples/reference/*/typescript/index.ts type-check", () => {
  const reference = path.join(examplesDir, "reference");
  const files = fs.readdirSync(reference).map((name) => path.join(reference, name, "typescript", "index.ts")).filter((file) => fs.existsSync(file));
  expect(files.length).toBeGreaterThan(0);
  const options = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(examplesDir, "security-gate", "tsconfig.json"), ts.sys.readFile).config, ts.sys, reference).options;
  // Each is a module of its own, so their top-level names do not clash.
  expect(diagnosticsOfFiles(files, { ...options, moduleDetection: ts.ModuleDetectionKind.Force }, reference)).toEqual([]);
}, 120_000);
