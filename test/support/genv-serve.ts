/** `genv serve` as a child process, from the TypeScript sources: for what is per process (environment, capabilities). */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";

const REPO = path.resolve(__dirname, "..", "..");

export interface ServedCli {
  url: string;
  /** Everything it printed on stdout: the URL, and the key when it generated one. */
  stdout(): string;
  /** What the server wrote on stderr so far: its warning and one line per request. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * `genv serve ARGS` from the sources (no build), `prefix` (e.g. setpriv) in front of node, `env` added to
 * this process's; resolves once it prints its URL.
 */
export async function serveFromSources(args: string[], env: Record<string, string> = {}, prefix: string[] = []): Promise<ServedCli> {
  const argv = [...prefix, process.execPath, "-r", "./test/support/ts-register.js", "cli/main.ts", "serve", ...args];
  const child: ChildProcess = spawn(argv[0], argv.slice(1), { cwd: REPO, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const line = /^(http:\/\/\S+)\n/.exec(stdout);
      if (line) resolve(line[1]);
    });
    child.on("exit", (code) => reject(new Error(`genv serve exited with ${code} before it was ready:\n${stderr}`)));
  });
  return {
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Waits until `read()` matches, for output a child writes soon. */
export async function eventually(read: () => string, pattern: RegExp, ms = 10_000): Promise<string> {
  const until = Date.now() + ms;
  while (!pattern.test(read()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(read()).toMatch(pattern);
  return read();
}

