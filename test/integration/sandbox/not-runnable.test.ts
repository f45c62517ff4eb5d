/**
 * `genv serve` where no sandbox can start: the API works, and every tool call answers 400
 * FAILED_PRECONDITION — before any hook runs, not retried by the client — saying why and what to do.
 * The server runs as a child process (`GENV_BWRAP`, capabilities are per process).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { EnvironmentsClient } from "../../../sdk/client";
import { EnvironmentsApiError } from "../../../sdk/errors";

const REPO = path.resolve(__dirname, "..", "..", "..");
const KEY = "not-runnable-key";
const HOOKS = JSON.stringify({
  gate: { pre_tool_execution: [{ matcher: ".*", hooks: [{ type: "command", command: "echo '{\"decision\": \"deny\"}'" }] }] },
});

interface Serve {
  url: string;
  /** What the server wrote on stderr so far: its warning and one line per request. */
  stderr(): string;
  close(): Promise<void>;
}

/** `genv serve` from the sources, `prefix` (e.g. setpriv) in front of node; resolves once it prints its URL. */
async function serve(env: Record<string, string>, prefix: string[] = []): Promise<Serve> {
  const argv = [...prefix, process.execPath, "-r", "./test/support/ts-register.js", "cli/main.ts", "serve", "--port", "0", "--in-memory", "--api-key", KEY];
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
async function eventually(read: () => string, pattern: RegExp, ms = 10_000): Promise<string> {
  const until = Date.now() + ms;
  while (!pattern.test(read()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(read()).toMatch(pattern);
  return read();
}

/** Creates an environment whose hooks would deny every call, then asks for a tool call. */
async function toolCallOn(server: Serve): Promise<{ error: EnvironmentsApiError; client: EnvironmentsClient; id: string }> {
  const client = new EnvironmentsClient({ apiKey: KEY, baseUrl: server.url });
  const created = await client.create({
    sources: [
      { type: "inline", target: ".agents/hooks.json", content: HOOKS },
      { type: "inline", target: "workspace/a.txt", content: "hello" },
    ],
  });
  const error = await client.executeTool(created.id, { name: "code_execution", args: { code: "echo hi" } }).then(
    () => {
      throw new Error("the tool call succeeded");
    },
    (caught: unknown) => caught as EnvironmentsApiError,
  );
  return { error, client, id: created.id };
}

describe("genv serve without bubblewrap (GENV_BWRAP names a missing binary, as on macOS)", () => {
  let server: Serve;
  beforeAll(async () => {
    server = await serve({ GENV_BWRAP: "/nonexistent/bwrap" });
  }, 30_000);
  afterAll(() => server?.close());

  test("starts, says so once on stderr, and the API works", async () => {
    await eventually(server.stderr, /genv serve: tool calls cannot run here: .*GENV_BWRAP=\/nonexistent\/bwrap does not exist/);
    const client = new EnvironmentsClient({ apiKey: KEY, baseUrl: server.url });
    const created = await client.create({ sources: [{ type: "inline", target: "workspace/main.py", content: "print(1)" }] });
    expect(created).toMatchObject({ status: "active", file_count: "1" });
    const listed = await client.files.list({ environment: created.id, path: "workspace" });
    expect(listed.files?.map((file) => file.path)).toEqual(["workspace/main.py"]);
    await client.close();
  });

  test("a tool call answers FAILED_PRECONDITION with the way out, once: no hook ran, no retry", async () => {
    const { error, client } = await toolCallOn(server);
    expect(error).toBeInstanceOf(EnvironmentsApiError);
    expect(error.httpStatus).toBe(400);
    expect(error.status).toBe("FAILED_PRECONDITION");
    expect(error.message).toContain("GENV_BWRAP=/nonexistent/bwrap does not exist");
    expect(error.message).toContain("apt-get install bubblewrap");
    expect(error.message).toContain("docker run --security-opt seccomp=unconfined --security-opt systempaths=unconfined --pids-limit 512");
    const calls = await eventually(server.stderr, /:executeTool 400/);
    expect(calls.match(/:executeTool /g)).toHaveLength(1);
    await client.close();
  });
});

// Root in a container has no CAP_SYS_ADMIN: the host view's mount namespace cannot be made. Dropping
// it from the bounding set gives the server exactly that; as another user the host view is not used.
const asRoot = process.getuid?.() === 0;
if (!asRoot) console.warn("not root: the emulator takes the non-root path (no host view), nothing to refuse; skipping the CAP_SYS_ADMIN case");
(asRoot ? describe : describe.skip)("genv serve as root without CAP_SYS_ADMIN (root in a container)", () => {
  let server: Serve;
  beforeAll(async () => {
    server = await serve({}, ["/usr/bin/setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin", "--"]);
  }, 30_000);
  afterAll(() => server?.close());

  test("fails closed: tool calls answer FAILED_PRECONDITION, run as a non-root user", async () => {
    const { error, client } = await toolCallOn(server);
    expect(error.status).toBe("FAILED_PRECONDITION");
    expect(error.message).toMatch(/^the emulator runs as root but may not create a mount namespace \(no CAP_SYS_ADMIN/);
    expect(error.message).toContain("run it as a non-root user");
    await eventually(server.stderr, /genv serve: tool calls cannot run here: the emulator runs as root/);
    await client.close();
  });
});
