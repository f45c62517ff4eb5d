/**
 * examples/gitops: `ci/check.sh pr` — the script its pull-request workflow calls — on a local git
 * repository with two commits (the change under review blocks downloads too), on the real engine,
 * with the package installed from its tarball: lint, policy cases, the policy diff against the base
 * commit, and the preview (against the fixture's emulator, as a CI service container would serve),
 * in one markdown report.
 */
import { execFile, execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, useE2E } from "./_workspace";

const execFileAsync = promisify(execFile);
const e2e = useE2E();

test("a pull request that changes a decision: reported in the report, the check passes unless told to block", async () => {
  const { workspace, engine, emulator } = e2e();
  const dir = await workspace.addExample("gitops");
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, "-c", "user.name=ci", "-c", "user.email=ci@example.com", ...args], { stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "guardrails");
  // The change under review: downloads blocked too, and the case that says so.
  const gate = path.join(dir, ".agents/hooks-scripts/gate.py");
  writeFileSync(gate, readFileSync(gate, "utf8").replace('DESTRUCTIVE = re.compile(r"\\brm\\s+-(rf|fr)\\b")', 'DESTRUCTIVE = re.compile(r"\\brm\\s+-(rf|fr)\\b|\\bcurl\\b")'));
  const cases = JSON.parse(readFileSync(path.join(dir, "policy/cases.json"), "utf8"));
  cases.find((c: { name: string }) => c.name === "downloads").expect = "deny";
  writeFileSync(path.join(dir, "policy/cases.json"), JSON.stringify(cases, null, 2));
  git("commit", "-q", "-am", "gate: block downloads");

  const run = (env: Record<string, string>) =>
    execFileAsync(path.join(dir, "ci/check.sh"), ["pr"], { cwd: dir, env: { ...engine.env, BASE_REF: "HEAD~1", EMULATOR_URL: emulator.url, EMULATOR_KEY: TEST_KEY, ...env }, maxBuffer: 16 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  const passing = await run({});
  expect({ code: passing.code, log: passing.code === 0 ? "" : `${passing.stderr}\n${passing.stdout}` }).toEqual({ code: 0, log: "" });
  const report = readFileSync(path.join(dir, "policy-report.md"), "utf8");
  expect(report).toContain("### Hooks policy diff: `HEAD~1` → `.agents`");
  expect(report).toContain("4 cases: 1 decision changed");
  expect(report).toMatch(/\| downloads \| decision, reason \| allow \| deny \(Destructive command blocked by security gate\.\) \|/);
  expect(report).toContain("### pulumi preview --diff");
  expect(report).toMatch(/\+ .*gemini-environments:index:GuardedEnvironment|\+ .*Environment/);
  expect(passing.stdout).toBe(report);

  // Exit 1 for the changed decision alone, not a crash of a step: lint, cases and diff said what they
  // said above (the script's stderr up to the preview), and the whole report came out again.
  const blocking = await run({ BLOCK_ON_POLICY_CHANGE: "true" });
  // Up to the preview; the hooks' run times (`149 ms`) differ from run to run.
  const beforePreview = (stderr: string) => stderr.slice(0, stderr.indexOf("--- pulumi preview --diff against an emulator")).replace(/\b\d+ ms\b/g, "N ms");
  expect({ code: blocking.code, checks: beforePreview(blocking.stderr), report: blocking.stdout }).toEqual({ code: 1, checks: beforePreview(passing.stderr), report });
  expect(beforePreview(passing.stderr)).toMatch(/--- genv hooks lint[\s\S]*--- genv hooks test[\s\S]*--- genv hooks diff against HEAD~1/);
}, E2E_TEST_TIMEOUT_MS);
