/**
 * Which IP addresses egress may reach: the ONE address policy, shared by the emulator's egress proxy
 * (which refuses these addresses whatever the allowlist, unless an operator route covers the host)
 * and the hooks linter (which flags HTTP hooks aimed at them before deployment).
 *
 * An address is refused when it is not globally reachable: every entry of the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (RFC 6890 and updates) whose "Globally Reachable" is False or
 * N/A, or whose allocation was terminated, plus multicast and the space the IETF keeps reserved.
 * The longest matching block decides, as the registries read: `2001::/23` is refused "unless allowed
 * by a more specific allocation", so `2001:3::/32` (AMT, globally reachable) stays open.
 *
 * Globally reachable entries this policy refuses all the same, and why:
 * - the anycast discovery addresses 192.0.0.9, 192.0.0.10, 2001:1::1, 2001:1::2, 2001:1::3 (PCP,
 *   TURN, DNS-SD SRP): the nearest instance answers, which by design is a server in the host's own
 *   network (its gateway, a border router) — local infrastructure, and no HTTP service;
 * - 2001:20::/28 (ORCHIDv2) and 2001:30::/28 (DETs): host identifiers, not locators (RFC 7343,
 *   RFC 9374): a connection to one goes wherever a host identity stack on this machine takes it.
 * Globally reachable entries left open: 64:ff9b::/96 (decided by the IPv4 address it carries, below),
 * 192.31.196.0/24, 192.175.48.0/24, 2001:4:112::/48, 2620:4f:8000::/48 (AS112 DNS sinks),
 * 192.52.193.0/24 and 2001:3::/32 (AMT relays): public services on the internet.
 * Unallocated global unicast space is not refused: IANA allocates from it over time, so a list would
 * go stale, and nothing on this host answers there.
 *
 * An IPv6 address can carry an IPv4 address that the kernel or a translator delivers to, so the
 * IPv4 address is what counts: `::ffff:a.b.c.d` (IPv4-mapped: a dual-stack socket connects to
 * a.b.c.d itself) and `64:ff9b::a.b.c.d` (NAT64: the translator connects to it, and a NAT64 gateway
 * may well reach the private network it sits in) are refused exactly when a.b.c.d is. Tunnel and
 * deprecated forms are refused whole, naming the IPv4 address when that is refused too: 6to4
 * `2002:AABB:CCDD::`, Teredo `2001:0:…` (client address XOR-obfuscated in the last 32 bits),
 * IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, and local-use NAT64 `64:ff9b:1::/48`
 * (refused whole: where the IPv4 address sits depends on the local prefix length).
 *
 * Why not node:net's BlockList for the matching: it cannot say which rule matched (errors name the
 * block), and it silently checks `::ffff:a.b.c.d` against IPv4 rules and every IPv4 address against
 * an `::ffff:0:0/96` rule (tested in test/unit/hooks/egress-addresses.test.ts). `isIP` validates
 * every address before this module reads it.
 *
 * Sources, taken 2026-11-30: IANA IPv4 Special-Purpose Address Registry and IANA IPv6
 * Special-Purpose Address Registry (both Last Updated 2025-10-09), IANA IPv4 Address Space Registry
 * (2025-10-10: 224.0.0.0/4 multicast), IANA IPv6 Address Space Registry (2025-10-23: the blocks
 * "Reserved by IETF", fec0::/10, ff00::/8).
 */
import { isIP } from "node:net";

// ---------------------------------------------------------------------------------------------
// The blocks
// ---------------------------------------------------------------------------------------------

/** One registry entry and what egress does with it. */
export interface AddressBlock {
  /** The block as the registry writes it, e.g. `100.64.0.0/10`. */
  cidr: string;
  /** The registry's name for it, in lower case, e.g. `shared address space`. */
  name: string;
  /**
   * `refused`: never connected to. `allowed`: globally reachable (listed where it sits inside a
   * refused block, or to record the decision). `as-carried-ipv4`: decided by the IPv4 address it carries.
   */
  egress: "refused" | "allowed" | "as-carried-ipv4";
  /** Where an IPv6 block keeps an IPv4 address: in its last 32 bits, in bits 16–47 (6to4), or XOR-ed in its last 32 bits (Teredo). */
  carries?: "last-32-bits" | "6to4" | "teredo";
  /** A connection to it reaches this host itself (loopback, `0.0.0.0`, `::`). */
  reachesThisHost?: true;
}

const block = (cidr: string, name: string, more: Partial<Omit<AddressBlock, "cidr" | "name">> = {}): AddressBlock => ({ cidr, name, egress: "refused", ...more });
const allowed = { egress: "allowed" } as const;
const thisHost = { reachesThisHost: true } as const;

