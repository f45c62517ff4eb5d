/**
 * The optional peer dependencies that one feature of pulumi-gemini-environments loads when it runs
 * (package.json's peerDependenciesMeta): `@pulumi/docker` for `EmulatorContainer`, `@pulumi/policy`
 * for the policy pack. A program that uses neither feature installs neither package; one that does
 * gets a message naming the install command instead of Node's `Cannot find module`.
 */

/**
 * The peer package `name`, or an error that says `neededBy` needs it and how to install it
 * (`npm install <name>@<version>`). Any other failure to load it (a broken install) is rethrown as is.
 */
export function requireOptionalPeer<Module>(name: string, { neededBy, version }: { neededBy: string; version: string }): Module {
  try {
    return require(name) as Module;
  } catch (error) {
    if ((error as { code?: string }).code !== "MODULE_NOT_FOUND") throw error;
    throw new Error(`${neededBy} needs ${name} beside pulumi-gemini-environments: npm install ${name}@${version}`);
  }
}
