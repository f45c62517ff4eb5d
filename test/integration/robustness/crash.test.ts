/**
 * Crashes: `genv serve` (the built CLI, its own process) killed with SIGKILL at the moments that
 * matter, then started again on the same data directory. Every environment is whole, its counts
 * equal its tree, and nothing a crash left stays behind, in the data directory or outside it (the
 * per-call cgroups included).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tar from "tar";
import { memoryCgroupAvailable, pidsCgroupAvailable } from "../../../emulator/sandbox";
import { describeNeeding } from "../../support/prerequisites";
import { cgroupBasesOf } from "../../support/cgroups";

const REPO = path.resolve(__dirname, "../../..");
const GENV = path.join(REPO, "dist/cli/main.js");
const KEY = "crash-key";

interface Serving {
  url: string;
  child: ChildProcess;
}

function serve(dataDir: string): Promise<Serving> {
  if (!existsSync(GENV)) throw new Error(`${GENV} is missing: run npm run build (npm test does) first`);
  const child = spawn(process.execPath, [GENV, "serve", "--port", "0", "--data-dir", dataDir, "--api-key", KEY], { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr!.on("data", (chunk) => (err += chunk));
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const url = /^(http:\/\/\S+)$/m.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.once("exit", (code) => reject(new Error(`genv serve exited (${code}) before it was ready: ${err}`)));
  });
}

function kill(serving: Serving): Promise<void> {
  return new Promise((resolve) => {
    serving.child.once("exit", () => resolve());
    serving.child.kill("SIGKILL");
  });
}

async function api(serving: Serving, route: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${serving.url}${route}`, { ...init, headers: { "x-goog-api-key": KEY, "content-type": "application/json", ...init.headers } });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${route}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Regular files and bytes of a tree on disk, as `file_count` and `size_bytes` count them. */
function countOnDisk(root: string): { fileCount: number; sizeBytes: number } {
  let fileCount = 0;
  let sizeBytes = 0;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    fileCount += 1;
    sizeBytes += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return { fileCount, sizeBytes };
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return check();
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

test("killed while a tool call writes: after the restart the counts equal the tree, and nothing is left behind", async () => {
  const dataDir = tempDir("genv-crash-tool-");
  const first = await serve(dataDir);
  const firstPid = first.child.pid!;
  try {
    const env = await api(first, "/v1beta/environments", {
      method: "POST",
      body: JSON.stringify({ sources: [{ type: "inline", target: "workspace/a.txt", content: "a" }], network: { allowlist: [{ domain: "example.com" }] } }),
    });
    const tree = path.join(dataDir, "trees", env.id);
    const code = "for i in range(3):\n    open(f'/workspace/new-{i}.txt', 'w').write('x' * 1000)\nopen('/workspace/written', 'w').close()\nimport time\ntime.sleep(60)";
    void fetch(`${first.url}/v1beta/environments/${env.id}:executeTool`, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
      body: JSON.stringify({ tool_call: { name: "code_execution", args: { code, language: "python" } } }),
    }).catch(() => undefined);
    expect(await waitFor(() => existsSync(path.join(tree, "workspace/written")), 20_000)).toBe(true);
    await kill(first);
    const second = await serve(dataDir);
    try {
      const after = await api(second, `/v1beta/environments/${env.id}`);
      const onDisk = countOnDisk(tree);
      expect(onDisk.fileCount).toBe(5); // a.txt, 3 new files, the marker
      expect({ file_count: after.file_count, size_bytes: after.size_bytes }).toEqual({ file_count: String(onDisk.fileCount), size_bytes: String(onDisk.sizeBytes) });
      // Leftovers: the build and trash area, the per-call overlay directories, the dead emulator's sockets.
      expect(readdirSync(path.join(dataDir, "tmp")).filter((name) => name !== "uploads")).toEqual([]);
      expect(readdirSync(path.join(dataDir, "trees"))).toEqual([env.id]);
      const socketDirs = ["/run/genv-sandbox/sockets", os.tmpdir()].flatMap((dir) => (existsSync(dir) ? readdirSync(dir) : []));
      expect(socketDirs.filter((name) => name.startsWith(`e${firstPid}-`) || name.startsWith(`genv-egress-${firstPid}-`))).toEqual([]);
    } finally {
      await kill(second);
    }
  } finally {
    if (first.child.exitCode === null && first.child.signalCode === null) await kill(first);
  }
}, 90_000);

