import * as fs from "node:fs";
import * as path from "node:path";

import { EMULATOR_PACKAGES, emulatorInstallCommand, loadEmulator, missingEmulatorPackages } from "../../../cli/commands/load-emulator";

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "..", "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** The optional peers that are not the emulator's: the policy pack's SDK (policy/index.ts) and EmulatorContainer's (provider/components/emulator-container.ts). */
const OTHER_OPTIONAL_PEERS = ["@pulumi/policy", "@pulumi/docker"];

test("the emulator's packages are package.json's optional peers, devDependencies of the checkout, not dependencies", () => {
  const optionalPeers = Object.keys(pkg.peerDependenciesMeta).filter((name) => pkg.peerDependenciesMeta[name].optional);
  expect(optionalPeers.sort()).toEqual([...Object.keys(EMULATOR_PACKAGES), ...OTHER_OPTIONAL_PEERS].sort());
  for (const [name, major] of Object.entries(EMULATOR_PACKAGES)) {
    expect([name, pkg.peerDependencies[name]]).toEqual([name, expect.stringMatching(new RegExp(`^\\^${major}\\.`))]);
    expect([name, pkg.devDependencies[name]]).toEqual([name, pkg.peerDependencies[name]]);
    expect([name, pkg.dependencies[name]]).toEqual([name, undefined]);
  }
});

test("missing packages are named with the install command", () => {
  const resolve = (name: string) => {
    if (name === "better-sqlite3" || name === "node-forge") throw new Error(`Cannot find module '${name}'`);
    return `/x/${name}`;
  };
  expect(missingEmulatorPackages(resolve)).toEqual(["better-sqlite3", "node-forge"]);
  expect(emulatorInstallCommand(["better-sqlite3", "node-forge"])).toBe("npm install better-sqlite3@12 node-forge@1");
});

test("in a checkout the emulator loads", () => {
  expect(missingEmulatorPackages()).toEqual([]);
  const emulator = loadEmulator("genv serve");
  expect(typeof emulator.startEmulator).toBe("function");
  expect(emulator.parseRoutes({ "a.example.com": "http://127.0.0.1:9000" }).get("a.example.com")?.href).toBe("http://127.0.0.1:9000/");
});
