/**
 * `genv serve` where no sandbox can start: the API works, and every tool call answers 400
 * FAILED_PRECONDITION — before any hook runs, not retried by the client — saying why and what to do.
 * The server runs as a child process (`GENV_BWRAP`, capabilities are per process).
 */
import { EnvironmentsClient } from "../../../client/client";
import { EnvironmentsApiError } from "../../../client/errors";
import { eventually, serveFromSources, type ServedCli } from "../../support/genv-serve";
import { describeNeeding } from "../../support/prerequisites";

const KEY = "not-runnable-key";
const serve = (env: Record<string, string>, prefix: string[] = []) => serveFromSources(["--port", "0", "--in-memory", "--api-key", KEY], env, prefix);
const HOOKS = JSON.stringify({
  gate: { pre_tool_execution: [{ matcher: ".*", hooks: [{ type: "command", command: "echo '{\"decision\": \"deny\"}'" }] }] },
});

/** Creates an environment whose hooks would deny every call, then asks for a tool call. */
async function toolCallOn(server: ServedCli): Promise<{ error: EnvironmentsApiError; client: EnvironmentsClient; id: string }> {
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
  let server: ServedCli;
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
// As another user the emulator takes the non-root path (no host view): nothing to refuse.
describeNeeding({ "root (uid 0), as CI runs the tests": process.getuid?.() === 0 })("genv serve as root without CAP_SYS_ADMIN (root in a container)", () => {
  let server: ServedCli;
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
