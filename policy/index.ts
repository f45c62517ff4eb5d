/**
 * `pulumi-gemini-environments/policy`: a CrossGuard policy pack for agent environments, which the engine
 * runs at `pulumi preview` and `pulumi up` of every stack, whatever its language. The package ships it
 * ready to run as `policy-pack/` (`pulumi preview --policy-pack node_modules/pulumi-gemini-environments/policy-pack`);
 * a pack of your own can take the rules from here:
 *
 * ```ts
 * import { PolicyPack } from "@pulumi/policy";
 * import { policies } from "pulumi-gemini-environments/policy";
 * new PolicyPack("acme-agents", { policies: [...policies(), ...myOwnPolicies] });
 * ```
 *
 * Needs `@pulumi/policy` (an optional peer dependency: `npm install @pulumi/policy@1`). Rules, config and
 * examples: docs/policy-pack.md.
 */
import { z } from "zod";
import type { PolicyPack, ResourceValidationPolicy } from "@pulumi/policy";
import { requireOptionalPeer } from "../provider/contracts/optional-peer";
import { environmentView } from "./inputs";
import { RULES, violations, type Rule } from "./rules";

export { ENVIRONMENT_TYPES, environmentView, type EnvironmentView } from "./inputs";
export { RULES, violations, type Rule } from "./rules";

/** The pack's name, as the engine prints it (`gemini-environments@v0.2.0`). */
export const POLICY_PACK_NAME = "gemini-environments";

/** The rules as CrossGuard resource policies, each with its default enforcement level and config schema. */
export function policies(): ResourceValidationPolicy[] {
  return RULES.map(resourcePolicy);
}

/** Starts the pack (what `policy-pack/index.js` runs): only inside the engine's policy analyzer. */
export function runPolicyPack(name = POLICY_PACK_NAME): PolicyPack {
  const { PolicyPack } = requireOptionalPeer<typeof import("@pulumi/policy")>("@pulumi/policy", { neededBy: "the gemini-environments policy pack", version: "1.21" });
  return new PolicyPack(name, {
    description: "Guardrails for Gemini Environments: hooks present and read-only, egress inside the allowed domains, no secrets in sources.",
    policies: policies(),
  });
}

function resourcePolicy(rule: Rule): ResourceValidationPolicy {
  const schema = z.toJSONSchema(rule.config, { io: "input" }) as { properties?: Record<string, object> };
  return {
    name: rule.name,
    description: rule.description,
    enforcementLevel: rule.enforcementLevel,
    ...(Object.keys(schema.properties ?? {}).length > 0 && { configSchema: { properties: schema.properties as never } }),
    validateResource(args, reportViolation) {
      const view = environmentView(args.type, args.props);
      if (!view) return;
      for (const message of violations(rule, view, args.getConfig<Record<string, unknown>>())) reportViolation(message);
    },
  };
}