/** Every block, as its registry lists it. */
export const ADDRESS_BLOCKS: readonly AddressBlock[] = [
  // IANA IPv4 Special-Purpose Address Registry
  block("0.0.0.0/8", '"this network"'),
  block("0.0.0.0/32", '"this host on this network"', thisHost),
  block("10.0.0.0/8", "private-use"),
  block("100.64.0.0/10", "shared address space"),
  block("127.0.0.0/8", "loopback", thisHost),
  block("169.254.0.0/16", "link local"),
  block("172.16.0.0/12", "private-use"),
  block("192.0.0.0/24", "IETF protocol assignments"),
  block("192.0.0.0/29", "IPv4 service continuity prefix"),
  block("192.0.0.8/32", "IPv4 dummy address"),
  block("192.0.0.9/32", "Port Control Protocol anycast"), // globally reachable: refused, see above
  block("192.0.0.10/32", "Traversal Using Relays around NAT anycast"), // globally reachable: refused, see above
  block("192.0.0.170/32", "NAT64/DNS64 discovery"),
  block("192.0.0.171/32", "NAT64/DNS64 discovery"),
  block("192.0.2.0/24", "documentation (TEST-NET-1)"),
  block("192.31.196.0/24", "AS112-v4", allowed),
  block("192.52.193.0/24", "AMT", allowed),
  block("192.88.99.0/24", "deprecated 6to4 relay anycast"), // terminated 2015-03
  block("192.88.99.2/32", "6a44-relay anycast address"),
  block("192.168.0.0/16", "private-use"),
  block("192.175.48.0/24", "direct delegation AS112 service", allowed),
  block("198.18.0.0/15", "benchmarking"),
  block("198.51.100.0/24", "documentation (TEST-NET-2)"),
  block("203.0.113.0/24", "documentation (TEST-NET-3)"),
  block("240.0.0.0/4", "reserved"),
  block("255.255.255.255/32", "limited broadcast"),
  // IANA IPv4 Address Space Registry
  block("224.0.0.0/4", "multicast"),

  // IANA IPv6 Special-Purpose Address Registry
  block("::1/128", "loopback address", thisHost),
  block("::/128", "unspecified address", thisHost),
  block("::ffff:0:0/96", "IPv4-mapped address", { egress: "as-carried-ipv4", carries: "last-32-bits" }),
  block("64:ff9b::/96", "IPv4-IPv6 translation", { egress: "as-carried-ipv4", carries: "last-32-bits" }),
  block("64:ff9b:1::/48", "local-use IPv4-IPv6 translation"),
  block("100::/64", "discard-only address block"),
  block("100:0:0:1::/64", "dummy IPv6 prefix"),
  block("2001::/23", "IETF protocol assignments"),
  block("2001::/32", "Teredo", { carries: "teredo" }),
  block("2001:1::1/128", "Port Control Protocol anycast"), // globally reachable: refused, see above
  block("2001:1::2/128", "Traversal Using Relays around NAT anycast"), // globally reachable: refused, see above
  block("2001:1::3/128", "DNS-SD Service Registration Protocol anycast"), // globally reachable: refused, see above
  block("2001:2::/48", "benchmarking"),
  block("2001:3::/32", "AMT", allowed),
  block("2001:4:112::/48", "AS112-v6", allowed),
  block("2001:10::/28", "deprecated ORCHID"), // terminated 2014-03
  block("2001:20::/28", "ORCHIDv2"), // globally reachable: refused, see above
  block("2001:30::/28", "Drone Remote ID Protocol Entity Tags"), // globally reachable: refused, see above
  block("2001:db8::/32", "documentation"),
  block("2002::/16", "6to4", { carries: "6to4" }),
  block("2620:4f:8000::/48", "direct delegation AS112 service", allowed),
  block("3fff::/20", "documentation"),
  block("5f00::/16", "segment routing (SRv6) SIDs"),
  block("fc00::/7", "unique-local"),
  block("fe80::/10", "link-local unicast"),
  // Deprecated IPv4 embeddings inside ::/8 (RFC 4291 section 2.5.5.1, RFC 2765 section 2.1)
  block("::/96", "IPv4-compatible address, deprecated", { carries: "last-32-bits" }),
  block("::ffff:0:0:0/96", "IPv4-translated address", { carries: "last-32-bits" }),
  // IANA IPv6 Address Space Registry: everything outside 2000::/3 but the blocks above
  ...["::/8", "100::/8", "200::/7", "400::/6", "800::/5", "1000::/4", "4000::/3", "6000::/3", "8000::/3", "a000::/3", "c000::/3", "e000::/4", "f000::/5", "f800::/6", "fe00::/9"].map(
    (cidr) => block(cidr, "reserved by IETF"),
  ),
  block("fec0::/10", "site-local, deprecated"),
  block("ff00::/8", "multicast"),
];

// ---------------------------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------------------------

