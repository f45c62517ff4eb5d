/**
 * `npm run bench [name] [-- --sizes 50,300,1000 --user-options]`: every benchmark, or the one named,
 * each printed as ratios against a baseline measured in the same run. For the fleet (bench/fleet.ts):
 * `--sizes`, its sizes; `--user-options`, what a user can do at the largest (bench/_fleet-options.ts).
 */
import { parseArgs } from "node:util";
import { benchApi } from "./api";
import { benchEmulatorScale } from "./emulator-scale";
import { benchHooks } from "./hooks";
import { benchFaults } from "./faults";
import { benchFleet, DEFAULT_FLEET_SIZES, parseFleetSizes } from "./fleet";
import { benchPolicy } from "./policy";
import { benchPolicyPack } from "./policy-pack";
import { benchRelease } from "./release";
import { benchTerraform } from "./terraform";
import { printComparisons } from "./_measure";

function benchArgs(args: string[]): { only?: string; sizes?: number[]; userOptions?: boolean } {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { sizes: { type: "string" }, "user-options": { type: "boolean" } } });
  return { only: positionals[0], sizes: values.sizes === undefined ? undefined : parseFleetSizes(values.sizes), userOptions: values["user-options"] };
}

async function main(): Promise<void> {
  let args: ReturnType<typeof benchArgs>;
  try {
    args = benchArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`npm run bench: ${(error as Error).message}`);
    process.exitCode = 2;
    return;
  }
  const { only, sizes = DEFAULT_FLEET_SIZES, userOptions } = args;
  if (!only || only === "api") printComparisons("Environments API vs plain tools (median of 5)", await benchApi());
  if (!only || only === "emulator-scale") printComparisons("genv serve holding 10,000 environments vs holding 20 (medians, alternating)", await benchEmulatorScale());
  if (!only || only === "hooks") printComparisons("Hooks runtime and :executeTool vs bare scripts (medians of 21; of 101 for the sandbox call)", await benchHooks());
  if (!only || only === "fleet") printComparisons(`pulumi up/destroy of ${sizes.join(", ")} environments: plugin, dynamic provider, sdk script, the engine's floor (medians, variants alternating)`, await benchFleet({ sizes, userOptions }));
  if (!only || only === "policy") printComparisons("Guardrails as code: policy cases at preview, a hook edit in place vs replacement (medians of 5, alternating)", await benchPolicy());
  if (!only || only === "policy-pack") printComparisons("The policy pack at preview (medians of 5, alternating)", await benchPolicyPack());
  if (!only || only === "release") printComparisons("Released plugin start-up: the Linux single executable vs the Node.js launcher (spawn to port, alternating)", await benchRelease());
  if (!only || only === "terraform") printComparisons("terraform and tofu apply / no-op plan / destroy of 50 environments: this provider vs Mastercard/restapi (medians, alternating), and the plugin's start-up", await benchTerraform());
  if (!only || only === "faults") printComparisons("pulumi up/destroy of a fleet under 20% injected faults (one run)", await benchFaults());
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
