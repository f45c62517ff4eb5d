/**
 * Go programs in the tests: whether this machine has a Go toolchain (the Go language host builds
 * programs with it, as scripts/pulumi-engine builds the engine), and a copied Go program pointed at
 * this repository's generated Go SDK.
 */
import { execFile, execFileSync } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export const GO_SDK_MODULE = "github.com/gemini-environments/pulumi-gemini-environments/sdk/go";

/** The prerequisite as describeNeeding names it, and whether `go` answers. */
export function goToolchainNeeds(): Record<string, boolean> {
  let present = true;
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
  } catch {
    present = false;
  }
  return { "a Go toolchain on PATH (go; the Pulumi engine's build needs one too)": present };
}

/**
 * Points the Go program in `dir` (a copy of an example, whose go.mod replaces the SDK's module with
 * `../../sdk/go`) at `sdkDir`, the generated Go SDK of this checkout.
 */
export async function replaceGoSdk(dir: string, sdkDir: string): Promise<void> {
  await execFileAsync("go", ["mod", "edit", `-replace=${GO_SDK_MODULE}=${path.resolve(sdkDir)}`], { cwd: dir });
}
