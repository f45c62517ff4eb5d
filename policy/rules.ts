/**
 * The pack's rules: each a stable name, a description, a default enforcement level, its config (a zod
 * schema with defaults; the pack's JSON schema for `--policy-pack-config` derives from it) and a check
 * over the normalized view of one environment (inputs.ts) that returns violation messages. A message
 * names the place (`sources[3]`, `network.allowlist[0]`, a JSON pointer into hooks.json) and what to
 * change, as the provider's check errors do, and never quotes a secret.
 *
 * The checks reuse the hooks linter (hooks/lint.ts), the egress matcher (hooks/egress-match.ts, which the
 * proxy enforces) and the credential shapes (hooks/secrets.ts): the pack says what they say.
 */
import { z } from "zod";
import { domainMatches } from "../hooks/egress-match";
import type { LintCode } from "../hooks/lint";
import { credentialInHeader, credentialLines } from "../hooks/secrets";
import { HOOK_SCRIPTS_DIR } from "../provider/components/hook-bundle";
import { ENVIRONMENT_MODES } from "../client/schemas";
import { hooksFile, sourceLabel } from "./hooks-file";
import { copiedSourcesCovering, HOOKS_JSON_TARGET, type EnvironmentView } from "./inputs";

export interface Rule<Config extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  enforcementLevel: "advisory" | "mandatory";
  /** The rule's settings in `--policy-pack-config` (beside `enforcementLevel`), with their defaults. */
  config: Config;
  check(view: EnvironmentView, config: z.infer<Config>): string[];
}

/** A rule, typed by its config. */
function rule<Config extends z.ZodObject>(definition: Rule<Config>): Rule {
  return definition as unknown as Rule;
}

const NO_CONFIG = z.object({});

/** Lint codes each rule reports from an inline hooks.json; the other codes belong to no rule here (warnings about style). */
const HOOKS_WORK_CODES: readonly LintCode[] = ["schema", "invalid-regex", "glob-matcher"];
const HTTP_CODES: readonly LintCode[] = ["http-host-not-allowlisted", "loopback-url", "blocked-address-url", "insecure-url"];
const SECRET_CODES: readonly LintCode[] = ["secret-in-header"];

/** The lint findings of an inline hooks.json with `codes`, as messages. */
function lintMessages(view: EnvironmentView, codes: readonly LintCode[]): string[] {
  const hooks = hooksFile(view);
  if (hooks.from !== "inline" || !hooks.parsed.ok) return [];
  const where = sourceLabel(hooks.source);
  return hooks.parsed.findings.filter((finding) => codes.includes(finding.code)).map((finding) => `${where} ${finding.path || "(whole file)"}: ${finding.code}: ${finding.message}`);
}

const HOW_TO_ADD_HOOKS =
  'a GuardedEnvironment with a HookBundle, an inline source {type: "inline", target: ".agents/hooks.json", content: …}, or a repository source that mounts .agents read-only';

export const environmentHasHooks = rule({
  name: "environment-has-hooks",
  description:
    "Every environment carries a .agents/hooks.json with at least one pre_tool_execution rule that reaches a sandbox tool, and no hooks linter error. Hooks copied from a repository, bucket or skill cannot be read here and pass unchecked (hooks-unchecked lists them).",
  enforcementLevel: "mandatory",
  config: NO_CONFIG,
  check(view) {
    const hooks = hooksFile(view);
    switch (hooks.from) {
      case "unknown":
      case "copied":
        return [];
      case "nowhere":
        return [`no .agents/hooks.json: the agent's tool calls run without hooks. Add one with at least one pre_tool_execution rule: ${HOW_TO_ADD_HOOKS}`];
      case "inline": {
        const where = sourceLabel(hooks.source);
        if (!hooks.parsed.ok) return [`${where} ${hooks.parsed.problem}: hooks.json must be a JSON object of named groups, e.g. {"security-gate": {"pre_tool_execution": [...]}}`];
        const messages = lintMessages(view, HOOKS_WORK_CODES);
        if (messages.length === 0 && hooks.parsed.effectivePreRules === 0) {
          messages.push(
            `${where} has no pre_tool_execution rule that runs: add one to an enabled group, e.g. {"security-gate": {"pre_tool_execution": [{"matcher": "code_execution", "hooks": [{"type": "command", "command": "python3 /.agents/hooks-scripts/gate.py"}]}]}}`,
          );
        }
        return messages;
      }
    }
  },
});

/**
 * What environment-has-hooks passes unseen, made visible: the engine keeps a policy's "not applicable"
 * only in its summary, which the CLI does not print, so a warning is the channel a user sees. Advisory
 * by default, so it never fails a preview that passes otherwise.
 */
