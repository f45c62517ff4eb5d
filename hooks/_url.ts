/**
 * Hosts the egress proxy refuses whatever the allowlist says: loopback and the unspecified address.
 * Takes a WHATWG `URL.hostname`, which has already canonicalised IPv4 spellings (`0x7f.1`,
 * `2130706433` → `127.0.0.1`) and IPv6 (`[0:0:0:0:0:0:0:1]` → `[::1]`).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true; // 127.0.0.0/8
  if (host === "0.0.0.0" || host === "[::]" || host === "[::1]") return true;
  return /^\[::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|0:0)\]$/.test(host); // IPv4-mapped 127.0.0.0/8 and 0.0.0.0
}
