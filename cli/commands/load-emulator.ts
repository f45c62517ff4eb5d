/**
 * The emulator, loaded when a command runs it (`genv serve`, the demo), never when the CLI, the
 * provider or the client load. The packages only the emulator uses are optional peer dependencies of
 * pulumi-gemini-environments (and devDependencies, so a checkout's `npm ci` has them): a program
 * that only uses the provider installs no native module. Without them, the command says how to
 * install them. test/e2e/provider-install.test.ts installs the packed package without them.
 */
import { CLIError } from "../errors";

/**
 * The packages the emulator loads beyond the provider's, each with the major version that
 * package.json's peerDependencies allow (test/unit/cli/load-emulator.test.ts keeps them in step).
 */
export const EMULATOR_PACKAGES: Readonly<Record<string, string>> = {
  "better-sqlite3": "12",
  "@google-cloud/storage": "7",
  "node-forge": "1",
  "mime-types": "3",
};

/** What the commands use of the emulator. */
export interface Emulator {
  startEmulator: typeof import("../../emulator/server").startEmulator;
  parseRoutes: typeof import("../../emulator/egress").parseRoutes;
}

/** The emulator's packages that `resolve` (default: from this package) cannot find. */
export function missingEmulatorPackages(resolve: (name: string) => string = require.resolve): string[] {
  return Object.keys(EMULATOR_PACKAGES).filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/** `npm install better-sqlite3@12 …` for `packages`. */
export function emulatorInstallCommand(packages: readonly string[]): string {
  return `npm install ${packages.map((name) => `${name}@${EMULATOR_PACKAGES[name]}`).join(" ")}`;
}

/**
 * The emulator's modules, loaded now; `command` (e.g. `genv serve`) names what needs them in the
 * CLIError thrown when one of its packages is missing.
 */
export function loadEmulator(command: string): Emulator {
  const missing = missingEmulatorPackages();
  if (missing.length > 0) {
    throw new CLIError(
      `${command} runs the local emulator, which needs ${missing.join(", ")}: optional packages that a program using only the provider goes without. ` +
        `Install them where pulumi-gemini-environments is installed:\n  ${emulatorInstallCommand(missing)}`,
    );
  }
  const { startEmulator } = require("../../emulator/server") as typeof import("../../emulator/server");
  const { parseRoutes } = require("../../emulator/egress") as typeof import("../../emulator/egress");
  return { startEmulator, parseRoutes };
}
