/**
 * A real Cloud Storage JSON API for tests: fake-gcs-server (github.com/fsouza/fake-gcs-server) on a
 * free loopback port, in-memory, stopped after. `scripts/fake-gcs-server` builds the binary from Go
 * modules the first time (about a minute) and caches it outside the repo.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./ports";

export interface FakeGcs {
  /** `http://127.0.0.1:<port>`: a `gcsEndpoint` / `STORAGE_EMULATOR_HOST`. */
  url: string;
  port: number;
  createBucket(name: string): Promise<void>;
  /** Uploads an object; any name is accepted, `../x` included. */
  putObject(bucket: string, name: string, content: string | Buffer): Promise<void>;
  close(): Promise<void>;
}

const SCRIPT = path.resolve(__dirname, "../../scripts/fake-gcs-server");

/** Path of the binary, building it on first use (jest's beforeAll needs a long timeout then). */
export async function fakeGcsBinary(): Promise<string> {
  const { stdout } = await promisify(execFile)(SCRIPT, [], { timeout: 10 * 60_000, maxBuffer: 1024 * 1024 });
  return stdout.trim().split("\n").pop()!;
}

export async function startFakeGcs(): Promise<FakeGcs> {
  const binary = await fakeGcsBinary();
  // fake-gcs-server binds port 0 but does not report the port it got: pick one, retry if taken meanwhile.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(binary, ["-scheme", "http", "-host", "127.0.0.1", "-port", String(port), "-backend", "memory", "-log-level", "error"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    if (await ready(child, url)) return handle(child, url, port);
    await stop(child);
    if (attempt === 3) throw new Error(`fake-gcs-server did not start on ${url}: ${stderr.trim()}`);
  }
}

function handle(child: ChildProcess, url: string, port: number): FakeGcs {
  const check = async (response: Response, what: string) => {
    if (!response.ok) throw new Error(`fake-gcs-server: ${what}: ${response.status} ${await response.text()}`);
  };
  return {
    url,
    port,
    async createBucket(name) {
      const response = await fetch(`${url}/storage/v1/b`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) });
      await check(response, `create bucket ${name}`);
    },
    async putObject(bucket, name, content) {
      const response = await fetch(`${url}/upload/storage/v1/b/${bucket}/o?uploadType=media&name=${encodeURIComponent(name)}`, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: typeof content === "string" ? content : new Uint8Array(content),
      });
      await check(response, `upload ${bucket}/${name}`);
    },
    close: () => stop(child),
  };
}

async function ready(child: ChildProcess, url: string): Promise<boolean> {
  const until = Date.now() + 15_000;
  while (Date.now() < until && child.exitCode === null) {
    try {
      if ((await fetch(`${url}/_internal/healthcheck`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

