/**
 * Every GitHub Actions workflow of the repository passes actionlint (github.com/rhysd/actionlint,
 * pinned and built once by scripts/actionlint): its syntax, its `${{ }}` expressions and their types,
 * the inputs of the actions it uses, its runner labels, its job outputs and needs. A workflow is
 * only run by GitHub, on a push or a tag: a mistake in release.yml would otherwise show on the day
 * of a release. shellcheck and pyflakes, which actionlint runs on `run:` scripts when they are on
 * PATH, are turned off, so that the result does not depend on the machine.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

import { runCommand, timeLeftOf } from "../../support/commands";
import { goToolchainNeeds } from "../../support/go";
import { describeNeeding } from "../../support/prerequisites";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..", "..", "..");
const workflowsDir = path.join(root, ".github", "workflows");
const WORKFLOWS = fs.readdirSync(workflowsDir).filter((name) => /\.ya?ml$/.test(name)).sort();
// The first run builds actionlint from Go modules (about 30 s), then it is cached.
const BUILD_TIMEOUT_MS = 10 * 60_000;

describeNeeding(goToolchainNeeds())("the GitHub Actions workflows (actionlint)", () => {
  let actionlint: string;
  const lint = (files: string[], cwd = root) => run(actionlint, ["-shellcheck=", "-pyflakes=", "-no-color", ...files], { cwd });

  beforeAll(async () => {
    const { stdout } = await runCommand([path.join(root, "scripts", "actionlint")], { timeoutMs: timeLeftOf(BUILD_TIMEOUT_MS)() });
    actionlint = stdout.trim();
  }, BUILD_TIMEOUT_MS);

  test("the ci and release workflows are there", () => {
    expect(WORKFLOWS).toEqual(expect.arrayContaining(["ci.yml", "release.yml"]));
  });

  test.each(WORKFLOWS)(".github/workflows/%s passes actionlint", async (workflow) => {
    const { stdout } = await lint([path.join(".github", "workflows", workflow)]);
    expect(stdout).toBe("");
  });

  test("a workflow with a mistake fails it, naming the line", async () => {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "genv-actionlint-"));
    try {
      await fs.promises.mkdir(path.join(dir, ".github", "workflows"), { recursive: true });
      const broken = path.join(".github", "workflows", "broken.yml");
      // needs.build.outputs.version where the job is named release: an unknown job.
      const text = fs.readFileSync(path.join(workflowsDir, "release.yml"), "utf8").replace("needs: [build, github-release]", "needs: [github-release]");
      await fs.promises.writeFile(path.join(dir, broken), text);
      await expect(lint([broken], dir)).rejects.toMatchObject({ code: 1, stdout: expect.stringMatching(/broken\.yml:\d+:\d+: .*"build"/) });
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  });
});

/** A third-party action pinned by tag runs whatever the tag is moved to: each is pinned by a full commit SHA, its version in a comment. */
test.each(WORKFLOWS)(".github/workflows/%s pins every action by commit, with its version beside it", (workflow) => {
  const uses = [...fs.readFileSync(path.join(workflowsDir, workflow), "utf8").matchAll(/^\s*(?:-\s*)?uses:\s*(.+)$/gm)].map(([, reference]) => reference!.trim());
  expect(uses.length).toBeGreaterThan(0);
  expect(uses.filter((reference) => !reference.startsWith("./") && !/^[\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/.test(reference))).toEqual([]);
});
