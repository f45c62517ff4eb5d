/** What the host sees of a sandbox's processes: found by a marker in their command line. */
import { readdirSync, readFileSync } from "node:fs";

/** Resident bytes of each host process whose command line contains `marker`. */
export function residentBytesOfEach(marker: string): number[] {
  const sizes: number[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) continue;
      sizes.push(Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024);
    } catch {
      // gone meanwhile
    }
  }
  return sizes;
}