export const hooksUnchecked = rule({
  name: "hooks-unchecked",
  description:
    "Lists environments whose .agents/hooks.json is copied from a repository, bucket or skill source: the pack cannot read it at preview, so environment-has-hooks and http-hooks-to-allowed-endpoints pass it unchecked. Advisory: a note, not a failure.",
  enforcementLevel: "advisory",
  config: NO_CONFIG,
  check(view) {
    const hooks = hooksFile(view);
    if (hooks.from !== "copied") return [];
    return hooks.sources.map(
      (source) =>
        `unchecked (hooks from a ${source.type} source: ${source.source ?? "not known yet"}): ${sourceLabel(source)} copies .agents/hooks.json in, which cannot be read at preview, so its rules and endpoints were not checked. Review them where they live, or ship them inline (a GuardedEnvironment with a HookBundle) to have the pack check them`,
    );
  },
});

export const egressWithinAllowedDomains = rule({
  name: "egress-within-allowed-domains",
  description:
    'Allowlist entries, wildcards in particular, only inside the allowed domains (config allowedDomains: host names and "*." wildcards); an omitted network (all egress) is a violation, network "disabled" always passes.',
  enforcementLevel: "mandatory",
  config: z.object({
    allowedDomains: z
      .array(z.string())
      .default([])
      .meta({ description: 'Domains environments may reach: host names (api.example.com) and wildcards (*.example.com: its subdomains, not the apex). Default: none.' }),
  }),
  check(view, { allowedDomains }) {
    const allowed = allowedDomains.length > 0 ? allowedDomains.join(", ") : "none configured";
    const network = view.network;
    if (network.kind === "unrestricted") {
      return [`network is omitted, so the sandbox reaches every domain: declare network: {allowlist: [{domain: …}]} with domains inside the allowed ones (${allowed}), or network: "disabled"`];
    }
    if (network.kind !== "allowlist") return [];
    return network.entries
      .filter((entry) => entry.domain !== undefined && !withinAllowed(entry.domain, allowedDomains))
      .map((entry) => {
        const domain = entry.domain!;
        const reach = domain === "*" ? "every domain" : domain.startsWith("*.") ? `every subdomain of ${domain.slice(2)}` : domain;
        return `network.allowlist[${entry.index}] ${JSON.stringify(domain)} reaches ${reach}, outside the allowed domains (${allowed}): list only hosts under the allowed domains, or ask for ${JSON.stringify(domain)} to be added to the pack's allowedDomains`;
      });
  },
});

/** Is every host `domain` lets through covered by an allowed pattern? (A wildcard stands for any one of its subdomains.) */
function withinAllowed(domain: string, allowedDomains: readonly string[]): boolean {
  const d = domain.trim().toLowerCase();
  if (d === "*") return allowedDomains.some((allowed) => allowed.trim() === "*");
  const host = d.startsWith("*.") ? `any-subdomain${d.slice(1)}` : d;
  return allowedDomains.some((allowed) => domainMatches(allowed, host));
}

export const httpHooksToAllowedEndpoints = rule({
  name: "http-hooks-to-allowed-endpoints",
  description:
    "HTTP hooks send tool calls only to allowed endpoints (config allowedEndpoints: URL prefixes or domains), over https, to a host the environment's allowlist lets through and the egress proxy does not refuse.",
  enforcementLevel: "mandatory",
  config: z.object({
    allowedEndpoints: z
      .array(z.string())
      .default([])
      .meta({
        description:
          "Where HTTP hooks may send events: URL prefixes (https://audit.example.com/hooks/) or domains (audit.example.com, *.example.com). Default: none configured, so only the linter's URL checks apply.",
      }),
  }),
  check(view, { allowedEndpoints }) {
    const messages = lintMessages(view, HTTP_CODES);
    const hooks = hooksFile(view);
    if (allowedEndpoints.length === 0 || hooks.from !== "inline" || !hooks.parsed.ok) return messages;
    for (const handler of hooks.parsed.httpHandlers) {
      if (allowedEndpoints.some((endpoint) => endpointAllows(endpoint, handler.url))) continue;
      messages.push(
        `${sourceLabel(hooks.source)} ${handler.pointer}: ${new URL(handler.url).origin} is not an allowed hook endpoint (${allowedEndpoints.join(", ")}): send the events to one of them, or remove the http handler`,
      );
    }
    return messages;
  },
});

function endpointAllows(endpoint: string, url: string): boolean {
  if (endpoint.includes("://")) return url.startsWith(endpoint);
  return domainMatches(endpoint, new URL(url).hostname);
}

