/**
 * The one place that reads an environment's inputs as the policy engine hands them over, whichever
 * provider serves it and however its properties are spelled, into one normalized view the rules check.
 *
 * - Type tokens: `gemini-environments:index:Environment` (the plugin: YAML, Python, Go, and TypeScript's
 *   `plugin.Environment`) and `pulumi-nodejs:dynamic/gemini-environments:Environment` (the dynamic
 *   provider). A `GuardedEnvironment` (either kind) is checked through the Environment it creates, which
 *   has its name and carries its hooks and network.
 * - Property spellings: camelCase as declared (`fromEnvironment`) or the API's snake_case (`from_environment`).
 * - Network forms: omitted (all egress), `"disabled"`, `{allowlist: "disabled"}`, `{disabled: true}`,
 *   `{allowlist: [...]}`; an entry's `transform` as one header map or a list of maps.
 *
 * A value the engine does not know yet (preview, an output of another resource) is `unknown`: the
 * rules skip what they cannot see rather than guess.
 */
import { DEFAULT_ENVIRONMENT_MODE, type Network } from "../client/schemas";
import { typeTokensOf } from "../provider/contracts/configuration";
import { HOOKS_JSON_TARGET } from "../provider/environment/hooks-check";

// ---------------------------------------------------------------------------------------------
// The view
// ---------------------------------------------------------------------------------------------

export const ENVIRONMENT_TYPES = typeTokensOf("Environment");

/** Where the hook runtime finds hooks.json, relative to the environment root. */
export { HOOKS_JSON_TARGET };

export interface SourceView {
  /** Its index in `sources`, for messages (`sources[3]`). */
  index: number;
  type: string;
  /** Path relative to the environment root; undefined for a copy into the root. */
  target?: string;
  /** Where a repository, gcs or skill_registry source copies from. */
  source?: string;
  /** An inline source's text (base64 decoded); undefined when binary or not known yet. */
  text?: string;
}

export interface AllowlistEntryView {
  index: number;
  domain?: string;
  /** The header maps of `transform`, in order. */
  headers: Array<Record<string, unknown>>;
  credential?: string;
}

export type NetworkView =
  | { kind: "unrestricted" }
  | { kind: "disabled" }
  | { kind: "allowlist"; entries: AllowlistEntryView[] }
  | { kind: "unknown" };

export interface EnvironmentView {
  /** `unknown` when the list itself is not known yet; unknown entries are left out. */
  sources: SourceView[] | "unknown";
  network: NetworkView;
  /** `on_demand` when omitted; undefined when not known yet. */
  mode?: string;
}

/** The view of a resource's inputs, or undefined when it is not an Environment. */
export function environmentView(type: string, props: Record<string, unknown>): EnvironmentView | undefined {
  if (!ENVIRONMENT_TYPES.includes(type)) return undefined;
  const mode = property(props, "mode");
  return {
    sources: sourcesView(property(props, "sources")),
    network: networkView(property(props, "network")),
    mode: mode === undefined || mode === null ? DEFAULT_ENVIRONMENT_MODE : typeof mode === "string" ? mode : undefined,
  };
}

/** The network in the API's form, for the hooks linter (`lintHooks`'s `network`); undefined = all egress. */
export function networkForLint(network: NetworkView): Network | undefined {
  if (network.kind === "disabled") return "disabled";
  if (network.kind !== "allowlist") return undefined;
  return { allowlist: network.entries.filter((entry) => entry.domain !== undefined).map((entry) => ({ domain: entry.domain! })) };
}

/** The inline source at `target`, if any (the last one: a later source overwrites an earlier one). */
export function inlineSourceAt(sources: readonly SourceView[], target: string): SourceView | undefined {
  return sources.filter((source) => source.type === "inline" && source.target === target).pop();
}

/** The non-inline sources that copy something to `path`: into the root, to `path` itself or to a dir above it. */
export function copiedSourcesCovering(sources: readonly SourceView[], path: string): SourceView[] {
  return sources.filter((source) => {
    if (source.type === "inline") return false;
    const target = (source.target ?? "").replace(/\/+$/, "");
    return target === "" || target === path || path.startsWith(`${target}/`);
  });
}

// ---------------------------------------------------------------------------------------------
// Readers
// ---------------------------------------------------------------------------------------------

/** `camelCase` or its `snake_case`, whichever the props hold. */
function property(props: Record<string, unknown>, camel: string): unknown {
  if (camel in props) return props[camel];
  return props[camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)];
}

function sourcesView(value: unknown): SourceView[] | "unknown" {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return "unknown";
  const sources: SourceView[] = [];
  value.forEach((item: unknown, index) => {
    const fields = asObject(item);
    if (!fields || typeof fields.type !== "string") return;
    sources.push({
      index,
      type: fields.type,
      ...(typeof fields.target === "string" && { target: fields.target.replace(/\/+$/, "") }),
      ...(typeof fields.source === "string" && { source: fields.source }),
      ...(fields.type === "inline" && typeof fields.content === "string" && { text: decode(fields.content, fields.encoding) }),
    });
  });
  return sources;
}

function networkView(value: unknown): NetworkView {
  if (value === undefined || value === null) return { kind: "unrestricted" };
  if (value === "disabled") return { kind: "disabled" };
  const fields = asObject(value);
  if (!fields) return { kind: "unknown" };
  if (fields.disabled === true || fields.allowlist === "disabled") return { kind: "disabled" };
  if (!Array.isArray(fields.allowlist)) return { kind: "unknown" };
  return {
    kind: "allowlist",
    entries: fields.allowlist.map((item: unknown, index) => {
      const entry = asObject(item) ?? {};
      return {
        index,
        ...(typeof entry.domain === "string" && { domain: entry.domain }),
        headers: headerMaps(entry.transform),
        ...(typeof entry.credential === "string" && { credential: entry.credential }),
      };
    }),
  };
}

function headerMaps(transform: unknown): Array<Record<string, unknown>> {
  const maps = Array.isArray(transform) ? transform : [transform];
  return maps.map(asObject).filter((map): map is Record<string, unknown> => map !== undefined);
}

/** UTF-8 text of inline content, undefined for binary (a NUL or an invalid sequence once decoded). */
function decode(content: string, encoding: unknown): string | undefined {
  if (encoding !== "base64") return content;
  const bytes = Buffer.from(content, "base64");
  const text = bytes.toString("utf8");
  return text.includes("\0") || text.includes("\uFFFD") ? undefined : text;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
