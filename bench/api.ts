/**
 * The API's hot paths against the plain tools that do the same work on this machine:
 * create from a 1,000-file inline tree vs `cp -r`, recursive listing of 10,000 files vs `find`,
 * download of 50 MB vs `cat`.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { EnvironmentsClient } from "../client/client";
import type { Source } from "../client/schemas";
import { execFileAsync, interleavedMedians, startServeProcess, type Comparison } from "./_measure";

const RUNS = 5;
const WARM_UP_RUNS = 5;

export async function benchApi(): Promise<Comparison[]> {
  const server = await startServeProcess();
  const client = new EnvironmentsClient({ apiKey: server.key, baseUrl: server.url, timeoutMs: 300_000 });
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "genv-bench-"));
  try {
    const rows: Comparison[] = [];

    // 1,000 files of 1 KiB in 10 directories.
    const thousand = tree(1000, 1024, 10);
    const thousandDir = path.join(scratch, "thousand");
    await writeTree(thousandDir, thousand);
    const created: string[] = [];
    const createOne = async () => created.push((await client.create({ sources: thousand })).id);
    const copyOne = () => execFileAsync("cp", ["-r", thousandDir, path.join(scratch, `copy-${Math.random()}`)]);
    // Untimed runs of each side first, as a long-running emulator is: its first creates of this tree
    // run before V8 has optimised the request path (the first takes about three times a warm one, the
    // fifth still half as much again), and `cp` gets the source into the page cache.
    for (let i = 0; i < WARM_UP_RUNS; i++) {
      await createOne();
      await copyOne();
    }
    const [create, copy] = await interleavedMedians(RUNS, createOne, copyOne);
    rows.push({ name: "create, 1,000-file inline tree (1 KiB each)", ours: create, baselineName: "cp -r", baseline: copy, target: 2 });
    for (const id of created) await client.delete(id);

    // 10,000 files listed recursively.
    const tenThousand = tree(10_000, 16, 100);
    const big = await client.create({ sources: tenThousand });
    const bigDir = path.join(scratch, "ten-thousand");
    await writeTree(bigDir, tenThousand);
    let listed = 0;
    const [list, find] = await interleavedMedians(
      RUNS,
      async () => {
        listed = 0;
        for await (const _ of client.listAllFiles({ environment: big.id, path: "", recursive: true, pageSize: 1000 })) listed += 1;
      },
      () => execFileAsync("find", [bigDir, "-type", "f", "-printf", "%P %s %T@\n"], { maxBuffer: 64 * 1024 ** 2 }),
    );
    if (listed !== 10_000) throw new Error(`listed ${listed} files, expected 10,000`);
    rows.push({ name: "recursive listing, 10,000 files (pages of 1000)", ours: list, baselineName: "find -printf path size", baseline: find, target: 2 });
    await client.delete(big.id);

    // 50 MB downloaded.
    const blob = Buffer.alloc(50 * 1000 * 1000);
    for (let i = 0; i < blob.length; i += 4096) blob[i] = i & 0xff;
    const withBlob = await client.create({ sources: [{ type: "inline", encoding: "base64", content: blob.toString("base64"), target: "blob.bin" }] });
    const blobFile = path.join(scratch, "blob.bin");
    await fs.writeFile(blobFile, blob);
    const drain = async () => {
      const file = await client.download(withBlob.id, "blob.bin");
      for await (const _ of file.body) {
        // drain
      }
    };
    await drain(); // untimed, as for the create
    const [download, cat] = await interleavedMedians(RUNS, drain, () => execFileAsync("sh", ["-c", `cat "${blobFile}" > /dev/null`]));
    // `cat > /dev/null` never moves the bytes to another process; a download always does, so the
    // pipe between two processes is printed too.
    const [, catPipe] = await interleavedMedians(RUNS, drain, () => execFileAsync("sh", ["-c", `cat "${blobFile}" | cat > /dev/null`]));
    rows.push({ name: "download, 50 MB file (streamed)", ours: download, baselineName: "cat > /dev/null", baseline: cat, target: 2 });
    rows.push({ name: "download, 50 MB file (streamed)", ours: download, baselineName: "cat | cat > /dev/null", baseline: catPipe, target: 2 });
    await client.delete(withBlob.id);
    return rows;
  } finally {
    await client.close();
    await server.stop();
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

function tree(files: number, bytes: number, directories: number): Source[] {
  const content = "x".repeat(bytes);
  return Array.from({ length: files }, (_, i) => ({ type: "inline" as const, target: `dir-${i % directories}/file-${i}.txt`, content }));
}

async function writeTree(root: string, sources: readonly Source[]): Promise<void> {
  for (const source of sources) {
    const file = path.join(root, source.target!);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, source.content!);
  }
}
