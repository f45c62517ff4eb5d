/**
 * `genv policy report --events FILE`: the policy violations of a `pulumi preview` or `up`, by rule and
 * resource, as a markdown section for a pull-request comment. FILE is the engine's event log
 * (`pulumi preview --event-log FILE`, one JSON engine event per line; the flag needs
 * PULUMI_DEBUG_COMMANDS=true, as the Automation API sets it), so the preview runs once for both its
 * diff and this report. Exit 0 whatever was found: the preview's own exit code says whether a
 * mandatory rule failed.
 */
import { promises as fs } from "node:fs";
import type { Command } from "commander";
import { z } from "zod";
import { CLIError } from "../errors";
import { identityOfUrn } from "../../provider/contracts/resource-core";

const PolicyEvent = z.object({
  resourceUrn: z.string().optional(),
  message: z.string(),
  policyName: z.string(),
  policyPackName: z.string(),
  enforcementLevel: z.string(),
});
const EngineEventLine = z.object({ policyEvent: PolicyEvent.optional() });

export interface Violation {
  rule: string;
  pack: string;
  level: string;
  /** `name (type)` of the resource, or `(stack)` for a stack policy. */
  resource: string;
  message: string;
}

/** The violations in an event log's text, sorted by rule, then resource. */
export function violationsOfEventLog(text: string, file = "event log"): Violation[] {
  const violations: Violation[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new CLIError(`${file} line ${index + 1} is not JSON: pass the file written by pulumi preview --event-log`, 2);
    }
    const event = EngineEventLine.safeParse(json).data?.policyEvent;
    if (!event) return;
    violations.push({ rule: event.policyName, pack: event.policyPackName, level: event.enforcementLevel, resource: resourceOf(event.resourceUrn), message: violationText(event.message) });
  });
  return violations.sort((a, b) => a.rule.localeCompare(b.rule) || a.resource.localeCompare(b.resource));
}

/** The markdown section: a heading with the counts, then one table row per violation. */
export function renderViolations(violations: readonly Violation[]): string {
  if (violations.length === 0) return "### Policy pack\n\nNo violations.\n";
  const mandatory = violations.filter((violation) => violation.level === "mandatory").length;
  const rows = violations.map((violation) => `| ${cell(violation.rule)} | ${cell(violation.resource)} | ${violation.level} | ${cell(violation.message)} |`);
  return [
    `### Policy pack: ${violations.length} violation${violations.length === 1 ? "" : "s"} (${mandatory} mandatory)`,
    "",
    "| rule | resource | level | what to change |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

/** The engine's message is the policy's description, a newline, then what the violation says: keep the latter. */
function violationText(message: string): string {
  const lines = message.trim().split("\n");
  return (lines.length > 1 ? lines.slice(1) : lines).join(" ").trim();
}

/** `urn:pulumi:stack::project::parent$type::name` → `name (type)`. */
/** `agent (gemini-environments:index:Environment)`, by the one URN parser the provider uses. */
function resourceOf(urn: string | undefined): string {
  const identity = urn ? identityOfUrn(urn) : undefined;
  if (!identity) return urn ? urn : "(stack)";
  return `${identity.name} (${identity.type})`;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>");
}

export function register(program: Command): void {
  const policy = program.commands.find((command) => command.name() === "policy") ?? program.command("policy").description("The policy pack's findings (pulumi-gemini-environments/policy-pack)");
  policy
    .command("report")
    .description("the policy violations of a pulumi preview, by rule and resource, as markdown (for pull requests)")
    .requiredOption("--events <file>", "the engine's event log: pulumi preview --event-log FILE (with PULUMI_DEBUG_COMMANDS=true)")
    .action(async (options: { events: string }) => {
      const text = await fs.readFile(options.events, "utf8").catch(() => {
        throw new CLIError(`--events ${options.events}: cannot read it; pass the file written by pulumi preview --event-log`, 2);
      });
      process.stdout.write(renderViolations(violationsOfEventLog(text, options.events)));
    });
}
