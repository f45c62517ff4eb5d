/**
 * Addresses the egress proxy never connects to on the sandbox's behalf (loopback, link-local,
 * private ranges, the unspecified address), and resolving a host name to an address that is checked
 * before it is used: the proxy connects to exactly the address it checked, so a name that resolves
 * to a public address at check time and to 127.0.0.1 a moment later (DNS rebinding) gains nothing.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

const BLOCKED = new BlockList();
BLOCKED.addSubnet("0.0.0.0", 8, "ipv4"); // "this network", including 0.0.0.0
BLOCKED.addSubnet("10.0.0.0", 8, "ipv4");
BLOCKED.addSubnet("127.0.0.0", 8, "ipv4");
BLOCKED.addSubnet("169.254.0.0", 16, "ipv4"); // link-local, cloud metadata endpoints
BLOCKED.addSubnet("172.16.0.0", 12, "ipv4");
BLOCKED.addSubnet("192.168.0.0", 16, "ipv4");
BLOCKED.addAddress("::", "ipv6");
BLOCKED.addAddress("::1", "ipv6");
BLOCKED.addSubnet("fc00::", 7, "ipv6"); // unique local
BLOCKED.addSubnet("fe80::", 10, "ipv6"); // link-local

/** A resolved address the proxy may connect to. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** Is `address` (an IP literal) one the proxy refuses: loopback, link-local, private, unspecified? */
export function isBlockedAddress(address: string): boolean {
  const bare = unbracket(address);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare); // IPv4-mapped IPv6
  if (mapped) return BLOCKED.check(mapped[1], "ipv4");
  const family = isIP(bare);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  return BLOCKED.check(bare, family === 4 ? "ipv4" : "ipv6");
}

/**
 * Resolves `host` (a name or an IP literal) and checks every address it resolves to. Returns the
 * address to connect to, or the reason to refuse: a name with any blocked address is refused whole.
 */
export async function resolveChecked(host: string): Promise<CheckedAddress | { refused: string }> {
  const bare = unbracket(host);
  const literal = isIP(bare);
  if (literal !== 0) {
    return isBlockedAddress(bare)
      ? { refused: `${bare} is a loopback, link-local or private address` }
      : { address: bare, family: literal as 4 | 6 };
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(bare, { all: true, verbatim: true });
  } catch (error) {
    return { refused: `${bare} does not resolve (${(error as NodeJS.ErrnoException).code ?? "lookup failed"})` };
  }
  const blocked = addresses.find((a) => isBlockedAddress(a.address));
  if (blocked) return { refused: `${bare} resolves to ${blocked.address}, a loopback, link-local or private address` };
  if (addresses.length === 0) return { refused: `${bare} does not resolve` };
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
