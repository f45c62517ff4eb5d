/**
 * A HookBundle's `probe` at preview and update (`genv hooks probe` in the local sandbox), on the
 * GuardedEnvironment it guards: each finding not acknowledged is a warning on the component, or with
 * `probe: "error"` they stop the operation together, each named with what acknowledges it. Handlers
 * already `on_failure: "deny"` run in their wrapper and give no warning; the payloads they denied
 * for a failure are counted in the output's text.
 */
import * as pulumi from "../contracts/pulumi-sdk";
import { acknowledgementOf, type ProbeFinding, type ProbeReport } from "../../hooks/probe/run";
import type { HookBundle } from "./hook-bundle";

const PAYLOAD_CHARS = 120;

/** Runs the bundle's probe; returns the output's text, warns, or throws (see the module's comment). */
export async function checkProbe(hooks: HookBundle, acknowledged: ReadonlySet<string>, resource: pulumi.Resource): Promise<string> {
  let report: ProbeReport;
  try {
    report = await hooks.runProbe();
  } catch (error) {
    if ((error as { code?: string }).code !== "GENV_SANDBOX_UNAVAILABLE") throw error;
    const message = `fail-open probe not run: no sandbox here (${(error as Error).message}); it runs where bubblewrap works (Linux; the emulator's container)`;
    if (process.env.GENV_POLICY_TESTS === "require") throw new Error(`${message}. GENV_POLICY_TESTS=require makes this an error.`);
    pulumi.log.warn(message, resource);
    return "skipped";
  }
  // A handler already on_failure "deny" is what a warning would ask for: its findings (the wrapper
  // itself killed from outside, which nothing in the config can change) are not warned about.
  const findings = report.findings.filter((finding) => finding.onFailure !== "deny");
  const open = findings.filter((finding) => !acknowledged.has(acknowledgementOf(finding)));
  if (hooks.probe === "error" && open.length > 0) {
    throw new Error(`hooks fail open (${open.length} finding${open.length === 1 ? "" : "s"}; genv hooks probe shows each):\n${open.map((finding) => `  - ${describe(finding)}`).join("\n")}`);
  }
  for (const finding of open) pulumi.log.warn(`hooks fail open: ${describe(finding)}`, resource);
  const closed = Object.values(report.summary.failsClosed).reduce((sum, count) => sum + count, 0);
  const closedText = closed > 0 ? `; ${closed} payload${closed === 1 ? "" : "s"} failed closed (on_failure deny)` : "";
  if (findings.length === 0) return `none${closedText}`;
  return `${findings.length} fail-open finding${findings.length === 1 ? "" : "s"}${findings.length > open.length ? ` (${findings.length - open.length} acknowledged)` : ""}${closedText}`;
}

/** `group security-gate, code_execution: timeout (…) on 2 payloads, e.g. {…}; acknowledge with "fail-open:…"`. */
function describe(finding: ProbeFinding): string {
  const payload = JSON.stringify(finding.payload);
  const shown = payload.length > PAYLOAD_CHARS ? `${payload.slice(0, PAYLOAD_CHARS)}… (${payload.length} chars)` : payload;
  return `group ${finding.group}, ${finding.tool}: ${finding.outcome} (${finding.detail.text.split("\n")[0]}) on ${finding.count} payload${finding.count === 1 ? "" : "s"}, the smallest ${shown} (${finding.input}); acknowledge it with acknowledgedWarnings: ["${acknowledgementOf(finding)}"]`;
}
