/**
 * Does an HTTP header carry a credential? Returns why (never the value), or undefined.
 *
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

export function credentialInHeader(name: string, value: string): string | undefined {
  const lower = name.toLowerCase();
  if (CREDENTIAL_HEADERS.has(lower)) return `${name} is a credential header`;
  const words = lower.split(/[^a-z0-9]+/).filter(Boolean);
  const joined = words.join("");
  if (words.some((word) => CREDENTIAL_WORDS.has(word)) || /apikey|accesskey|authtoken|secret|password/.test(joined)) {
    return `its name (${name}) names a credential`;
  }
  const trimmed = value.trim();
  for (const [shape, what] of VALUE_SHAPES) if (shape.test(trimmed)) return `its value looks like ${what}`;
  if (looksOpaque(trimmed)) return "its value looks like a secret (a long random-looking string)";
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
