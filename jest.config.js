// @ts-check
// Four projects, run by scripts/test in two jest runs: `unit`, `integration` and `e2e` side by side
// (most of their time is spent waiting on child processes: the engine, language hosts, sandboxes),
// then `alone`, one file at a time with nothing beside it: the files whose checks hang on timing or
// on the machine's whole state (sandbox races, kills mid-call, cgroup and descriptor counts).
// ts-jest only transpiles (tsconfig's isolatedModules): `npm run typecheck` checks the types.

/** Files that run with no other test beside them (repository-relative regular expressions). */
const ALONE = [
  "test/integration/sandbox/",
  "test/integration/robustness/(crash|daemon-descriptors)\\.test\\.ts$",
  "test/integration/security/(symlink-swap|network-namespace|limits)\\.test\\.ts$",
];

/** @type {import("jest").Config} */
const common = {
  preset: "ts-jest",
  // jest's node environment, recording each file's CPU for scripts/test's summary.
  testEnvironment: "<rootDir>/test/support/cpu-environment.js",
  setupFiles: ["<rootDir>/test/support/jest-setup.ts"],
  // Every file's time in the report (a file over this many seconds is printed with its time).
  slowTestThreshold: 0,
};

/** @type {import("jest").Config} */
module.exports = {
  // A global option: jest takes no testTimeout from a project.
  testTimeout: 30_000,
  testSequencer: "<rootDir>/test/support/sequencer.js",
  projects: [
    { ...common, displayName: "unit", roots: ["<rootDir>/test/unit"] },
    { ...common, displayName: "integration", roots: ["<rootDir>/test/integration"], testPathIgnorePatterns: ["/node_modules/", ...ALONE] },
    { ...common, displayName: "e2e", roots: ["<rootDir>/test/e2e"], globalSetup: "<rootDir>/test/e2e/_global-setup.ts" },
    { ...common, displayName: "alone", roots: ["<rootDir>/test/integration"], testRegex: ALONE.map((pattern) => `${pattern.endsWith("/") ? `${pattern}.*\\.test\\.ts$` : pattern}`) },
  ],
};
