/**
 * The contract of a resource core: one module per resource (environment/core.ts, credential/core.ts)
 * holds check, diff, create, read, update and delete over plain values — secrets unwrapped, values
 * unknown during preview as `UNKNOWN` — and two thin adapters call it: the Node.js dynamic provider
 * (environment-provider.ts, credential-provider.ts) and the native plugin (plugin/provider.ts).
 *
 * A core never imports `@pulumi/pulumi` (the plugin loads it lazily) and never reads configuration:
 * the adapter hands it a client.
 */
import type { EnvironmentsClient } from "../../client/client";
import { renderIssue, type Issue } from "../../client/issues";
import type { ChangeKind } from "./property-diff";

/** A check failure: the top-level property, and a reason that starts with the full path (`sources[2].target: …`). */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** The check failure of an issue whose path starts at the resource's inputs: rendered here, once. */
export function checkFailure(issue: Issue): CheckFailure {
  return { property: issue.path.length > 0 ? String(issue.path[0]) : "", reason: renderIssue(issue) };
}

export interface CheckResult<Inputs> {
  inputs: Inputs;
  failures: CheckFailure[];
}

/** One changed property path and whether its change forces a replacement. */
export interface PropertyChange {
  kind: ChangeKind;
  replace: boolean;
  /** The old value is an input (compare with the old inputs), not a computed output such as `status`. */
  input: boolean;
}

/** A diff: every changed path (`sources[1].content`, `token`), and how a replacement must proceed. */
export interface ResourceDiff {
  changes: Map<string, PropertyChange>;
  deleteBeforeReplace: boolean;
}

/**
 * A resource as its URN names it (`urn:pulumi:<stack>::<project>::[<parent type>$]<type>::<name>`): which
 * core serves it (`type`), and what a default derived from the resource's identity needs (a
 * Credential's `credentialId`). The plugin has it from the engine; the dynamic provider does not, and
 * its classes set such defaults.
 */
export interface ResourceIdentity {
  project: string;
  stack: string;
  /** The resource's own type token, without its parents' (`gemini-environments:index:Environment`). */
  type: string;
  name: string;
}

/** The identity in a resource's URN; undefined for anything that is not one. */
export function identityOfUrn(urn: string): ResourceIdentity | undefined {
  if (!urn.startsWith("urn:pulumi:")) return undefined;
  const [stack, project, qualifiedType, ...name] = urn.slice("urn:pulumi:".length).split("::");
  if (qualifiedType === undefined || name.length === 0) return undefined;
  return { project, stack, type: qualifiedType.split("$").pop()!, name: name.join("::") };
}

export interface ReadResult<Inputs, Outputs> {
  id: string;
  outs: Outputs;
  /** The inputs that give this state: the old ones on refresh, derived from the API's answer on import. */
  inputs: Inputs;
}

export interface ResourceCore<Inputs extends object, Outputs extends Inputs> {
  /** The type name in the package: `Environment` is `gemini-environments:index:Environment`. */
  readonly name: string;
  /** Properties whose values are secret whatever their origin (write-only on the API). */
  readonly secretProperties: readonly string[];
  /**
   * The input properties the outputs only restate: the dynamic provider's outputs repeat them, the
   * plugin's leave them to the state's inputs. An SDK resolves an output left out to its input on
   * update but not at preview, where it is unknown, and Pulumi YAML not at all (`${cred.type}` reads
   * null): an input schema.json also declares an output is kept in the outputs unless there is a
   * reason (a Credential's secrets are write-only; an Environment's sources would be stored twice).
   */
  readonly restatedInputs: readonly string[];
  /**
   * Validates the inputs and fills in the defaults that an omitted input does not already mean to the
   * core (an omitted `mode` is its `absent` value, `on_demand`): a Credential's `credentialId`, from
   * `resource`. The plugin gives it (the engine's URN); the dynamic provider's classes set it themselves.
   */
  check(olds: Partial<Inputs>, news: Inputs, resource?: ResourceIdentity): CheckResult<Inputs>;
  /** Local: never calls the API, so a no-op preview makes no request. */
  diff(olds: Outputs, news: Inputs): ResourceDiff;
  create(client: EnvironmentsClient, inputs: Inputs): Promise<{ id: string; outs: Outputs }>;
  /** `props` are the state's outputs on refresh, absent on import; undefined when the resource is gone. */
  read(client: EnvironmentsClient, id: string, props?: Partial<Outputs>): Promise<ReadResult<Inputs, Outputs> | undefined>;
  /** Throws `PartialUpdateError` when part of the change was applied: its outputs say what holds now. */
  update(client: EnvironmentsClient, id: string, olds: Outputs, news: Inputs): Promise<Outputs>;
  /** Idempotent: a resource already gone is deleted. */
  delete(client: EnvironmentsClient, id: string): Promise<void>;
}

/**
 * An update that failed after applying part of the change. `outs` is the state that is true now (the
 * inputs as applied, not as declared): the adapters hand it to the engine as a partial failure
 * (`ErrorResourceInitFailed`), which records it, so the next `up` diffs from it and finishes the job.
 */
export class PartialUpdateError<Outputs> extends Error {
  override name = "PartialUpdateError";
  constructor(
    message: string,
    readonly id: string,
    readonly outs: Outputs,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The error an adapter throws for the engine: a `PartialUpdateError` becomes `{id, properties,
 * reasons}`, which `@pulumi/pulumi`'s provider servers (dynamic and native) send as
 * `ErrorResourceInitFailed`, so the engine records `properties` as the resource's state. Any other
 * error passes through.
 */
export function partialFailure(error: unknown, properties: (outs: object) => object): unknown {
  if (!(error instanceof PartialUpdateError)) return error;
  return Object.assign(new Error(error.message, { cause: error.cause }), {
    id: error.id,
    properties: properties(error.outs as object),
    reasons: [error.message],
  });
}

/** The top-level properties whose change forces a replacement. */
export function replacedProperties(diff: ResourceDiff): string[] {
  const properties = new Set<string>();
  for (const [path, change] of diff.changes) if (change.replace) properties.add(topLevelProperty(path));
  return [...properties];
}

/** `sources[1].content` → `sources`. */
export function topLevelProperty(path: string): string {
  return path.split(/[.[]/)[0];
}

/** Records `propertyChanges`' paths in `diff` with one replace/input setting. */
export function addChanges(diff: ResourceDiff, paths: Map<string, ChangeKind>, change: Omit<PropertyChange, "kind">): void {
  for (const [path, kind] of paths) diff.changes.set(path, { kind, ...change });
}

/**
 * A diff as a dynamic provider returns it. Dynamic providers have no detailed diff, so `replaces`
 * carries the replacing property paths themselves (`sources[1].content`), which the preview names.
 */
export function dynamicDiffResult(diff: ResourceDiff): { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean } {
  const replaces = [...diff.changes].filter(([, change]) => change.replace).map(([path]) => path);
  return { changes: diff.changes.size > 0, replaces, deleteBeforeReplace: diff.deleteBeforeReplace };
}
