/**
 * `GuardedEnvironment`: an Environment whose hooks and egress policy are declared together.
 *
 * ```ts
 * const env = new GuardedEnvironment("agent", {
 *   hooks: bundle,                                   // HookBundle: hooks.json + scripts
 *   network: NetworkPolicy.allowlist().allowHookHosts(bundle),
 *   sources: [{ type: "inline", target: "workspace/main.py", content: "print('hi')" }],
 * });
 * export const environmentId = env.environmentId;
 * ```
 *
 * The child Environment gets the bundle's sources first, then `sources`. The hooks linter runs twice:
 * here at program time, reporting warnings with `pulumi.log.warn` on this resource (a dynamic provider's
 * check cannot show warnings), and in the Environment's check, where errors stop the preview with the
 * failing source and JSON pointer.
 */
import * as pulumi from "../contracts/pulumi-sdk";
import { lintHooks, type Finding, type LintCode } from "../../hooks/lint";
import { Environment, type EnvironmentArgs, type EnvironmentResource, type EgressPolicyArgs, type SourceArgs } from "../environment/resource";
import type { UpdateStrategy } from "../environment/inputs";
import type { HookBundle } from "./hook-bundle";
import { checkProbe } from "./_probe-at-preview";
import type { FailOpenAcknowledgement } from "../../hooks/probe/run";
import { NetworkPolicy } from "./network-policy";

export const GUARDED_ENVIRONMENT_TYPE = "gemini-environments:index:GuardedEnvironment";

export interface GuardedEnvironmentArgs {
  /** The hooks config and scripts, shipped as `.agents/hooks.json` and `.agents/hooks-scripts/*`. */
  hooks: HookBundle;
  /**
   * The egress policy, always explicit: a `NetworkPolicy` (`NetworkPolicy.unrestricted()` for all
   * egress) or a raw `network` value. HTTP hooks need their hosts allowed (`allowHookHosts(bundle)`).
   */
  network: NetworkPolicy | pulumi.Input<EgressPolicyArgs>;
  /** More sources after the bundle's, e.g. the workspace the agent works on. */
  sources?: pulumi.Input<SourceArgs>[];
  /**
   * Warning codes reviewed and accepted, not reported again, e.g. `["inline-hooks-writable"]` for a
   * fleet that knowingly ships hooks inline. Errors cannot be acknowledged. With the bundle's `probe`
   * on, a reviewed fail-open finding is accepted as `fail-open:<group>:<tool>:<outcome>` (warning or
   * error alike), e.g. `"fail-open:security-gate:code_execution:timeout"`.
   */
  acknowledgedWarnings?: Array<LintCode | FailOpenAcknowledgement>;
  /** The Environment's `updateStrategy`: `in_place` (default: a hook change uploads the files, the agent's work stays) or `replace`. */
  updateStrategy?: pulumi.Input<UpdateStrategy>;
}

export class GuardedEnvironment extends pulumi.ComponentResource {
  /**
   * The Environment's id, e.g. `env_abc123`: hand it to an interaction as `environment`. (Not `id`,
   * which Pulumi reserves for custom resources' provider ids.)
   */
  readonly environmentId: pulumi.Output<string>;
  /** `active`, or `expired` once idle too long. */
  readonly status: pulumi.Output<string>;
  readonly fileCount: pulumi.Output<number>;
  readonly sizeBytes: pulumi.Output<number>;
  readonly created: pulumi.Output<string>;
  readonly lastAccessed: pulumi.Output<string>;
  /** The child resource. */
  readonly environment: EnvironmentResource;
  /** The bundle's policy cases: `2 passed`, or `skipped` where no sandbox runs them; fails the operation on a regression. Undefined without cases. */
  readonly policyTests?: pulumi.Output<string>;
  /** The bundle's probe at this preview or update: `none`, `2 fail-open findings (1 acknowledged)`, or `skipped` where no sandbox runs it. Undefined with the probe off. */
  readonly failOpen?: pulumi.Output<string>;
  /** The linter's warnings reported at program time (acknowledged codes left out). */
  readonly warnings: Finding[];

