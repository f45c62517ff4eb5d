/**
 * Finding 5 — limits per call and per environment.
 *
 * (a) Memory is limited per process (RLIMIT_AS, 1 GiB), not per call: one tool call that starts four
 *     processes each holding 900 MiB (touched) holds 3.6 GiB. A call must not hold much more than
 *     1 GiB in total: at most one of the four may hold its 900 MiB at a time.
 * (b) The environment's size limits (`maxBytes`, `maxFiles`) bind uploads and sources but not tool
 *     calls: one call writing 3 × 5 MiB into a 10 MiB environment, or 200 files into a 50-file one,
 *     must fail, and neither the environment's `size_bytes` / `file_count` nor its tree on disk may
 *     end up past the limit.
 */
import { readdirSync, statSync } from "node:fs";
import * as path from "node:path";
import { residentBytesOfEach } from "../../support/host-processes";
import { bash, createEnvironment, executeTool, inlineFiles, python, startAttackEmulator, type AttackEmulator } from "./_attack";

const MiB = 1024 * 1024;
const MAX_BYTES = 10 * MiB;
const MAX_FILES = 50;

let emulator: AttackEmulator;

beforeAll(async () => {
  emulator = await startAttackEmulator({ maxBytes: MAX_BYTES, maxFiles: MAX_FILES });
});

/** Regular files under `dir` (symlinks not followed) and their total size. */
function diskUsage(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

// Four children, each allocating and touching 900 MiB, then holding it for 3 s, started one after
// another: the next as soon as the ones before it hold (or died), so that one may hold its 900 MiB
// alone before the next one asks for more. The parent counts how many hold their memory at once
// (said "HELD" and still run) and prints each new maximum.
const HOGS = `
import os, subprocess, sys, time
CHILD = """
import sys, time  # MARKER
try:
    buf = bytearray(b"\\x01") * (900 * 2**20)
except MemoryError:
    print("MEMORYERROR", flush=True)
    sys.exit(1)
print("HELD", flush=True)
time.sleep(3)
"""
print("STARTED", flush=True)
children, said = [], []
best = 0
deadline = time.monotonic() + 20
while time.monotonic() < deadline and (len(children) < 4 or any(c.poll() is None for c in children)):
    for i, c in enumerate(children):
        try:
            said[i] += c.stdout.read() or ""
        except (TypeError, OSError):
            pass
    holding = sum(1 for i, c in enumerate(children) if "HELD" in said[i] and c.poll() is None)
    if holding > best:
        best = holding
        print("MAX", best, flush=True)
    if len(children) < 4 and all("HELD" in said[i] or c.poll() is not None for i, c in enumerate(children)):
        children.append(subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True))
        os.set_blocking(children[-1].stdout.fileno(), False)
        said.append("")
    time.sleep(0.05)
for c in children:
    if c.poll() is None:
        c.kill()
    c.wait()
print("CHILDREN", [c.returncode for c in children], flush=True)
`;

test("one tool call cannot hold 4 × 900 MiB: at most one 900 MiB hog at a time", async () => {
  const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
  // The host samples each child's resident memory: a limit that let no child hold its 900 MiB (or a
  // program that never got to allocate) would pass the at-most-one check without proving it.
  const marker = `genv-attack-hog-${process.pid}-${Date.now()}`;
  let largestChild = 0;
  const sampler = setInterval(() => (largestChild = Math.max(largestChild, ...residentBytesOfEach(marker))), 5);
  const { status, body } = await executeTool(emulator, id, python(HOGS.replace("MARKER", marker)), { timeoutMs: 60_000 }).finally(() => clearInterval(sampler));
  expect(status).toBe(200);
  expect({ aChildHeldOver800MiB: largestChild > 800 * MiB, largestChildMiB: Math.round(largestChild / MiB) }).toEqual({
    aChildHeldOver800MiB: true,
    largestChildMiB: Math.round(largestChild / MiB),
  });
  const output: string = body.output ?? "";
  const maxima = [...output.matchAll(/^MAX (\d+)$/gm)].map((m) => Number(m[1]));
  const heldAtOnce = Math.max(0, ...maxima);
  expect(output).toMatch(/^STARTED$/m); // the program ran (whatever a limit did to its children)
  expect({ hogsOf900MiBHeldAtOnce: heldAtOnce, atMostOne: heldAtOnce <= 1, output }).toEqual({ hogsOf900MiBHeldAtOnce: heldAtOnce, atMostOne: true, output });
}, 60_000);

test("a tool call cannot push the environment past its byte limit (3 × 5 MiB into 10 MiB)", async () => {
  const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
  const { status, body } = await executeTool(emulator, id, bash("for i in 1 2 3; do head -c 5M /dev/zero > /workspace/big-$i.bin; done; ls -l /workspace"));
  const environment = await emulator.json(`/v1beta/environments/${id}`);
  const sizeBytes = Number(environment.body.size_bytes);
  const onDisk = diskUsage(path.join(emulator.dataDir, "trees", id)).bytes;
  const callFailed = status !== 200 || body.error !== undefined || (body.exit_code ?? 0) !== 0;
  expect({ limit: MAX_BYTES, sizeBytes, onDisk, callFailed }).toEqual({
    limit: MAX_BYTES,
    sizeBytes: sizeBytes <= MAX_BYTES ? sizeBytes : `≤ ${MAX_BYTES}`,
    onDisk: onDisk <= MAX_BYTES ? onDisk : `≤ ${MAX_BYTES}`,
    callFailed: true,
  });
}, 60_000);

test("a tool call cannot push the environment past its file limit (200 files into 50)", async () => {
  const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
  const { status, body } = await executeTool(emulator, id, bash("for i in $(seq 1 200); do echo $i > /workspace/f-$i.txt; done; ls /workspace | wc -l"));
  const environment = await emulator.json(`/v1beta/environments/${id}`);
  const fileCount = Number(environment.body.file_count);
  const onDisk = diskUsage(path.join(emulator.dataDir, "trees", id)).files;
  const callFailed = status !== 200 || body.error !== undefined || (body.exit_code ?? 0) !== 0;
  expect({ limit: MAX_FILES, fileCount, onDisk, callFailed }).toEqual({
    limit: MAX_FILES,
    fileCount: fileCount <= MAX_FILES ? fileCount : `≤ ${MAX_FILES}`,
    onDisk: onDisk <= MAX_FILES ? onDisk : `≤ ${MAX_FILES}`,
    callFailed: true,
  });
}, 60_000);
