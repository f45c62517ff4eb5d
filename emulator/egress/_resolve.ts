/**
 * Resolving a host name to an address that is checked before it is used. The address policy (which
 * addresses are refused: everything not globally reachable) is `hooks/egress-addresses.ts`, shared
 * with the hooks linter. The proxy connects to exactly the address it checked, so a name that
 * resolves to a public address at check time and to 127.0.0.1 a moment later (DNS rebinding) gains
 * nothing.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { addressRefusal } from "../../hooks/egress-addresses";

/** A resolved address the proxy may connect to. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** Why the proxy never connects to such addresses; ends every address refusal. */
const ONLY_GLOBAL = "the proxy connects to globally reachable addresses only";

/**
 * Resolves `host` (a name or an IP literal) and checks every address it resolves to. Returns the
 * address to connect to, or the reason to refuse: a name with any refused address is refused whole.
 */
export async function resolveChecked(host: string): Promise<CheckedAddress | { refused: string }> {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const literal = isIP(bare);
  if (literal !== 0) {
    const refusal = addressRefusal(bare);
    return refusal ? { refused: `${bare} ${refusal.reason}: ${ONLY_GLOBAL}` } : { address: bare, family: literal as 4 | 6 };
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(bare, { all: true, verbatim: true });
  } catch (error) {
    return { refused: `${bare} does not resolve (${(error as NodeJS.ErrnoException).code ?? "lookup failed"})` };
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address);
    if (refusal) return { refused: `${bare} resolves to ${address}, which ${refusal.reason}: ${ONLY_GLOBAL}` };
  }
  if (addresses.length === 0) return { refused: `${bare} does not resolve` };
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}
