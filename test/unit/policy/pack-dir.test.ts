// The pack dir the package ships (policy-pack/) and the `pulumi-gemini-environments/policy` subpath: what
// the engine and a user's require need, checked without packing (test/e2e/policy-pack.test.ts runs the
// installed pack on the real engine).
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.resolve(__dirname, "..", "..", "..");
const json = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), "utf8"));

test("policy-pack/ carries the package's version (the engine prints it: gemini-environments@v…) and runs on nodejs", () => {
  expect(json("policy-pack/package.json").version).toBe(json("package.json").version);
  expect(fs.readFileSync(path.join(root, "policy-pack", "PulumiPolicy.yaml"), "utf8")).toMatch(/^runtime: nodejs$/m);
});

test("the package ships the pack dir and the subpath's redirect, without an exports map (deep imports of dist/ keep working)", () => {
  const pkg = json("package.json");
  expect(pkg.files).toEqual(expect.arrayContaining(["dist", "policy/package.json", "policy-pack"]));
  expect(pkg.exports).toBeUndefined();
  expect(path.normalize(path.join("policy", json("policy/package.json").main))).toBe(path.join("dist", "policy", "index.js"));
  expect(pkg.peerDependenciesMeta["@pulumi/policy"]).toEqual({ optional: true });
});
