/**
 * The hooks linter: every problem of a hooks.json at once, each at its JSON pointer (RFC 6901), with a
 * stable code and a fix. Used by the provider's `check` (errors stop the preview) and `genv hooks lint`.
 *
 * Codes (`LINT_CODES`), their severity and fix: the table in hooks/README.md. Codes are stable;
 * messages are for people and may change.
 *
 * The structural check runs on the schema; the policy checks walk the raw JSON defensively, so that a
 * structural error in one handler does not hide a glob or a secret elsewhere.
 */
import { isIP } from "node:net";
import type { z } from "zod";
import type { Network } from "../client/schemas";
import { closestTool } from "./_closest-tool";
import { globSuggestion, topLevelAlternatives } from "./_glob";
import { credentialInHeader } from "./secrets";
import { addressRefusal } from "./egress-addresses";
import { domainMatches, egressAllowed } from "./egress-match";
import { isCatchAll, matchedTools, matcherError, SANDBOX_TOOLS } from "./matcher";
import { HOOK_EVENTS, HooksConfig } from "./schema";

// ---------------------------------------------------------------------------------------------
// Findings
// ---------------------------------------------------------------------------------------------

export const LINT_CODES = [
  "schema",
  "invalid-regex",
  "glob-matcher",
  "unknown-tool",
  "http-host-not-allowlisted",
  "loopback-url",
  "blocked-address-url",
  "insecure-url",
  "secret-in-header",
  "inline-hooks-writable",
  "http-on-failure-deny",
  "on-failure-not-compiled",
] as const;
export type LintCode = (typeof LINT_CODES)[number];

export interface Finding {
  severity: "error" | "warning";
  code: LintCode;
  /** JSON pointer (RFC 6901) into the hooks file, e.g. `/security-gate/pre_tool_execution/0/matcher`; `""` is the whole file. */
  path: string;
  message: string;
}

export interface LintOptions {
  /** The environment's network policy; omitted means all egress is allowed. */
  network?: Network;
  /** True when hooks.json (and its scripts) reach the environment as inline sources, which the agent can rewrite. */
  inlineSourced?: boolean;
  /**
   * True for the hooks.json an environment holds as it is (an Environment's own inline source), which
   * the runtime reads without compiling: `on_failure` there would be ignored, so it is an error.
   */
  held?: boolean;
}

/** RFC 6901 pointer of `segments`: `~` → `~0`, `/` → `~1`. */
export function jsonPointer(segments: ReadonlyArray<PropertyKey>): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** True when any finding is an error. */
export function hasErrors(findings: ReadonlyArray<Finding>): boolean {
  return findings.some((finding) => finding.severity === "error");
}

// ---------------------------------------------------------------------------------------------
// Linter
// ---------------------------------------------------------------------------------------------

/** Every finding for `configJson` (parsed hooks.json), in document order. */
export function lintHooks(configJson: unknown, options: LintOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const result = HooksConfig.safeParse(configJson);
  if (!result.success) findings.push(...result.error.issues.flatMap(schemaFindings));
  for (const [name, group] of entries(configJson)) {
    for (const event of HOOK_EVENTS) {
      const rules = (group as Record<string, unknown> | undefined)?.[event];
      if (!Array.isArray(rules)) continue;
      rules.forEach((rule: unknown, r) => {
        const at = [name, event, r];
        const fields = asObject(rule);
        if (typeof fields?.matcher === "string") findings.push(...lintMatcher(fields.matcher, [...at, "matcher"]));
        if (!Array.isArray(fields?.hooks)) return;
        fields.hooks.forEach((handler: unknown, h) => {
          const handlerFields = asObject(handler);
          if (handlerFields?.type === "http") findings.push(...lintHttp(handlerFields, [...at, "hooks", h], options.network));
          if (handlerFields?.on_failure !== undefined) findings.push(...lintOnFailure(handlerFields, [...at, "hooks", h, "on_failure"], options.held ?? false));
        });
      });
    }
  }
  if (options.inlineSourced) {
    findings.push({
      severity: "warning",
      code: "inline-hooks-writable",
      path: "",
      message:
        "hooks.json and its scripts come from inline sources, which an agent with write or shell access can modify: treat these hooks as guidance; where tamper resistance matters, mount them from a read-only repository source",
    });
  }
  return inDocumentOrder(findings, configJson);
}

// ---------------------------------------------------------------------------------------------
// Structure
// ---------------------------------------------------------------------------------------------

