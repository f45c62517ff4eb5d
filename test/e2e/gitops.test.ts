/**
 * examples/gitops on the real engine, with the package installed from its tarball: `ci/check.sh deploy`
 * (main's workflow) deploys the first commit to the emulator; then `ci/check.sh pr` (the pull-request
 * workflow) on the second commit (the change under review blocks downloads too), with no API key and
 * no emulator: lint, policy cases, the policy diff against the base commit, the impact on the calls the
 * deployed environment executed (recorded by the emulator, replayed from a file), the policy pack's
 * violations by rule and resource, and the preview of the deployed stack, in one markdown report;
 * then with the emulator's address and key, where the script reads the stack's environments' calls itself.
 */
import { execFile, execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, useE2E } from "./_workspace";

const execFileAsync = promisify(execFile);
const e2e = useE2E();

test("a pull request after a deploy: the changed decision, the policy violations and the deployed stack's diff in one report, no API key; it fails when told to block or on a mandatory rule", async () => {
  const { workspace, engine, emulator } = e2e();
  const dir = await workspace.addExample("gitops");
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, "-c", "user.name=ci", "-c", "user.email=ci@example.com", ...args], { stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "guardrails");
  const script = (mode: "pr" | "deploy", env: Record<string, string>) =>
    execFileAsync(path.join(dir, "ci/check.sh"), [mode], { cwd: dir, env: { ...engine.env, ...env }, maxBuffer: 16 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  let recordedCalls = "";
  const run = (env: Record<string, string>) => script("pr", { BASE_REF: "HEAD~1", ...(recordedCalls && { RECORDED_CALLS: recordedCalls }), ...env });

  // main's workflow deploys the guardrails (the emulator stands in for the hosted API).
  const deployed = await script("deploy", { GOOGLE_GEMINI_BASE_URL: emulator.url, GOOGLE_API_KEY: TEST_KEY });
  expect({ code: deployed.code, log: deployed.code === 0 ? "" : `${deployed.stderr}\n${deployed.stdout}` }).toEqual({ code: 0, log: "" });

  // The agent at work in the deployed environment: the calls the emulator records.
  const environmentId = execFileSync("pulumi", ["stack", "output", "environmentId"], { cwd: dir, env: engine.env }).toString().trim();
  for (const code of ["ls -la /workspace", "curl -sO https://example.com/tool.sh", "rm -rf /workspace", "ls -la /workspace"]) {
    const response = await fetch(`${emulator.url}/v1beta/environments/${environmentId}:executeTool`, {
      method: "POST",
      headers: { "x-goog-api-key": TEST_KEY, "content-type": "application/json" },
      body: JSON.stringify({ tool_call: { name: "code_execution", args: { code } } }),
    });
    expect(response.status).toBe(200);
  }
  recordedCalls = path.join(path.dirname(dir), "recorded-calls.jsonl");
  const genvCalls = await execFileAsync("npx", ["--no-install", "genv", "env", "calls", environmentId], { cwd: dir, env: { ...engine.env, GOOGLE_GEMINI_BASE_URL: emulator.url, GOOGLE_API_KEY: TEST_KEY } });
  writeFileSync(recordedCalls, genvCalls.stdout);
  const impact = [
    `### Impact on recorded calls: \`HEAD~1\` → \`.agents\``,
    "4 recorded calls (3 distinct): 1 allow → deny, 0 deny → allow, 0 reason changed, 3 unchanged, 0 not replayed, 0 errors.",
    `| 1 | allow → deny | code_execution {"code":"curl -sO https://example.com/tool.sh"} in ${environmentId} | allow | deny (Destructive command blocked by security gate.) |`,
  ];

  // The change under review: downloads blocked too, and the case that says so.
  const gate = path.join(dir, ".agents/hooks-scripts/gate.py");
  writeFileSync(gate, readFileSync(gate, "utf8").replace('DESTRUCTIVE = re.compile(r"\\brm\\s+-(rf|fr)\\b")', 'DESTRUCTIVE = re.compile(r"\\brm\\s+-(rf|fr)\\b|\\bcurl\\b")'));
  const cases = JSON.parse(readFileSync(path.join(dir, "policy/cases.json"), "utf8"));
  cases.find((c: { name: string }) => c.name === "downloads").expect = "deny";
  writeFileSync(path.join(dir, "policy/cases.json"), JSON.stringify(cases, null, 2));
  git("commit", "-q", "-am", "gate: block downloads");


  let passing: Awaited<ReturnType<typeof run>> | undefined;
  const requests = await e2e().requestsDuring(async () => {
    passing = await run({});
  });
  expect({ code: passing!.code, log: passing!.code === 0 ? "" : `${passing!.stderr}\n${passing!.stdout}` }).toEqual({ code: 0, log: "" });
  expect(requests).toEqual([]); // the preview needs no API key: it calls no API
  const report = readFileSync(path.join(dir, "policy-report.md"), "utf8");
  expect(report).toContain("### Hooks policy diff: `HEAD~1` → `.agents`");
  expect(report).toContain("4 cases: 1 decision changed");
  expect(report).toMatch(/\| downloads \| decision, reason \| allow \| deny \(Destructive command blocked by security gate\.\) \|/);
  // The PR's hooks probed for fail-open: the security gate reads every payload of the corpus.
  expect(report).toMatch(/### Fail-open findings in `\.agents`\n\n1 handler probed, \d+ payloads \(\d+ calls, 0 recorded, seed 43\) in \d+ runs: 0 fail-open findings, 0 errors; 0 of them new against `HEAD~1`\.\n\nNo handler failed open on any payload\.\n/);
  expect(report.indexOf("### Hooks policy diff")).toBeLessThan(report.indexOf("### Fail-open findings"));
  // The deployed environment's recorded calls against the change: the download it made is now denied.
  for (const line of impact) expect(report).toContain(line);
  expect(report.indexOf("### Hooks policy diff")).toBeLessThan(report.indexOf("### Impact on recorded calls"));
  // The pack's findings, by rule and resource, before the diff: the inline hooks are writable (advisory).
  expect(report).toContain("### Policy pack: 2 violations (0 mandatory)");
  const row = "| hooks-read-only | agent (pulumi-nodejs:dynamic/gemini-environments:Environment) | advisory |";
  expect(report).toContain(`${row} sources[0] (.agents/hooks.json) is inline, so an agent with write or shell access can rewrite it`);
  expect(report).toContain(`${row} sources[1] (.agents/hooks-scripts/gate.py) is inline`);
  // The diff of the deployed stack: the edited script is an update of one source, nothing is created.
  expect(report).toContain("### pulumi preview --diff (stack prod)");
  expect(report.indexOf("### Policy pack")).toBeLessThan(report.indexOf("### pulumi preview --diff"));
  expect(report).toMatch(/~ pulumi-nodejs:dynamic\/gemini-environments:Environment: \(update\)/);
  expect(report).toMatch(/~ \[1\]: \{\s*~ content\s*:/);
  expect(report).not.toMatch(/^\s*\+ .*(create)/m);
  expect(passing!.stdout).toBe(report);
  expect(report).not.toMatch(/panic:|goroutine \d+/); // the engine's hosts end cleanly after a run

  // Exit 1 for the changed decision alone, not a crash of a step: lint, cases and diff said what they
  // said above (the script's stderr up to the preview), and the whole report came out again.
  const blocking = await run({ BLOCK_ON_POLICY_CHANGE: "true" });
  // Up to the preview; the hooks' run times (`149 ms`) differ from run to run.
  const beforePreview = (stderr: string) => stderr.slice(0, stderr.indexOf("--- pulumi preview --diff of stack")).replace(/\b\d+ ms\b/g, "N ms");
  // The engine's progress lines (`@ previewing update....`) come only when a step is slow.
  const steady = (text: string) => text.replace(/^@ .*\n/gm, "");
  expect({ code: blocking.code, checks: beforePreview(blocking.stderr), report: steady(blocking.stdout) }).toEqual({ code: 1, checks: beforePreview(passing!.stderr), report: steady(report) });
  expect(beforePreview(passing!.stderr)).toMatch(/--- genv hooks lint[\s\S]*--- genv hooks test[\s\S]*--- genv hooks diff against HEAD~1/);

  // A rule made mandatory by the pack's config fails the check, and the report says which and where.
  // With the emulator's address and key (no file), the script reads the stack's environments' calls itself.
  const strict = path.join(dir, "strict-pack-config.json");
  writeFileSync(strict, JSON.stringify({ "hooks-read-only": "mandatory" }));
  recordedCalls = "";
  let mandatory: Awaited<ReturnType<typeof run>> | undefined;
  const callReads = await e2e().requestsDuring(async () => {
    mandatory = await run({ POLICY_PACK_CONFIG: strict, GOOGLE_GEMINI_BASE_URL: emulator.url, GOOGLE_API_KEY: TEST_KEY });
  });
  expect(callReads).toEqual([`GET /v1beta/environments/${environmentId}/toolCalls`]);
  for (const line of impact) expect(mandatory!.stdout).toContain(line);
  expect(mandatory!.code).toBe(1);
  expect(mandatory!.stdout).toContain("### Policy pack: 2 violations (2 mandatory)");
  expect(mandatory!.stdout).toContain("| hooks-read-only | agent (pulumi-nodejs:dynamic/gemini-environments:Environment) | mandatory |");
}, 2 * E2E_TEST_TIMEOUT_MS);
