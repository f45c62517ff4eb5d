/**
 * A HookBundle's `probe` at preview and update (`genv hooks probe` in the local sandbox), on the
 * GuardedEnvironment it guards: each finding not acknowledged is a warning on the component, or with
 * `probe: "error"` they stop the operation together, each named with what acknowledges it.
 */
import * as pulumi from "../contracts/pulumi-sdk";
import { acknowledgementOf, type ProbeFinding } from "../../hooks/probe/run";
import type { HookBundle } from "./hook-bundle";

const PAYLOAD_CHARS = 120;

/** Runs the bundle's probe; returns the output's text, warns, or throws (see the module's comment). */
export async function checkProbe(hooks: HookBundle, acknowledged: ReadonlySet<string>, resource: pulumi.Resource): Promise<string> {
  let findings: ProbeFinding[];
  try {
    findings = (await hooks.runProbe()).findings;
  } catch (error) {
    if ((error as { code?: string }).code !== "GENV_SANDBOX_UNAVAILABLE") throw error;
    const message = `fail-open probe not run: no sandbox here (${(error as Error).message}); it runs where bubblewrap works (Linux; the emulator's container)`;
    if (process.env.GENV_POLICY_TESTS === "require") throw new Error(`${message}. GENV_POLICY_TESTS=require makes this an error.`);
    pulumi.log.warn(message, resource);
    return "skipped";
  }
  const open = findings.filter((finding) => !acknowledged.has(acknowledgementOf(finding)));
  if (hooks.probe === "error" && open.length > 0) {
    throw new Error(`hooks fail open (${open.length} finding${open.length === 1 ? "" : "s"}; genv hooks probe shows each):\n${open.map((finding) => `  - ${describe(finding)}`).join("\n")}`);
  }
  for (const finding of open) pulumi.log.warn(`hooks fail open: ${describe(finding)}`, resource);
  if (findings.length === 0) return "none";
  return `${findings.length} fail-open finding${findings.length === 1 ? "" : "s"}${findings.length > open.length ? ` (${findings.length - open.length} acknowledged)` : ""}`;
}

/** `group security-gate, code_execution: timeout (…) on 2 payloads, e.g. {…}; acknowledge with "fail-open:…"`. */
function describe(finding: ProbeFinding): string {
  const payload = JSON.stringify(finding.payload);
  const shown = payload.length > PAYLOAD_CHARS ? `${payload.slice(0, PAYLOAD_CHARS)}… (${payload.length} chars)` : payload;
  return `group ${finding.group}, ${finding.tool}: ${finding.outcome} (${finding.detail.text.split("\n")[0]}) on ${finding.count} payload${finding.count === 1 ? "" : "s"}, the smallest ${shown} (${finding.input}); acknowledge it with acknowledgedWarnings: ["${acknowledgementOf(finding)}"]`;
}