const FIELDS_AT_DEPTH: Record<number, string> = {
  1: "pre_tool_execution, post_tool_execution or enabled",
  3: "matcher and hooks",
  5: "type, command, url, headers, timeout and on_failure",
};

function schemaFindings(issue: z.core.$ZodIssue): Finding[] {
  if (issue.code !== "unrecognized_keys") {
    return [{ severity: "error", code: "schema", path: jsonPointer(issue.path), message: issue.message }];
  }
  return issue.keys.map((key) => {
    const depth = issue.path.length;
    const message =
      depth === 1
        ? `unknown event "${key}": hooks run on pre_tool_execution or post_tool_execution (groups also take enabled)`
        : `unknown field "${key}": expected ${FIELDS_AT_DEPTH[depth] ?? "known fields only"}`;
    return { severity: "error" as const, code: "schema" as const, path: jsonPointer([...issue.path, key]), message };
  });
}

// ---------------------------------------------------------------------------------------------
// Matchers
// ---------------------------------------------------------------------------------------------

function lintMatcher(matcher: string, at: PropertyKey[]): Finding[] {
  const path = jsonPointer(at);
  const quoted = JSON.stringify(matcher);
  const glob = globSuggestion(matcher);
  if (glob !== undefined) {
    return [
      {
        severity: "error",
        code: "glob-matcher",
        path,
        message: `${quoted} is a shell glob, but matchers are RE2 regular expressions (it matches nothing useful): write ${JSON.stringify(glob)} (bare "*" alone is the catch-all)`,
      },
    ];
  }
  const error = matcherError(matcher);
  if (error !== undefined) {
    return [{ severity: "error", code: "invalid-regex", path, message: `${quoted} is not a valid RE2 regular expression (${error}): the rule would match no tool` }];
  }
  if (isCatchAll(matcher)) return [];
  const tools = SANDBOX_TOOLS.join(", ");
  if (matchedTools(matcher).length === 0) {
    const guesses = [...new Set(topLevelAlternatives(matcher).map(closestTool))];
    return [
      {
        severity: "warning",
        code: "unknown-tool",
        path,
        message: `${quoted} matches none of the sandbox tools (${tools}; matched against the whole name): did you mean ${guesses.join(", ")}?`,
      },
    ];
  }
  const alternatives = topLevelAlternatives(matcher);
  if (alternatives.length < 2) return [];
  return alternatives
    .filter((alternative) => !isCatchAll(alternative) && matcherError(alternative) === undefined && matchedTools(alternative).length === 0)
    .map((alternative) => ({
      severity: "warning" as const,
      code: "unknown-tool" as const,
      path,
      message: `alternative ${JSON.stringify(alternative)} of ${quoted} matches none of the sandbox tools (${tools}): did you mean ${closestTool(alternative)}?`,
    }));
}

// ---------------------------------------------------------------------------------------------
// on_failure
// ---------------------------------------------------------------------------------------------

