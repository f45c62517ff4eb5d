// A provider-only install, as a user makes it: the package's `npm pack` tarball installed into an empty
// program with plain `npm install` (its peer @pulumi/pulumi pinned to the repo's version, so the npm
// cache has it), nothing skipped. It must carry no native module and none of the emulator's packages
// (optional peer dependencies), load, and `genv serve` must name the install command it lacks.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { packPackage } from "../../devtools/packed-workspace";
import { EMULATOR_PACKAGES, emulatorInstallCommand } from "../../cli/commands/load-emulator";
import { repoRoot } from "./engine";

const execFileAsync = promisify(execFile);

const INSTALL_TIMEOUT_MS = 300_000;

describe("npm install of the packed package into a program that only uses the provider", () => {
  let program: string;

  beforeAll(async () => {
    program = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-provider-install-"));
    const tarball = await packPackage({ repoRoot, build: true, into: program });
    const pulumiVersion = JSON.parse(await fs.promises.readFile(path.join(repoRoot, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
    await fs.promises.writeFile(path.join(program, "package.json"), JSON.stringify({ name: "provider-only", private: true }) + "\n");
    await execFileAsync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, `@pulumi/pulumi@${pulumiVersion}`], {
      cwd: program,
      maxBuffer: 64 * 1024 * 1024,
    });
  }, INSTALL_TIMEOUT_MS);

  afterAll(() => fs.promises.rm(program, { recursive: true, force: true }));

  test("carries no native module and none of the emulator's packages", async () => {
    const nodeModules = path.join(program, "node_modules");
    expect(fs.existsSync(path.join(nodeModules, "pulumi-gemini-environments", "dist", "index.js"))).toBe(true);
    const files = await fs.promises.readdir(nodeModules, { recursive: true });
    expect(files.filter((file) => file.endsWith(".node"))).toEqual([]);
    const emulatorPackages = files.filter((file) => Object.keys(EMULATOR_PACKAGES).some((name) => file === name || file.endsWith(`${path.sep}node_modules${path.sep}${name}`)));
    expect(emulatorPackages).toEqual([]);
  });

  test("ships no bench, dev tooling or scripts", () => {
    const dist = path.join(program, "node_modules", "pulumi-gemini-environments", "dist");
    expect(["bench", "devtools", "scripts"].filter((dir) => fs.existsSync(path.join(dist, dir)))).toEqual([]);
  });

  test('require("pulumi-gemini-environments") loads the provider', async () => {
    const { stdout } = await execFileAsync(process.execPath, ["-e", 'const p = require("pulumi-gemini-environments"); console.log(typeof p.Environment, typeof p.HookBundle, typeof p.lintHooks)'], { cwd: program });
    expect(stdout.trim()).toBe("function function function");
  });

  test("the policy pack's rules load without its optional peer @pulumi/policy; starting the pack names the install command", async () => {
    expect(fs.existsSync(path.join(program, "node_modules", "@pulumi", "policy"))).toBe(false);
    const script = [
      'const policy = require("pulumi-gemini-environments/policy");',
      "console.log(policy.policies().map((p) => p.name).join(\",\"));",
      "try { policy.runPolicyPack(); } catch (error) { console.log(error.message); }",
    ].join("\n");
    const { stdout } = await execFileAsync(process.execPath, ["-e", script], { cwd: program });
    expect(stdout.trim().split("\n")).toEqual([
      "environment-has-hooks,hooks-unchecked,egress-within-allowed-domains,http-hooks-to-allowed-endpoints,hooks-read-only,no-secrets-in-sources,credential-from-resource,mode-allowed",
      "the gemini-environments policy pack needs @pulumi/policy beside pulumi-gemini-environments: npm install @pulumi/policy@1.21",
    ]);
  });

  test("genv runs its other commands; genv serve names the install command of the emulator's packages", async () => {
    const genv = path.join(program, "node_modules", ".bin", "genv");
    const help = await execFileAsync(genv, ["--help"], { cwd: program });
    expect(help.stdout).toContain("serve");
    const lint = await execFileAsync(genv, ["hooks", "lint", path.join(repoRoot, "examples", "yaml-security-gate", "hooks.json")], { cwd: program });
    expect(lint.stderr).toBe("");

    const serve = await execFileAsync(genv, ["serve", "--in-memory", "--port", "0"], { cwd: program, timeout: 30_000 }).then(
      () => {
        throw new Error("genv serve started without the emulator's packages");
      },
      (error: { code?: number; stderr: string }) => error,
    );
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(emulatorInstallCommand(Object.keys(EMULATOR_PACKAGES)));
    expect(serve.stderr).toContain("npm install better-sqlite3@12 @google-cloud/storage@7 node-forge@1 mime-types@3");
    expect(serve.stderr).not.toMatch(/\n\s+at /); // a message, not a stack
  });
});
