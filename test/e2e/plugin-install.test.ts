// The plugin installed from its tarball, as a machine without downloads gets it: scripts/pack-plugin
// (what `npm run pack:plugin` runs) packs the installed package, `pulumi plugin install resource
// gemini-environments VERSION --file` installs it into the engine's plugin cache, and a program whose
// Pulumi.yaml names no plugin path runs up and destroy through it.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import type { Stack } from "@pulumi/pulumi/automation";

import { repoRoot } from "./engine";
import { E2E_TEST_TIMEOUT_MS, listIds, program, useE2E } from "./_workspace";

const execFileAsync = promisify(execFile);

describe("the plugin from its tarball (pulumi plugin install --file)", () => {
  const e2e = useE2E();
  let scratch: string;
  let tarball: string;
  let version: string;
  let stack: Stack;

  beforeAll(async () => {
    scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-plugin-tarball-"));
    const packageDir = path.dirname(e2e().pluginBinDir);
    version = JSON.parse(await fs.promises.readFile(path.join(packageDir, "package.json"), "utf8")).version;
    const { stdout } = await execFileAsync(path.join(repoRoot, "scripts", "pack-plugin"), ["--from", packageDir, path.join(scratch, "plugin.tgz")], { maxBuffer: 16 * 1024 * 1024 });
    tarball = stdout.trim();
  }, E2E_TEST_TIMEOUT_MS);

  afterAll(() => fs.promises.rm(scratch, { recursive: true, force: true }));

  test("the tarball has the launcher at its root and no symlinks", async () => {
    const { stdout } = await execFileAsync("tar", ["-tvzf", tarball], { maxBuffer: 64 * 1024 * 1024 });
    const entries = stdout.trim().split("\n");
    expect(entries.filter((line) => line.startsWith("l"))).toEqual([]);
    expect(entries.find((line) => line.endsWith(" ./pulumi-resource-gemini-environments"))).toMatch(/^-rwxr-xr-x/);
    expect(entries.some((line) => line.endsWith(" ./node_modules/@pulumi/pulumi/package.json"))).toBe(true);
  });

  test("installed with pulumi plugin install --file, it serves a program that names no plugin path", async () => {
    const installed = await e2e().pulumi(["plugin", "install", "resource", "gemini-environments", version, "--file", tarball], scratch);
    expect(installed + (await e2e().pulumi(["plugin", "ls"], scratch))).toContain("gemini-environments");

    const dir = await e2e().workspace.addProgram(
      "installed",
      program(`
const env = new pulumi.CustomResource("gemini-environments:index:Environment", "env", {
  sources: [{ type: "inline", target: "hello.txt", content: "hello\\n" }],
  fileCount: undefined,
});
exports.environmentId = env.id;
exports.fileCount = env.fileCount;
`),
    );
    stack = await e2e().stack(dir, "installed");
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.outputs.fileCount.value).toBe(1);
    // Nothing else could serve it: no plugin path in Pulumi.yaml, no launcher on PATH.
    expect(await fs.promises.readFile(path.join(dir, "Pulumi.yaml"), "utf8")).not.toContain("plugins");

    await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(await listIds(e2e().client)).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);
});