export const hooksReadOnly = rule({
  name: "hooks-read-only",
  description:
    "hooks.json and its scripts come from read-only sources (config readOnlySourceTypes, default repository): inline files can be rewritten by an agent with write or shell access.",
  enforcementLevel: "advisory",
  config: z.object({
    readOnlySourceTypes: z
      .array(z.enum(["repository", "gcs", "skill_registry"]))
      .default(["repository"])
      .meta({ description: "Source types whose files the agent cannot change. Default: repository." }),
  }),
  check(view, { readOnlySourceTypes }) {
    if (view.sources === "unknown") return [];
    const fix = `mount .agents from a read-only repository source, e.g. {type: "repository", source: "github://your-org/guardrails", target: ".agents"}`;
    const messages: string[] = [];
    for (const source of view.sources) {
      if (source.type !== "inline" || (source.target !== HOOKS_JSON_TARGET && !source.target?.startsWith(`${HOOK_SCRIPTS_DIR}/`))) continue;
      messages.push(`${sourceLabel(source)} is inline, so an agent with write or shell access can rewrite it and disarm its hooks: ${fix}`);
    }
    for (const source of copiedSourcesCovering(view.sources, HOOKS_JSON_TARGET)) {
      if ((readOnlySourceTypes as string[]).includes(source.type)) continue;
      messages.push(`${sourceLabel(source)} copies .agents/hooks.json from a ${source.type} source, which is not read-only (${readOnlySourceTypes.join(", ")}): ${fix}`);
    }
    return messages;
  },
});

export const noSecretsInSources = rule({
  name: "no-secrets-in-sources",
  description:
    "No inline source holds what looks like a credential (known token shapes, long random values assigned to key-like names, credential headers in hooks.json); the violation names the source and line, never the value.",
  enforcementLevel: "mandatory",
  config: NO_CONFIG,
  check(view) {
    if (view.sources === "unknown") return [];
    const messages: string[] = [];
    for (const source of view.sources) {
      if (source.text === undefined) continue;
      for (const { line, why } of credentialLines(source.text)) {
        messages.push(
          `${sourceLabel(source)} line ${line} ${why}: inline content is readable by the agent and kept in the stack's state; remove it and let the egress proxy inject it (a Credential resource referenced by network.allowlist[].credential)`,
        );
      }
    }
    return [...messages, ...lintMessages(view, SECRET_CODES)];
  },
});

export const credentialFromResource = rule({
  name: "credential-from-resource",
  description: "Allowlist entries inject credentials by referencing a Credential resource (credential: <id>), not a literal header value in transform.",
  enforcementLevel: "mandatory",
  config: NO_CONFIG,
  check(view) {
    if (view.network.kind !== "allowlist") return [];
    const messages: string[] = [];
    for (const entry of view.network.entries) {
      for (const headers of entry.headers) {
        for (const [name, value] of Object.entries(headers)) {
          if (typeof value !== "string") continue;
          const why = credentialInHeader(name, value);
          if (why === undefined) continue;
          messages.push(
            `network.allowlist[${entry.index}] (${entry.domain ?? "?"}) transform sets ${JSON.stringify(name)} to a literal value (${why}): create a Credential (e.g. type: "bearer_token", headerName: ${JSON.stringify(name)}) and set credential: <its credentialId> on this entry instead of the transform`,
          );
        }
      }
    }
    return messages;
  },
});

export const modeAllowed = rule({
  name: "mode-allowed",
  description: "Environments use only the allowed modes (config allowedModes: on_demand, self_hosted; default on_demand).",
  enforcementLevel: "mandatory",
  config: z.object({
    allowedModes: z
      .array(z.enum(ENVIRONMENT_MODES))
      .default(["on_demand"])
      .meta({ description: "Modes environments may use: on_demand (the service runs the sandbox), self_hosted (your daemon does). Default: on_demand." }),
  }),
  check(view, { allowedModes }) {
    if (view.mode === undefined || (allowedModes as string[]).includes(view.mode)) return [];
    return [
      `mode is ${JSON.stringify(view.mode)}, which this stack may not use (allowed: ${allowedModes.join(", ") || "none"}): set mode to ${allowedModes.map((mode) => JSON.stringify(mode)).join(" or ") || "an allowed mode"}, or ask for ${view.mode} to be added to the pack's allowedModes`,
    ];
  },
});

/** Every rule, in the order the pack reports them. */
export const RULES: readonly Rule[] = [
  environmentHasHooks,
  hooksUnchecked,
  egressWithinAllowedDomains,
  httpHooksToAllowedEndpoints,
  hooksReadOnly,
  noSecretsInSources,
  credentialFromResource,
  modeAllowed,
];

/** The violations of `view` under `rule` with `config` as `--policy-pack-config` gives it (defaults filled in). */
export function violations(rule: Rule, view: EnvironmentView, config: Record<string, unknown> = {}): string[] {
  const { enforcementLevel: _level, ...settings } = config;
  return rule.check(view, rule.config.parse(settings));
}
