/**
 * examples/go-environment, a Go program over the generated Go SDK (sdk/go, through a `replace` in its
 * go.mod), builds and vets as a Go user would build it, so that a schema change cannot leave the SDK
 * or the example broken. test/e2e/go.test.ts runs it on the engine.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { GO_SDK_MODULE, goToolchainNeeds } from "../support/go";
import { describeNeeding } from "../support/prerequisites";

const root = path.resolve(__dirname, "../..");
const example = path.join(root, "examples", "go-environment");
const run = promisify(execFile);
// The first build downloads github.com/pulumi/pulumi/sdk/v3 and its dependencies from the module proxy.
const GO_BUILD_TIMEOUT_MS = 15 * 60_000;

const go = (args: string[]) =>
  run("go", args, { cwd: example, timeout: GO_BUILD_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, GOFLAGS: "-mod=mod", CGO_ENABLED: "0" } });

describeNeeding(goToolchainNeeds())("examples/go-environment over sdk/go", () => {
  let out: string;
  beforeAll(() => (out = fs.mkdtempSync(path.join(os.tmpdir(), "genv-go-example-"))));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  test(
    "go build and go vet pass, against the SDK in this repository",
    async () => {
      const { stdout } = await go(["list", "-m", "-f", "{{.Path}} {{.Dir}}", GO_SDK_MODULE]);
      expect(stdout.trim()).toBe(`${GO_SDK_MODULE} ${path.join(root, "sdk", "go")}`);
      await go(["build", "-o", path.join(out, "go-environment"), "."]);
      expect(fs.statSync(path.join(out, "go-environment")).size).toBeGreaterThan(0);
      await go(["vet", "."]);
    },
    2 * GO_BUILD_TIMEOUT_MS,
  );
});
