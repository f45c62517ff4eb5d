import { BlockList } from "node:net";
import { ADDRESS_BLOCKS, addressRefusal, isBlockedAddress } from "../../../hooks/egress-addresses";

/** [an address inside, the range a refusal names] for every refused block of the registries. */
const REFUSED: Array<[string, string]> = [
  // IPv4 Special-Purpose Address Registry
  ["0.1.2.3", '0.0.0.0/8 ("this network")'],
  ["0.0.0.0", '0.0.0.0/32 ("this host on this network")'],
  ["10.0.0.5", "10.0.0.0/8 (private-use)"],
  ["10.255.255.255", "10.0.0.0/8 (private-use)"],
  ["100.64.0.0", "100.64.0.0/10 (shared address space)"],
  ["100.100.100.200", "100.64.0.0/10 (shared address space)"],
  ["100.127.255.255", "100.64.0.0/10 (shared address space)"],
  ["127.0.0.1", "127.0.0.0/8 (loopback)"],
  ["127.9.9.9", "127.0.0.0/8 (loopback)"],
  ["169.254.169.254", "169.254.0.0/16 (link local)"],
  ["172.16.0.1", "172.16.0.0/12 (private-use)"],
  ["172.31.255.255", "172.16.0.0/12 (private-use)"],
  ["192.0.0.100", "192.0.0.0/24 (IETF protocol assignments)"],
  ["192.0.0.1", "192.0.0.0/29 (IPv4 service continuity prefix)"],
  ["192.0.0.8", "192.0.0.8/32 (IPv4 dummy address)"],
  ["192.0.0.9", "192.0.0.9/32 (Port Control Protocol anycast)"],
  ["192.0.0.10", "192.0.0.10/32 (Traversal Using Relays around NAT anycast)"],
  ["192.0.0.170", "192.0.0.170/32 (NAT64/DNS64 discovery)"],
  ["192.0.0.171", "192.0.0.171/32 (NAT64/DNS64 discovery)"],
  ["192.0.2.1", "192.0.2.0/24 (documentation (TEST-NET-1))"],
  ["192.88.99.1", "192.88.99.0/24 (deprecated 6to4 relay anycast)"],
  ["192.88.99.2", "192.88.99.2/32 (6a44-relay anycast address)"],
  ["192.168.1.1", "192.168.0.0/16 (private-use)"],
  ["198.18.0.1", "198.18.0.0/15 (benchmarking)"],
  ["198.19.255.255", "198.18.0.0/15 (benchmarking)"],
  ["198.51.100.7", "198.51.100.0/24 (documentation (TEST-NET-2))"],
  ["203.0.113.7", "203.0.113.0/24 (documentation (TEST-NET-3))"],
  ["240.0.0.1", "240.0.0.0/4 (reserved)"],
  ["255.255.255.254", "240.0.0.0/4 (reserved)"],
  ["255.255.255.255", "255.255.255.255/32 (limited broadcast)"],
  // IPv4 Address Space Registry
  ["224.0.0.1", "224.0.0.0/4 (multicast)"],
  ["239.255.255.250", "224.0.0.0/4 (multicast)"],
  // IPv6 Special-Purpose Address Registry
  ["::1", "::1/128 (loopback address)"],
  ["::", "::/128 (unspecified address)"],
  ["64:ff9b:1::1", "64:ff9b:1::/48 (local-use IPv4-IPv6 translation)"],
  ["64:ff9b:1::808:808", "64:ff9b:1::/48 (local-use IPv4-IPv6 translation)"],
  ["100::1", "100::/64 (discard-only address block)"],
  ["100:0:0:1::1", "100:0:0:1::/64 (dummy IPv6 prefix)"],
  ["2001:5::1", "2001::/23 (IETF protocol assignments)"],
  ["2001:1ff:ffff::1", "2001::/23 (IETF protocol assignments)"],
  ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "2001::/32 (Teredo)"], // client 8.8.8.8
  ["2001:1::1", "2001:1::1/128 (Port Control Protocol anycast)"],
  ["2001:1::2", "2001:1::2/128 (Traversal Using Relays around NAT anycast)"],
  ["2001:1::3", "2001:1::3/128 (DNS-SD Service Registration Protocol anycast)"],
  ["2001:2::1", "2001:2::/48 (benchmarking)"],
  ["2001:10::1", "2001:10::/28 (deprecated ORCHID)"],
  ["2001:20::1", "2001:20::/28 (ORCHIDv2)"],
  ["2001:30::1", "2001:30::/28 (Drone Remote ID Protocol Entity Tags)"],
  ["2001:db8::1", "2001:db8::/32 (documentation)"],
  ["2002:808:808::1", "2002::/16 (6to4)"], // 6to4 of 8.8.8.8: the tunnel prefix is refused whole
  ["3fff::1", "3fff::/20 (documentation)"],
  ["3fff:fff:ffff::1", "3fff::/20 (documentation)"],
  ["5f00::1", "5f00::/16 (segment routing (SRv6) SIDs)"],
  ["fc00::1", "fc00::/7 (unique-local)"],
  ["fd12:3456::1", "fc00::/7 (unique-local)"],
  ["fe80::1", "fe80::/10 (link-local unicast)"],
  ["fe80::1%eth0", "fe80::/10 (link-local unicast)"],
  ["febf:ffff::1", "fe80::/10 (link-local unicast)"],
  // IPv6 Address Space Registry
  ["fec0::1", "fec0::/10 (site-local, deprecated)"],
  ["ff02::1", "ff00::/8 (multicast)"],
  ["ff05::1:3", "ff00::/8 (multicast)"],
  ["1::1", "::/8 (reserved by IETF)"],
  ["1ff::1", "100::/8 (reserved by IETF)"],
  ["200::1", "200::/7 (reserved by IETF)"],
  ["400::1", "400::/6 (reserved by IETF)"],
  ["800::1", "800::/5 (reserved by IETF)"],
  ["1fff::1", "1000::/4 (reserved by IETF)"],
  ["4000::1", "4000::/3 (reserved by IETF)"],
  ["6000::1", "6000::/3 (reserved by IETF)"],
  ["8000::1", "8000::/3 (reserved by IETF)"],
  ["a000::1", "a000::/3 (reserved by IETF)"],
  ["c000::1", "c000::/3 (reserved by IETF)"],
  ["e000::1", "e000::/4 (reserved by IETF)"],
  ["f000::1", "f000::/5 (reserved by IETF)"],
  ["f800::1", "f800::/6 (reserved by IETF)"],
  ["fe00::1", "fe00::/9 (reserved by IETF)"],
  // Deprecated IPv4 embeddings, refused whole even around a public IPv4 address
  ["::8.8.8.8", "::/96 (IPv4-compatible address, deprecated)"],
  ["::ffff:0:8.8.8.8", "::ffff:0:0:0/96 (IPv4-translated address)"],
];

