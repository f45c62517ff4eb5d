/** Where an emulator makes its per-call cgroups, as the tests look for them. */
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * The directories beside which process `pid` makes its per-call cgroups (`genv-sbx-…`): its own cgroup
 * in each hierarchy it may use (v1 pids and memory, v2), read from /proc/<pid>/cgroup while it runs.
 */
export function cgroupBasesOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cgroup`, "utf8")
    .trim()
    .split("\n")
    .flatMap((line) => {
      const [, controllers, rel] = line.split(":");
      if (controllers === "") return ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"].map((root) => path.join(root, rel)).filter((dir) => /\b(pids|memory)\b/.test(readIfThere(path.join(dir, "cgroup.controllers"))));
      return (["pids", "memory"] as const).filter((controller) => controllers.split(",").includes(controller)).map((controller) => path.join("/sys/fs/cgroup", controller, rel));
    })
    .filter((dir) => existsSync(path.join(dir, "cgroup.procs")));
}

function readIfThere(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

/** When process `pid` started: /proc/<pid>/stat field 22, clock ticks since boot. */
export function startTimeOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}
