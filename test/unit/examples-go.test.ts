/**
 * examples/go-environment, a Go program over the generated Go SDK (sdk/go, through a `replace` in its
 * go.mod), builds and vets as a Go user would build it, so that a schema change cannot leave the SDK
 * or the example broken. test/e2e/go.test.ts runs it on the engine.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { runCommand, timeLeftOf } from "../support/commands";
import { GO_SDK_MODULE, goToolchainNeeds } from "../support/go";
import { describeNeeding } from "../support/prerequisites";

const root = path.resolve(__dirname, "../..");
const example = path.join(root, "examples", "go-environment");
// The first build downloads github.com/pulumi/pulumi/sdk/v3 and its dependencies from the module proxy
// and compiles them (minutes on a busy 2-core machine; seconds once Go's caches hold them).
const TEST_TIMEOUT_MS = 10 * 60_000;

const go = (args: string[], timeoutMs: number) => runCommand(["go", ...args], { cwd: example, timeoutMs, env: { ...process.env, GOFLAGS: "-mod=mod", CGO_ENABLED: "0" } });

describeNeeding(goToolchainNeeds())("examples/go-environment over sdk/go", () => {
  let out: string;
  beforeAll(() => (out = fs.mkdtempSync(path.join(os.tmpdir(), "genv-go-example-"))));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  test(
    "go build and go vet pass, against the SDK in this repository",
    async () => {
      const left = timeLeftOf(TEST_TIMEOUT_MS);
      const { stdout } = await go(["list", "-m", "-f", "{{.Path}} {{.Dir}}", GO_SDK_MODULE], left());
      expect(stdout.trim()).toBe(`${GO_SDK_MODULE} ${path.join(root, "sdk", "go")}`);
      await go(["build", "-o", path.join(out, "go-environment"), "."], left());
      expect(fs.statSync(path.join(out, "go-environment")).size).toBeGreaterThan(0);
      await go(["vet", "."], left());
    },
    TEST_TIMEOUT_MS,
  );
});