/** Just outside a refused block, or a globally reachable entry left open. */
const ALLOWED = [
  "1.0.0.0", // above 0.0.0.0/8
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255", // below 100.64.0.0/10
  "100.128.0.0", // above it
  "126.255.255.255",
  "128.0.0.0",
  "169.253.255.255",
  "169.255.0.0",
  "172.15.255.255",
  "172.32.0.1",
  "191.255.255.255",
  "192.0.1.0", // above 192.0.0.0/24
  "192.0.3.0",
  "192.88.98.255",
  "192.88.100.0",
  "192.167.255.255",
  "192.169.0.0",
  "198.17.255.255",
  "198.20.0.0", // above 198.18.0.0/15
  "198.51.99.255",
  "198.51.101.0",
  "203.0.112.255",
  "203.0.114.0",
  "223.255.255.255", // below multicast
  "8.8.8.8",
  "1.1.1.1",
  "192.31.196.1", // AS112-v4
  "192.52.193.1", // AMT
  "192.175.48.1", // direct delegation AS112
  "2000::1", // the first of 2000::/3
  "2001:200::1", // above 2001::/23
  "2001:3::1", // AMT
  "2001:4:112::1", // AS112-v6
  "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
  "2001:db9::1",
  "2003::1", // above 2002::/16
  "2620:4f:8000::1", // direct delegation AS112
  "3fff:1000::1", // above 3fff::/20
  "3ffe::1",
  "2606:4700::1111",
  "2a00:1450:4001:80b::200e",
  "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", // the last of 2000::/3
];

describe("every registry block", () => {
  test.each(REFUSED)("%s is refused: %s", (address, range) => {
    expect(addressRefusal(address)).toMatchObject({ range, reason: `is in ${range}` });
    expect(isBlockedAddress(address)).toBe(true);
  });

  test.each(ALLOWED)("%s is allowed", (address) => {
    expect(addressRefusal(address)).toBeUndefined();
  });

  test("the table above exercises every refused block", () => {
    const exercised = new Set(REFUSED.map(([, range]) => range.slice(0, range.indexOf(" "))));
    expect(ADDRESS_BLOCKS.filter((b) => b.egress === "refused" && !exercised.has(b.cidr)).map((b) => b.cidr)).toEqual([]);
  });

  test("outside 2000::/3, all of IPv6 is refused but for the IPv4 carriers' public addresses", () => {
    const open: string[] = [];
    for (let high = 0; high <= 0xffff; high += 0x80) {
      const address = `${high.toString(16)}::1:2:3:4`;
      if ((high & 0xe000) !== 0x2000 && !isBlockedAddress(address)) open.push(address);
    }
    expect(open).toEqual([]);
  });

  test("anything that is not an IP address is refused", () => {
    for (const notAnAddress of ["", "not-an-ip", "localhost", "1.2.3", "01.2.3.4", "::ffff:1.2.3", "[::1", "256.0.0.1"]) {
      expect(addressRefusal(notAnAddress)).toEqual({ range: "not an IP address", reachesThisHost: false, reason: "is not an IP address" });
    }
  });
});

