/**
 * `EnvironmentsClient.executeTool` (emulator extension): validation before sending, and no retry where
 * the tool may have run. The request and a real hook's answer: test/integration/client/environments.test.ts.
 */
import { ConnectionError, EnvironmentsApiError, ValidationError, type EnvironmentsClient } from "../../../client";
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
