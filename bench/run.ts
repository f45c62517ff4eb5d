/** `npm run bench`: every benchmark, each printed as ratios against a baseline measured in the same run. */
import { benchApi } from "./api";
import { benchHooks } from "./hooks";
import { benchFaults } from "./faults";
import { benchFleet } from "./fleet";
import { benchPolicy } from "./policy";
import { benchPolicyPack } from "./policy-pack";
import { benchRelease } from "./release";
import { printComparisons } from "./_measure";

async function main(): Promise<void> {
  const only = process.argv[2];
  if (!only || only === "api") printComparisons("Environments API vs plain tools (median of 5)", await benchApi());
  if (!only || only === "hooks") printComparisons("Hooks runtime and :executeTool vs bare scripts (median of 21)", await benchHooks());
  if (!only || only === "fleet") printComparisons("pulumi up/destroy of 50 environments: plugin, dynamic provider, sdk script, the engine's floor (medians, variants alternating)", await benchFleet());
  if (!only || only === "policy") printComparisons("Guardrails as code: policy cases at preview, a hook edit in place vs replacement (medians of 5, alternating)", await benchPolicy());
  if (!only || only === "policy-pack") printComparisons("The policy pack at preview (medians of 5, alternating)", await benchPolicyPack());
  if (!only || only === "release") printComparisons("Released plugin start-up: the Linux single executable vs the Node.js launcher (spawn to port, alternating)", await benchRelease());
  if (!only || only === "faults") printComparisons("pulumi up/destroy of a fleet under 20% injected faults (one run)", await benchFaults());
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
