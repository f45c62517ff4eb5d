// `genv policy report`: the policy events of an engine event log (lines as `pulumi preview --event-log`
// writes them, with the description first in the message) as one markdown table by rule and resource.
// test/e2e/gitops.test.ts runs it on a real preview's log.
import { renderViolations, violationsOfEventLog } from "../../../cli/commands/policy-report";
import { CLIError } from "../../../cli/errors";

const policyEvent = (policyName: string, urn: string | undefined, message: string, enforcementLevel = "mandatory") =>
  JSON.stringify({
    sequence: 4,
    timestamp: 1796137563,
    policyEvent: { ...(urn && { resourceUrn: urn }), message, color: "never", policyName, policyPackName: "gemini-environments", policyPackVersion: "0.1.0", policyPackVersionTag: "0.1.0", enforcementLevel },
  });

test("violations by rule, then resource; the description line dropped; a pipe escaped", () => {
  const log = [
    JSON.stringify({ sequence: 1, timestamp: 1, preludeEvent: { config: {} } }),
    policyEvent("environment-has-hooks", "urn:pulumi:prod::gitops::pulumi-nodejs:dynamic/gemini-environments:Environment::rogue", "Every environment carries hooks.\nno .agents/hooks.json: add one\n"),
    policyEvent(
      "egress-within-allowed-domains",
      "urn:pulumi:prod::gitops::gemini-environments:index:GuardedEnvironment$gemini-environments:index:Environment::agent",
      "Allowlist entries only inside.\nnetwork.allowlist[0] \"*\" | everything\n",
      "advisory",
    ),
    "",
  ].join("\n");
  const violations = violationsOfEventLog(log);
  expect(violations.map(({ rule, resource, level }) => [rule, resource, level])).toEqual([
    ["egress-within-allowed-domains", "agent (gemini-environments:index:Environment)", "advisory"],
    ["environment-has-hooks", "rogue (pulumi-nodejs:dynamic/gemini-environments:Environment)", "mandatory"],
  ]);
  expect(renderViolations(violations)).toBe(
    [
      "### Policy pack: 2 violations (1 mandatory)",
      "",
      "| rule | resource | level | what to change |",
      "| --- | --- | --- | --- |",
      '| egress-within-allowed-domains | agent (gemini-environments:index:Environment) | advisory | network.allowlist[0] "*" \\| everything |',
      "| environment-has-hooks | rogue (pulumi-nodejs:dynamic/gemini-environments:Environment) | mandatory | no .agents/hooks.json: add one |",
      "",
    ].join("\n"),
  );
});

test("no policy event: no violations; a line that is not JSON: an error naming the file and line", () => {
  expect(renderViolations(violationsOfEventLog(JSON.stringify({ summaryEvent: {} })))).toBe("### Policy pack\n\nNo violations.\n");
  expect(() => violationsOfEventLog("{}\nnot json", "events.jsonl")).toThrow(new CLIError("events.jsonl line 2 is not JSON: pass the file written by pulumi preview --event-log", 2));
});

test("a resource whose name holds :: is named whole, with its own type", () => {
  const log = policyEvent("environment-has-hooks", "urn:pulumi:prod::gitops::pulumi-nodejs:dynamic/gemini-environments:Environment::team::rogue", "Every environment carries hooks.\nadd one\n");
  expect(violationsOfEventLog(log).map(({ resource }) => resource)).toEqual(["team::rogue (pulumi-nodejs:dynamic/gemini-environments:Environment)"]);
});
