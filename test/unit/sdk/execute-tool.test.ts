/** `EnvironmentsClient.executeTool` (emulator extension): request shape, response parsing, create-like retries. */
import { ConnectionError, EnvironmentsApiError, ValidationError, type EnvironmentsClient } from "../../../sdk";
import { googleError, json, useServersAndClients, type Handler, type TestServer } from "./_server";

const RESULT = {
  decision: "deny",
  reason: "Destructive command blocked by security gate.",
  error: "Destructive command blocked by security gate.",
  hooks: [{ group: "security-gate", event: "pre_tool_execution", handler: "command: python3 /.agents/hooks-scripts/gate.py", decision: "deny", duration_ms: 41.2 }],
};
const CALL = { name: "code_execution", args: { code: "rm -rf /tmp/x" } };

describe("executeTool", () => {
  const { serve, client: testClientFor } = useServersAndClients();
  async function client(handler: Handler): Promise<{ client: EnvironmentsClient; server: TestServer }> {
    const server = await serve(handler);
    return { client: testClientFor(server.baseUrl), server };
  }

  it("POSTs {tool_call} to environments/{id}:executeTool and parses the result", async () => {
    const { client: c, server } = await client((_req, res) => json(res, 200, RESULT));
    await expect(c.executeTool("environments/env_abc123", CALL)).resolves.toEqual(RESULT);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]).toMatchObject({ method: "POST", url: "/v1beta/environments/env_abc123:executeTool" });
    expect(JSON.parse(server.received[0].body)).toEqual({ tool_call: CALL });
  });

  it("validates the call before sending", async () => {
    const { client: c, server } = await client((_req, res) => json(res, 200, RESULT));
    const error = await c.executeTool("env_abc123", { name: "", args: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/tool_call\.name/);
    expect(server.received).toHaveLength(0);
  });

  it("is not retried on 500 nor on a reset connection: the tool may have run", async () => {
    const failing = await client((_req, res) => googleError(res, 500, "INTERNAL", "boom"));
    await expect(failing.client.executeTool("env_abc123", CALL)).rejects.toBeInstanceOf(EnvironmentsApiError);
    expect(failing.server.received).toHaveLength(1);
    const reset = await client((req) => req.socket.destroy());
    await expect(reset.client.executeTool("env_abc123", CALL)).rejects.toBeInstanceOf(ConnectionError);
    expect(reset.server.received).toHaveLength(1);
  });
});