test("killed mid-extract: after the restart the archive is there whole, and the counts equal the tree", async () => {
  const FILES = 4000;
  const source = tempDir("genv-crash-archive-");
  mkdirSync(path.join(source, "pkg"));
  for (let i = 0; i < FILES; i++) writeFileSync(path.join(source, "pkg", `f${String(i).padStart(5, "0")}.txt`), `file ${i}\n`);
  const archive = path.join(tempDir("genv-crash-tar-"), "pkg.tar");
  await tar.c({ file: archive, cwd: source }, ["pkg"]);
  const bytes = new Uint8Array(require("node:fs").readFileSync(archive));

  // The kill must land between the first file and the last: retried when it lands outside.
  for (let attempt = 1; attempt <= 5; attempt++) {
    const dataDir = tempDir("genv-crash-extract-");
    const first = await serve(dataDir);
    try {
      const env = await api(first, "/v1beta/environments", { method: "POST", body: JSON.stringify({ sources: [{ type: "inline", target: "keep.txt", content: "kept" }] }) });
      const target = path.join(dataDir, "trees", env.id, "up/pkg");
      const start = await fetch(`${first.url}/upload/v1beta/environments/${env.id}/files/up?extract=true`, {
        method: "PUT",
        headers: { "x-goog-api-key": KEY, "x-goog-upload-command": "start", "x-goog-upload-protocol": "resumable", "x-goog-upload-header-content-length": String(bytes.length) },
      });
      const uploadUrl = start.headers.get("x-goog-upload-url")!;
      void fetch(uploadUrl, {
        method: "POST",
        headers: { "x-goog-api-key": KEY, "x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0" },
        body: bytes,
      }).catch(() => undefined);
      await waitFor(() => existsSync(target) && readdirSync(target).length > 0, 20_000);
      const landedAtKill = existsSync(target) ? readdirSync(target).length : 0;
      await kill(first);
      if (landedAtKill === 0 || landedAtKill >= FILES) continue; // not mid-merge: try again

      const second = await serve(dataDir);
      try {
        expect(readdirSync(target)).toHaveLength(FILES);
        const after = await api(second, `/v1beta/environments/${env.id}`);
        const onDisk = countOnDisk(path.join(dataDir, "trees", env.id));
        expect(onDisk.fileCount).toBe(FILES + 1);
        expect({ file_count: after.file_count, size_bytes: after.size_bytes }).toEqual({ file_count: String(onDisk.fileCount), size_bytes: String(onDisk.sizeBytes) });
        expect(readdirSync(path.join(dataDir, "tmp")).filter((name) => name !== "uploads")).toEqual([]);
      } finally {
        await kill(second);
      }
      return;
    } finally {
      if (first.child.exitCode === null && first.child.signalCode === null) await kill(first);
    }
  }
  throw new Error("no kill landed in the middle of the extract in 5 attempts");
}, 180_000);

/** The per-call cgroups of the emulators `killed` (`genv-sbx-<pid>-…`) still there. */
function cgroupsLeftBy(killed: { pid: number; bases: string[] }[]): string[] {
  return killed.flatMap(({ pid, bases }) => bases.flatMap((base) => readdirSync(base).filter((name) => name.startsWith(`genv-sbx-${pid}-`)).map((name) => path.join(base, name))));
}

