/**
 * genv-sandbox-enter (`enter.c`): the privileged steps of a call as root — mount namespace, cgroups,
 * rlimits, the overlay of the host view, the switch to the sandbox's user — in one process. The shell
 * way (`unshare`, `sh`, `mount`, `setpriv`: four programs started per call) costs about 3 ms of a call
 * that takes about 11.
 *
 * It is compiled on the first call with the system's C compiler, from the source that ships with the
 * package, into the root-owned mount base (`_host-view.ts`) under a name that is the source's hash; later
 * calls and later emulators find it there. Where there is no compiler or the build fails, calls take the
 * shell way, which does the same steps. `GENV_SANDBOX_ENTER=shell` chooses the shell way.
 *
 * Linked statically where the C library's archive is there (Debian's libc6-dev has it): the dynamic
 * loader's work at each start, ≈ 0.2 ms of CPU per call, is then done once at the build.
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, lstatSync, promises as fs } from "node:fs";
import path from "node:path";
import { singleExecutableAsset } from "../../provider/contracts/package-identity";

const COMPILER = "/usr/bin/cc";
// Beside this module: the source tree's file under ts-node and jest, `npm run build`'s copy in dist/;
// in the plugin's single executable, the asset scripts/pack-plugin injects under this name.
const SOURCE = path.join(__dirname, "enter.c");
const SOURCE_ASSET = "enter.c";

let built: Promise<string | undefined> | undefined;

/**
 * The helper's path in `directory` (built there if need be), or undefined for the shell way. A process
 * has one such directory, the mount base, so the first answer stands.
 */
export function sandboxEnterHelper(directory: string): Promise<string | undefined> {
  if (process.env.GENV_SANDBOX_ENTER === "shell") return Promise.resolve(undefined);
  return (built ??= build(directory));
}

async function build(directory: string): Promise<string | undefined> {
  if (!existsSync(COMPILER)) return undefined;
  const asset = singleExecutableAsset(SOURCE_ASSET);
  const source = asset !== undefined ? Buffer.from(asset) : await fs.readFile(SOURCE).catch(() => undefined);
  if (!source) return undefined;
  const helper = path.join(directory, `genv-sandbox-enter-${createHash("sha256").update(source).digest("hex").slice(0, 16)}`);
  if (isRootsExecutable(helper)) return helper;
  const temporary = `${helper}.${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await compile(source, temporary, ["-static"]).catch(() => compile(source, temporary, []));
    await fs.chmod(temporary, 0o755);
    await fs.rename(temporary, helper); // atomic: an emulator building the same one at once loses nothing
    return isRootsExecutable(helper) ? helper : undefined;
  } catch {
    await fs.rm(temporary, { force: true });
    return undefined;
  }
}

/** The very bytes that were hashed go to the compiler, on its stdin. */
function compile(source: Buffer, output: string, flags: string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const compiler = execFile(COMPILER, ["-x", "c", "-O2", ...flags, "-o", output, "-"], { timeout: 60_000 }, (error) => (error ? reject(error) : resolve()));
    compiler.stdin?.end(source);
  });
}

/** A regular file that only root can change: nothing else may stand where root will run it. */
function isRootsExecutable(file: string): boolean {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  return stat !== undefined && stat.isFile() && stat.uid === 0 && (stat.mode & 0o022) === 0 && (stat.mode & 0o100) !== 0;
}
