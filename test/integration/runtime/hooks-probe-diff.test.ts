/**
 * `genv hooks diff --probe`: the head's fail-open findings, in the sandbox, each marked new when the
 * base has no such finding (same group, handler, tool and outcome) — in JSON and in the pull-request
 * comment.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runHooksDiff } from "../../../cli/commands/hooks-diff";
import { PROBE_HOOKS, PROBE_SCRIPTS, writeAgentsDir } from "../../support/probe-gates";

const scratch = mkdtempSync(path.join(os.tmpdir(), "genv-hooks-probe-diff-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("a finding the base has is listed, a finding only the head has is marked new", async () => {
  // The base already has the chatty gate; the change adds the crashy one.
  const base = path.dirname(writeAgentsDir(path.join(scratch, "base"), { chatty: PROBE_HOOKS.chatty }, PROBE_SCRIPTS));
  const head = path.dirname(writeAgentsDir(path.join(scratch, "head"), { chatty: PROBE_HOOKS.chatty, crashy: PROBE_HOOKS.crashy }, PROBE_SCRIPTS));
  const json = await runHooksDiff({ base, head, probe: true, format: "json" });
  expect(json.failOpen!.findings.map((finding) => [finding.group, finding.tool, finding.outcome, finding.new])).toEqual([
    ["chatty", "view_file", "unrecognized-output", false],
    ["chatty", "list_dir", "unrecognized-output", false],
    ["crashy", "code_execution", "crash", true],
  ]);
  expect(json.failOpen!.newFindings).toBe(1);
  expect(JSON.parse(json.output).failOpen.newFindings).toBe(1);
  expect(json.exitCode).toBe(0); // reported, not an exit code of its own

  const markdown = await runHooksDiff({ base, head, probe: true, format: "markdown" });
  expect(markdown.output).toMatch(/^### Fail-open findings in `.*head`\n\n2 handlers probed.*; 1 of them new against `.*base`\.\n/m);
  expect(markdown.output).toMatch(/\| \*\*new\*\* \| crashy \| command: python3 \/\.agents\/hooks-scripts\/crashy\.py \| code_execution \| crash \|/);
  expect(markdown.output).toMatch(/\| {2}\| chatty \| command: python3 \/\.agents\/hooks-scripts\/chatty\.py \| view_file \| unrecognized output \|/);
}, 120_000);