function lintOnFailure(handler: Record<string, unknown>, at: PropertyKey[], held: boolean): Finding[] {
  const path = jsonPointer(at);
  if (held) {
    return [
      {
        severity: "error",
        code: "on-failure-not-compiled",
        path,
        message:
          "the runtime reads hooks.json as it is and does not know on_failure: the handler would fail open. Give the config to a HookBundle, a GuardedEnvironment or the geminienvironments_hooks data source, which compile on_failure into a wrapper, and use their sources",
      },
    ];
  }
  if (handler.type !== "http" || handler.on_failure !== "deny") return [];
  return [
    {
      severity: "error",
      code: "http-on-failure-deny",
      path,
      message:
        'on_failure "deny" cannot hold for an http handler: the request is made by the service, not in the sandbox, so no wrapper can answer when it fails (non-2xx, unreachable, timeout, no decision). Use a command handler that calls the URL instead (e.g. python3 or curl posting the event from stdin) with on_failure "deny", and allow its host in network.allowlist',
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// HTTP handlers
// ---------------------------------------------------------------------------------------------

function lintHttp(handler: Record<string, unknown>, at: PropertyKey[], network: Network | undefined): Finding[] {
  const findings: Finding[] = [];
  const url = parseUrl(handler.url);
  const host = url?.hostname;
  if (url && host) {
    const path = jsonPointer([...at, "url"]);
    const refused = refusedHost(host, path);
    if (refused) {
      findings.push(refused);
    } else {
      if (url.protocol === "http:") {
        findings.push({ severity: "warning", code: "insecure-url", path, message: `${url.origin} is plain http: the event (tool name and arguments) travels unencrypted; use https://` });
      }
      const blocked = egressBlocked(network, host);
      if (blocked) findings.push({ severity: "error", code: "http-host-not-allowlisted", path, message: blocked });
    }
  }
  const headers = asObject(handler.headers);
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value !== "string") continue;
    const why = credentialInHeader(name, value);
    if (why === undefined) continue;
    const domain = host ?? "<host>";
    findings.push({
      severity: "error",
      code: "secret-in-header",
      path: jsonPointer([...at, "headers", name]),
      message:
        `header ${JSON.stringify(name)} carries a credential (${why}): hooks.json is readable inside the sandbox, so never put secrets in it. ` +
        `Remove the header and let the egress proxy inject it on the wire: add {"domain": ${JSON.stringify(domain)}, "transform": {${JSON.stringify(name)}: "…"}} ` +
        `or {"domain": ${JSON.stringify(domain)}, "credential": "<credential id>"} to network.allowlist`,
    });
  }
  return findings;
}

const REFUSED_FIX = "the egress proxy refuses it whatever the allowlist (only an operator's --egress-route reaches such an address): target a public endpoint on the network allowlist";

/**
 * The finding for a host the proxy refuses whatever the network policy: a loopback name, or an IP
 * literal that is not globally reachable (`hooks/egress-addresses.ts`, the proxy's own policy). Names
 * other than localhost resolve only at delivery, where the proxy checks them. Takes a WHATWG
 * `URL.hostname`, whose IPv4 spellings are already canonical (`0x7f.1`, `2130706433` → `127.0.0.1`).
 */
function refusedHost(hostname: string, path: string): Finding | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) {
    return { severity: "error", code: "loopback-url", path, message: `${hostname} is a loopback name (it resolves to 127.0.0.1 or ::1): ${REFUSED_FIX}` };
  }
  if (isIP(host.replace(/^\[(.*)\]$/, "$1")) === 0) return undefined;
  const refusal = addressRefusal(host);
  if (!refusal) return undefined;
  if (refusal.reachesThisHost) {
    return { severity: "error", code: "loopback-url", path, message: `${hostname} ${refusal.reason}, an address of this host itself: ${REFUSED_FIX}` };
  }
  return { severity: "error", code: "blocked-address-url", path, message: `${hostname} ${refusal.reason}: ${REFUSED_FIX}` };
}

/** Why `network` blocks `host`, or undefined when it lets it through. */
function egressBlocked(network: Network | undefined, host: string): string | undefined {
  if (egressAllowed(network, host)) return undefined;
  if (network === "disabled" || (typeof network === "object" && network.allowlist === "disabled")) {
    return `network egress is disabled, so the hook cannot reach ${host}: set network.allowlist to include {"domain": ${JSON.stringify(host)}}`;
  }
  const domains = typeof network === "object" && Array.isArray(network.allowlist) ? network.allowlist.map((entry) => entry.domain) : [];
  const apex = domains.some((domain) => domainMatches(domain, `x.${host}`)) ? ` (a "*.${host}" wildcard covers subdomains only, not ${host} itself)` : "";
  return `no network.allowlist entry matches ${host} (allowlist: ${domains.length ? domains.join(", ") : "empty"}): add {"domain": ${JSON.stringify(host)}}${apex}`;
}

// ---------------------------------------------------------------------------------------------
// Raw JSON helpers
// ---------------------------------------------------------------------------------------------

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function entries(value: unknown): Array<[string, unknown]> {
  return Object.entries(asObject(value) ?? {});
}

function parseUrl(value: unknown): URL | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Stable sort of findings by the position of their path (or its nearest existing parent) in the file. */
function inDocumentOrder(findings: Finding[], root: unknown): Finding[] {
  const order = new Map<string, number>();
  const visit = (value: unknown, pointer: string) => {
    order.set(pointer, order.size);
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, `${pointer}/${i}`));
    else for (const [key, item] of entries(value)) visit(item, pointer + jsonPointer([key]));
  };
  visit(root, "");
  const position = (pointer: string): number => {
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf("/"))) {
      const found = order.get(p);
      if (found !== undefined) return found;
      if (p === "") return 0;
    }
  };
  return findings
    .map((finding, index) => ({ finding, index, at: position(finding.path) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ finding }) => finding);
}