describe("IPv4 carried in IPv6", () => {
  const loopback = "127.0.0.0/8 (loopback)";
  test.each<[string, string]>([
    ["::ffff:127.0.0.1", "::ffff:0:0/96 (IPv4-mapped address)"],
    ["::FFFF:127.0.0.1", "::ffff:0:0/96 (IPv4-mapped address)"],
    ["::ffff:7f00:1", "::ffff:0:0/96 (IPv4-mapped address)"],
    ["0:0:0:0:0:ffff:7f00:0001", "::ffff:0:0/96 (IPv4-mapped address)"],
    ["[::ffff:7f00:1]", "::ffff:0:0/96 (IPv4-mapped address)"],
    ["::127.0.0.1", "::/96 (IPv4-compatible address, deprecated)"],
    ["::7f00:1", "::/96 (IPv4-compatible address, deprecated)"],
    ["::ffff:0:127.0.0.1", "::ffff:0:0:0/96 (IPv4-translated address)"],
    ["::ffff:0:7f00:1", "::ffff:0:0:0/96 (IPv4-translated address)"],
    ["64:ff9b::127.0.0.1", "64:ff9b::/96 (IPv4-IPv6 translation)"],
    ["64:ff9b::7f00:1", "64:ff9b::/96 (IPv4-IPv6 translation)"],
    ["2002:7f00:1::", "2002::/16 (6to4)"],
    ["2002:7f00:0001::", "2002::/16 (6to4)"],
    ["2002:7f00:1:42::1", "2002::/16 (6to4)"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "2001::/32 (Teredo)"], // client 127.0.0.1, every bit inverted
  ])("%s carries 127.0.0.1 by %s", (address, by) => {
    expect(addressRefusal(address)).toEqual({
      range: loopback,
      carried: { address: "127.0.0.1", by },
      reachesThisHost: true,
      reason: `carries 127.0.0.1 by ${by}, in ${loopback}`,
    });
  });

  test.each<[string, string, string]>([
    ["::ffff:10.0.0.5", "10.0.0.5", "10.0.0.0/8 (private-use)"],
    ["64:ff9b::a00:1", "10.0.0.1", "10.0.0.0/8 (private-use)"],
    ["64:ff9b::100.100.100.200", "100.100.100.200", "100.64.0.0/10 (shared address space)"],
    ["64:ff9b::a9fe:a9fe", "169.254.169.254", "169.254.0.0/16 (link local)"],
    ["::ffff:0.0.0.0", "0.0.0.0", '0.0.0.0/32 ("this host on this network")'],
    ["2002:c0a8:101::", "192.168.1.1", "192.168.0.0/16 (private-use)"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45", "192.0.2.0/24 (documentation (TEST-NET-1))"], // RFC 4380's example client
  ])("%s carries %s, in %s", (address, ipv4, range) => {
    expect(addressRefusal(address)).toMatchObject({ range, carried: { address: ipv4 } });
  });

  test("the mapped and NAT64 forms of a public IPv4 address are as open as the address itself", () => {
    for (const address of ["::ffff:8.8.8.8", "::ffff:808:808", "64:ff9b::8.8.8.8", "64:ff9b::808:808", "64:ff9b::c01f:c401"]) {
      expect(addressRefusal(address)).toBeUndefined();
    }
  });

  test("loopback, 0.0.0.0 and :: reach this host in every spelling; private ranges do not", () => {
    const thisHost = ["127.0.0.1", "0.0.0.0", "::1", "::", "::ffff:7f00:1", "64:ff9b::7f00:1", "::ffff:0.0.0.0"];
    expect(thisHost.filter((a) => addressRefusal(a)?.reachesThisHost !== true)).toEqual([]);
    expect(["10.0.0.5", "64:ff9b::a00:1", "fe80::1", "0.1.2.3"].map((a) => addressRefusal(a)?.reachesThisHost)).toEqual([false, false, false, false]);
  });
});

describe("node:net's BlockList, and why the policy does not match with it", () => {
  test("IPv4 rules match IPv4-mapped IPv6, and an ::ffff:0:0/96 rule matches every IPv4 address", () => {
    const ipv4Rule = new BlockList();
    ipv4Rule.addSubnet("127.0.0.0", 8, "ipv4");
    expect([ipv4Rule.check("::ffff:127.0.0.1", "ipv6"), ipv4Rule.check("::ffff:7f00:1", "ipv6")]).toEqual([true, true]);
    // ...but not the other spellings the kernel or a translator may route to 127.0.0.1
    expect(["::127.0.0.1", "::ffff:0:127.0.0.1", "64:ff9b::127.0.0.1", "2002:7f00:1::"].map((a) => ipv4Rule.check(a, "ipv6"))).toEqual([false, false, false, false]);
    const mappedRule = new BlockList();
    mappedRule.addSubnet("::ffff:0:0", 96, "ipv6");
    expect(mappedRule.check("8.8.8.8", "ipv4")).toBe(true);
  });
});