  constructor(name: string, args: GuardedEnvironmentArgs, opts?: pulumi.ComponentResourceOptions) {
    super(GUARDED_ENVIRONMENT_TYPE, name, {}, opts);
    const acknowledged = new Set<string>(args.acknowledgedWarnings ?? []);
    this.warnings = lintHooks(args.hooks.config, { inlineSourced: args.hooks.writableByAgent }).filter(
      (finding) => finding.severity === "warning" && !acknowledged.has(finding.code),
    );
    for (const finding of this.warnings) {
      pulumi.log.warn(`.agents/hooks.json ${finding.path || "(whole file)"}: ${finding.code}: ${finding.message}`, this);
    }

    const network = args.network instanceof NetworkPolicy ? args.network.toNetworkArgs() : args.network;
    this.environment = this.createEnvironment(
      name,
      {
        sources: [...args.hooks.sources, ...(args.sources ?? [])],
        ...(network !== undefined && { network }),
        ...(args.updateStrategy !== undefined && { updateStrategy: args.updateStrategy }),
      },
      { parent: this },
    );
    this.environmentId = this.environment.id;
    this.status = this.environment.status;
    this.fileCount = this.environment.fileCount;
    this.sizeBytes = this.environment.sizeBytes;
    this.created = this.environment.created;
    this.lastAccessed = this.environment.lastAccessed;
    // The bundle's policy cases, at every preview and update: a regression fails the operation.
    const policyChecked = args.hooks.tests.length > 0 ? checkPolicy(args.hooks, this) : undefined;
    this.policyTests = policyChecked && pulumi.output(policyChecked);
    // The probe after the lint and the cases (a failed case stops the operation first; the two would
    // otherwise share the CPUs): a few seconds per gate, so only when the bundle asks for it.
    this.failOpen = args.hooks.probe !== "off" ? pulumi.output((policyChecked ?? Promise.resolve()).then(() => checkProbe(args.hooks, acknowledged, this), () => "not run: a policy case failed")) : undefined;
    this.registerOutputs({
      environmentId: this.environmentId,
      status: this.status,
      fileCount: this.fileCount,
      sizeBytes: this.sizeBytes,
      ...(this.policyTests && { policyTests: this.policyTests }),
      ...(this.failOpen && { failOpen: this.failOpen }),
    });
  }

  /** The child Environment: the dynamic resource here; the plugin's `construct` makes one it serves. */
  protected createEnvironment(name: string, args: EnvironmentArgs, opts: pulumi.CustomResourceOptions): EnvironmentResource {
    return new Environment(name, args, opts);
  }
}

/** Runs the bundle's cases; throws naming each failed one. Without a sandbox: a warning, or an error under GENV_POLICY_TESTS=require. */
async function checkPolicy(hooks: HookBundle, resource: pulumi.Resource): Promise<string> {
  let outcomes: Awaited<ReturnType<HookBundle["runTests"]>>;
  try {
    outcomes = await hooks.runTests();
  } catch (error) {
    if ((error as { code?: string }).code !== "GENV_SANDBOX_UNAVAILABLE") throw error;
    const message = `policy tests not run: no sandbox here (${(error as Error).message}); they run where bubblewrap works (Linux; the emulator's container)`;
    if (process.env.GENV_POLICY_TESTS === "require") throw new Error(`${message}. GENV_POLICY_TESTS=require makes this an error.`);
    pulumi.log.warn(message, resource);
    return "skipped";
  }
  const failed = outcomes.filter((outcome) => outcome.mismatch !== undefined);
  if (failed.length > 0) {
    throw new Error(
      `policy tests failed (${failed.length} of ${outcomes.length}):\n${failed.map((outcome) => `  - ${outcome.name}: ${outcome.mismatch}`).join("\n")}`,
    );
  }
  return `${outcomes.length} passed`;
}