/**
 * The names of the cgroups among `dirs` that a call holds: a call's processes are in its cgroup until it
 * ends, while the emulator's pool of idle cgroups (emulator/sandbox/_cgroup.ts) holds none. On cgroup v1
 * a call has a directory of the same name in each hierarchy: one name per call.
 */
function heldByCalls(dirs: string[]): string[] {
  const procsOf = (dir: string) => {
    try {
      return readFileSync(path.join(dir, "cgroup.procs"), "utf8").trim();
    } catch {
      return ""; // removed meanwhile
    }
  };
  return [...new Set(dirs.filter((dir) => procsOf(dir) !== "").map((dir) => path.basename(dir)))].sort();
}

describeNeeding({ "a pids or memory cgroup the emulator can create (root: cgroup v1, or v2 with the controllers delegated)": pidsCgroupAvailable() || memoryCgroupAvailable() })("killed during sandbox calls", () => {
  const ROUNDS = 6;
  const CALLS = 4; // in flight at each kill, each in a cgroup of its own beside the pool's idle ones

  test(`${ROUNDS} kills, a restart after each: once the restarted emulator ran a call, no cgroup of a killed emulator is left`, async () => {
    const dataDir = tempDir("genv-crash-cgroups-");
    const killed: { pid: number; bases: string[] }[] = [];
    let envIds: string[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const serving = await serve(dataDir);
      try {
        if (round === 0) {
          // Calls on one environment run one at a time: an environment per call in flight.
          const create = () => api(serving, "/v1beta/environments", { method: "POST", body: JSON.stringify({ sources: [{ type: "inline", target: "workspace/a.txt", content: "a" }] }) });
          envIds = await Promise.all(Array.from({ length: CALLS }, async () => (await create()).id as string));
        }
        // The restarted emulator's start and its calls are where it sweeps what the killed ones left.
        const quick = await api(serving, `/v1beta/environments/${envIds[0]}:executeTool`, { method: "POST", body: JSON.stringify({ tool_call: { name: "code_execution", args: { code: "echo ok" } } }) });
        expect(JSON.stringify(quick)).toContain("ok");
        await waitFor(() => cgroupsLeftBy(killed).length === 0, 5_000);
        expect({ round, left: cgroupsLeftBy(killed).map((dir) => ({ dir, tasks: readFileSync(path.join(dir, "cgroup.procs"), "utf8").trim() })) }).toEqual({ round, left: [] });
        if (round === ROUNDS) {
          // Stopped, not killed, the last one removes its own.
          const last = [{ pid: serving.child.pid!, bases: cgroupBasesOf(serving.child.pid!) }];
          await new Promise((resolve) => serving.child.once("exit", resolve).kill("SIGTERM"));
          expect(cgroupsLeftBy(last)).toEqual([]);
          break;
        }

        const marker = `started-${round}`;
        for (const id of envIds) {
          void fetch(`${serving.url}/v1beta/environments/${id}:executeTool`, {
            method: "POST",
            headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
            body: JSON.stringify({ tool_call: { name: "code_execution", args: { code: `touch /workspace/${marker}; sleep 60` } } }),
          }).catch(() => undefined);
        }
        // Half the kills land while the calls run, half while they are being set up.
        const running = round % 2 === 0;
        if (running) expect(await waitFor(() => envIds.every((id) => existsSync(path.join(dataDir, "trees", id, "workspace", marker))), 20_000)).toBe(true);
        else await new Promise((resolve) => setTimeout(resolve, 20 * round));
        const victim = { pid: serving.child.pid!, bases: cgroupBasesOf(serving.child.pid!) };
        const held = heldByCalls(cgroupsLeftBy([victim]));
        await kill(serving);
        killed.push(victim);
        // Where every call had started, the kill landed while each held its cgroup (a call's process in it).
        if (running) expect({ round, held: held.length }).toEqual({ round, held: CALLS });
      } finally {
        if (serving.child.exitCode === null && serving.child.signalCode === null) await kill(serving);
      }
    }
  }, 240_000);
});
