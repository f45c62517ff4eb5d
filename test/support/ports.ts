/**
 * A port for a server that another process starts (docker's port proxy, fake-gcs-server), or one that
 * refuses connections. It is taken below the kernel's ephemeral range: a port the kernel handed out
 * (`listen(0)`) and this process freed is the kind every other process's next outgoing connection or
 * `listen(0)` may take before that server binds it, which once failed a suite run with docker's
 * "bind: address already in use". Below the range only an explicit bind takes a port.
 */
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

const LOWEST = 10_000;

/** A port nothing listens on at 127.0.0.1 now, below the ephemeral range, e.g. 23817. */
export async function freePort(): Promise<number> {
  const below = ephemeralRangeStart();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = randomInt(LOWEST, below);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port on 127.0.0.1 between ${LOWEST} and ${below} in 50 tries`);
}

function ephemeralRangeStart(): number {
  try {
    const start = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return start > LOWEST + 1_000 ? start : 32_768;
  } catch {
    return 32_768; // Linux's default (/proc is Linux's)
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
