import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { requireOptionalPeer } from "../../../provider/contracts/optional-peer";

// The loader of @pulumi/docker (EmulatorContainer) and @pulumi/policy (the policy pack); the packed
// package without @pulumi/policy is in test/e2e/provider-install.test.ts.

test("an installed peer is the module itself", () => {
  expect(requireOptionalPeer<typeof import("zod")>("zod", { neededBy: "x", version: "4" })).toBe(require("zod"));
});

test("a missing peer: the message names what needs it and the install command", () => {
  expect(() => requireOptionalPeer("@pulumi/not-installed", { neededBy: "EmulatorContainer", version: "5.0.0" })).toThrow(
    new Error("EmulatorContainer needs @pulumi/not-installed beside pulumi-gemini-environments: npm install @pulumi/not-installed@5.0.0"),
  );
});

test("a peer that is installed but fails to load: its own error, not the install command", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "optional-peer-"));
  try {
    const broken = path.join(dir, "broken.js");
    fs.writeFileSync(broken, 'throw new SyntaxError("broken peer");\n');
    expect(() => requireOptionalPeer(broken, { neededBy: "EmulatorContainer", version: "5.0.0" })).toThrow(new SyntaxError("broken peer"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
