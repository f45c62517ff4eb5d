/**
 * Trees that tests write by hand, handed to the sandbox's host user the way the emulator hands its
 * own (as root the sandbox runs as a uid that owns nothing else: emulator/sandbox/_identity.ts).
 */
import { execFileSync } from "node:child_process";
import { sandboxOwner } from "../../emulator/sandbox";

export function giveToSandboxSync(root: string): void {
  const owner = sandboxOwner();
  if (owner) execFileSync("chown", ["-R", "--no-dereference", `${owner.uid}:${owner.gid}`, root]);
}