/** Why an address is refused. */
export interface AddressRefusal {
  /**
   * The block that decides, with its name, e.g. `100.64.0.0/10 (shared address space)`; for an IPv6
   * address refused for the IPv4 address it carries, that IPv4 address's block.
   */
  range: string;
  /**
   * The IPv4 address an IPv6 address carries and how, when that IPv4 address is what is refused,
   * e.g. `{address: "127.0.0.1", by: "64:ff9b::/96 (IPv4-IPv6 translation)"}` for `64:ff9b::7f00:1`.
   */
  carried?: { address: string; by: string };
  /** A connection to it reaches this host itself: 127.0.0.0/8, ::1, 0.0.0.0, ::, in any spelling. */
  reachesThisHost: boolean;
  /**
   * What to say after the address in an error: `is in 100.64.0.0/10 (shared address space)`, or
   * for `64:ff9b::a00:1`, `carries 10.0.0.1 by 64:ff9b::/96 (IPv4-IPv6 translation), in 10.0.0.0/8 (private-use)`.
   */
  reason: string;
}

/**
 * Why the proxy refuses `address` (an IP literal; `[v6]` brackets and a `%zone` are allowed), or
 * undefined when egress may reach it. Anything that is not an IP address is refused: the proxy
 * never guesses.
 */
export function addressRefusal(address: string): AddressRefusal | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return { range: "not an IP address", reachesThisHost: false, reason: "is not an IP address" };
  const value = family === 4 ? ipv4Value(bare) : ipv6Value(bare.replace(/%.*$/, ""));
  return refusalOf(family === 4 ? "ipv4" : "ipv6", value);
}

/** Is `address` one the egress proxy refuses? (Anything that is not an IP address is.) */
export function isBlockedAddress(address: string): boolean {
  return addressRefusal(address) !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

type Family = "ipv4" | "ipv6";

interface CompiledBlock extends AddressBlock {
  family: Family;
  network: bigint;
  prefixLength: number;
}

const WIDTH: Record<Family, bigint> = { ipv4: 32n, ipv6: 128n };

/** Longest prefix first, so the first match is the one the registries' precedence picks. */
const COMPILED: readonly CompiledBlock[] = ADDRESS_BLOCKS.map(compile).sort((a, b) => b.prefixLength - a.prefixLength);

function compile(entry: AddressBlock): CompiledBlock {
  const [base, length] = entry.cidr.split("/");
  const family = isIP(base);
  const prefixLength = Number(length);
  if (family === 0 || !Number.isInteger(prefixLength) || prefixLength < 0 || prefixLength > (family === 4 ? 32 : 128)) {
    throw new Error(`address block ${entry.cidr}: not a CIDR block`);
  }
  const f: Family = family === 4 ? "ipv4" : "ipv6";
  const network = family === 4 ? ipv4Value(base) : ipv6Value(base);
  if (network & ~prefixMask(f, prefixLength)) throw new Error(`address block ${entry.cidr}: host bits are set`);
  return { ...entry, family: f, network, prefixLength };
}

function refusalOf(family: Family, value: bigint): AddressRefusal | undefined {
  const entry = COMPILED.find((b) => b.family === family && (value & prefixMask(family, b.prefixLength)) === b.network);
  if (!entry || entry.egress === "allowed") return undefined;
  const range = `${entry.cidr} (${entry.name})`;
  const own: AddressRefusal = { range, reachesThisHost: entry.reachesThisHost ?? false, reason: `is in ${range}` };
  if (!entry.carries) return own;
  const carried = carriedIpv4(value, entry.carries);
  const inner = refusalOf("ipv4", carried);
  if (!inner) return entry.egress === "as-carried-ipv4" ? undefined : own;
  const by = { address: ipv4Text(carried), by: range };
  return { ...inner, carried: by, reason: `carries ${by.address} by ${by.by}, in ${inner.range}` };
}

function prefixMask(family: Family, prefixLength: number): bigint {
  const width = WIDTH[family];
  return ((1n << width) - 1n) ^ ((1n << (width - BigInt(prefixLength))) - 1n);
}

function carriedIpv4(value: bigint, where: NonNullable<AddressBlock["carries"]>): bigint {
  const low32 = 0xffffffffn;
  if (where === "6to4") return (value >> 80n) & low32; // 2002:AABB:CCDD::/48
  if (where === "teredo") return ~value & low32; // the client's public address, every bit inverted
  return value & low32;
}

// ---------------------------------------------------------------------------------------------
// Parsing (only of text `isIP` accepted)
// ---------------------------------------------------------------------------------------------

function ipv4Value(address: string): bigint {
  return address.split(".").reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

function ipv4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

/** The 128-bit value of an IPv6 address: `::` expanded, a trailing dotted quad read as the last 32 bits. */
function ipv6Value(address: string): bigint {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  const text = dotted ? `${address.slice(0, dotted.index)}${hexWords(ipv4Value(dotted[1]))}` : address;
  const [head, tail] = text.split("::");
  const words = (part: string | undefined) => (part ? part.split(":") : []);
  const gap = tail === undefined ? 0 : 8 - words(head).length - words(tail).length;
  return [...words(head), ...Array<string>(gap).fill("0"), ...words(tail)].reduce((value, word) => (value << 16n) | BigInt(parseInt(word, 16)), 0n);
}

function hexWords(ipv4: bigint): string {
  return `${(ipv4 >> 16n).toString(16)}:${(ipv4 & 0xffffn).toString(16)}`;
}
