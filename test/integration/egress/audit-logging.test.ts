/**
 * The hooks spec's audit-logging example end to end through `:executeTool`: the post hook's event
 * reaches the telemetry endpoint over HTTPS through the environment's egress proxy, authenticated by
 * the allowlist's transform, while the token never enters the sandbox. Also HTTP pre hooks: a deny
 * honoured, a 500 failing open, a host off the allowlist not delivered.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { serializeHooks } from "../../../hooks/serialize";
import type { HooksConfigInput } from "../../../hooks/schema";
import { startTestEmulator, type TestEmulator } from "../../support/emulator";
import { startUpstream, type Upstream } from "./_servers";

const TOKEN = "Bearer tel-secret-8c1f2";
let telemetry: Upstream;
let gate: Upstream;
let emulator: TestEmulator;

beforeAll(async () => {
  telemetry = await startUpstream(true);
  gate = await startUpstream(true);
  emulator = await startTestEmulator({
    egressRoutes: { "telemetry.example.com": telemetry.url, "gate.example.com": gate.url },
    egressUpstreamCa: [telemetry.caPem!, gate.caPem!],
  });
});
afterAll(() => emulator.close());

async function environment(hooks: HooksConfigInput, network: unknown, files: Record<string, string> = {}): Promise<string> {
  const sources = [
    { type: "inline", target: ".agents/hooks.json", content: serializeHooks(hooks) },
    ...Object.entries(files).map(([target, content]) => ({ type: "inline", target, content })),
  ];
  const { status, body } = await emulator.json("/v1beta/environments", { method: "POST", body: JSON.stringify({ sources, network }) });
  expect(status).toBe(200);
  return body.id;
}

const executeTool = async (id: string, name: string, args: Record<string, unknown>) =>
  (await emulator.json(`/v1beta/environments/${id}:executeTool`, { method: "POST", body: JSON.stringify({ tool_call: { name, args } }) })).body;

test("audit-logging as in the spec: authenticated events for view, write and replace; the token never enters the sandbox", async () => {
  const hooks: HooksConfigInput = {
    "audit-logging": {
      post_tool_execution: [
        {
          matcher: "view_file|write_to_file|replace_file_content",
          hooks: [{ type: "http", url: "https://telemetry.example.com/api/v1/agent-events", timeout: 10 }],
        },
      ],
    },
  };
  const network = { allowlist: [{ domain: "telemetry.example.com", transform: { Authorization: TOKEN } }, { domain: "*" }] };
  const id = await environment(hooks, network, { "workspace/notes.md": "# Notes\n" });

  const write = await executeTool(id, "write_to_file", { path: "/workspace/report.md", content: "done\n" });
  expect(write).toMatchObject({ decision: "allow" });
  expect(write.hooks).toEqual([expect.objectContaining({ group: "audit-logging", event: "post_tool_execution", decision: "ignored" })]);
  expect(write.hooks[0].failure).toBeUndefined();
  await executeTool(id, "view_file", { path: "/workspace/notes.md" });
  await executeTool(id, "list_dir", { path: "/workspace" }); // not matched: no event

  expect(telemetry.requests.map((r) => [r.method, r.url, r.headers.host, r.headers.authorization])).toEqual([
    ["POST", "/api/v1/agent-events", "telemetry.example.com", TOKEN],
    ["POST", "/api/v1/agent-events", "telemetry.example.com", TOKEN],
  ]);
  expect(JSON.parse(telemetry.requests[0].body)).toEqual({
    tool_call: { name: "write_to_file", args: { path: "/workspace/report.md", content: "done\n" } },
    environment_id: id,
  });

  // The sandbox sees neither the token in its environment nor in any file.
  const inside = await executeTool(id, "code_execution", { code: "env; grep -rs tel-secret /workspace /.agents /etc /tmp || true" });
  expect(inside.output).not.toContain("tel-secret");
  expect(inside.output).toContain("HTTPS_PROXY=");
  expect(readFileSync(path.join(emulator.dataDir, "trees", id, ".agents/hooks.json"), "utf8")).not.toContain("tel-secret");
});

test("an HTTP pre hook's deny is honoured; a 500 fails open; a host off the allowlist is not delivered", async () => {
  gate.answer = (request) =>
    request.url === "/deny"
      ? { status: 200, body: JSON.stringify({ decision: "deny", reason: "blocked by the remote gate" }) }
      : { status: 500, body: "boom" };
  const pre = (url: string) => ({ gate: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "http" as const, url, timeout: 5 }] }] } });
  const allowGate = { allowlist: [{ domain: "gate.example.com" }] };

  const denied = await executeTool(await environment(pre("https://gate.example.com/deny"), allowGate), "code_execution", { code: "echo ran" });
  expect(denied).toMatchObject({ decision: "deny", reason: "blocked by the remote gate" });
  expect(denied.output ?? "").not.toContain("ran");

  const failing = await executeTool(await environment(pre("https://gate.example.com/fail"), allowGate), "code_execution", { code: "echo ran" });
  expect(failing).toMatchObject({ decision: "allow", output: "ran\n" });
  expect(failing.hooks[0].failure).toMatch(/500/);

  const before = gate.requests.length;
  const offList = { allowlist: [{ domain: "api.example.com" }] };
  const blocked = await executeTool(await environment(pre("https://gate.example.com/deny"), offList), "code_execution", { code: "echo ran" });
  expect(blocked).toMatchObject({ decision: "allow", output: "ran\n" });
  expect(blocked.hooks[0].failure).toMatch(/gate\.example\.com/);
  expect(gate.requests.length).toBe(before);
});
