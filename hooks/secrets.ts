/**
 * What looks like a credential, said without the value: in an HTTP header (`credentialInHeader`, the
 * hooks linter's secret-in-header) and in a text file's lines (`credentialLines`, the policy pack's
 * no-secrets-in-sources).
 *
 * A header carries a credential:
 * By name: Authorization, Proxy-Authorization, Cookie and names made of words such as api_key/apikey,
 * token, secret, password, credential, session, signature, auth (X-Api-Key, X-Auth-Token, api_key).
 * By value: an auth scheme (`Bearer …`, `Basic …`, `Token …`), a well-known key prefix (`sk-…`,
 * `ghp_…`/`github_pat_…`, `AIza…`, `xox…-`, `AKIA…`), a JWT, or a long high-entropy string.
 */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie"]);
const CREDENTIAL_WORDS = new Set([
  "apikey", "token", "secret", "password", "passwd", "pwd", "credential", "credentials",
  "session", "sessionid", "signature", "auth", "bearer", "jwt", "accesskey", "privatekey",
]);

const VALUE_SHAPES: Array<[RegExp, string]> = [
  [/^(bearer|basic|token|digest|negotiate)\s+\S/i, "an authentication scheme (Bearer/Basic/Token …)"],
  [/^sk-[A-Za-z0-9_-]{8,}/, "an API secret key (sk-…)"],
  [/^(sk|rk|pk)_(live|test)_[A-Za-z0-9]{8,}/, "an API secret key (sk_live_…)"],
  [/^(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})/, "a GitHub token (ghp_…)"],
  [/^AIza[0-9A-Za-z_-]{20,}/, "a Google API key (AIza…)"],
  [/^xox[abposr]-[A-Za-z0-9-]{8,}/, "a Slack token (xox…-)"],
  [/^(AKIA|ASIA)[0-9A-Z]{16}$/, "an AWS access key id (AKIA…)"],
  [/^eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\./, "a JSON Web Token (eyJ…)"],
];

const MIN_OPAQUE_LENGTH = 20; // characters
const MIN_ENTROPY = 3.5; // bits per character; English words and slugs stay well below

/** Why the HTTP header `name: value` carries a credential (never the value), or undefined. */
export function credentialInHeader(name: string, value: string): string | undefined {
  if (CREDENTIAL_HEADERS.has(name.toLowerCase())) return `${name} is a credential header`;
  if (namesCredential(name)) return `its name (${name}) names a credential`;
  const what = credentialShape(value.trim());
  return what === undefined ? undefined : `its value looks like ${what}`;
}

/** A line of a text that holds what looks like a credential: its number (from 1) and why, never the value. */
export interface CredentialLine {
  line: number;
  why: string;
}

/**
 * The lines of `text` with a well-known key shape anywhere in them (`ghp_…`, `AKIA…`, a JWT, …), or an
 * assignment of a long random-looking value to a key-like name (`API_KEY=…`, `"token": "…"`,
 * `Authorization: Bearer …`). A key-like name with a short or word-like value (`password = input()`)
 * is not reported: the value, not the name, is the leak.
 */
export function credentialLines(text: string): CredentialLine[] {
  const found: CredentialLine[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const why = credentialInLine(line);
    if (why !== undefined) found.push({ line: index + 1, why });
  });
  return found;
}

/** Key shapes of VALUE_SHAPES, found anywhere in a line (not after a letter, digit, `_` or `-`); the auth schemes need a key-like name before them. */
const SHAPES_IN_TEXT: Array<[RegExp, string]> = VALUE_SHAPES.slice(1).map(([shape, what]) => [
  new RegExp(`(?<![A-Za-z0-9_-])(?:${shape.source.replace(/^\^/, "").replace(/\$$/, "(?![A-Za-z0-9])")})`, shape.flags),
  what,
]);
/** `name = value`, `name: value`, `"name": "value"`, with an optional auth scheme before the value. */
const ASSIGNMENT = /([A-Za-z_][A-Za-z0-9_.-]*)["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?([^\s"'`,;]+)/gi;

function credentialInLine(line: string): string | undefined {
  for (const [shape, what] of SHAPES_IN_TEXT) if (shape.test(line)) return `looks like ${what}`;
  for (const [, name, value] of line.matchAll(ASSIGNMENT)) {
    if ((CREDENTIAL_HEADERS.has(name.toLowerCase()) || namesCredential(name)) && looksOpaque(value)) {
      return `assigns a long random-looking value to ${name}`;
    }
  }
  return undefined;
}

/** Is `name` (a header, variable or key) made of credential words: X-Api-Key, GITHUB_TOKEN, client_secret? */
function namesCredential(name: string): boolean {
  const words = name.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  return words.some((word) => CREDENTIAL_WORDS.has(word)) || /apikey|accesskey|authtoken|secret|password/.test(words.join(""));
}

/** What `value` looks like when it has a credential's shape, or undefined. */
function credentialShape(value: string): string | undefined {
  for (const [shape, what] of VALUE_SHAPES) if (shape.test(value)) return what;
  if (looksOpaque(value)) return "a secret (a long random-looking string)";
  return undefined;
}

function looksOpaque(value: string): boolean {
  if (value.length < MIN_OPAQUE_LENGTH || /\s/.test(value)) return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  return entropy(value) >= MIN_ENTROPY;
}

function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
