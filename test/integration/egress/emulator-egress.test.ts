import { startEmulator } from "../../../emulator/server";
import { runTool } from "../../../emulator/sandbox";
import { parseEgressRoutes } from "../../../cli/commands/serve";
import { CLIError } from "../../../cli/errors";
import { makeTree } from "../../support/trees";
import { startUpstream } from "./_servers";

test("startEmulator runs an egress proxy with the operator's routes, closed with the emulator", async () => {
  const upstream = await startUpstream();
  const emulator = await startEmulator({ inMemory: true, apiKeys: ["k"], egressRoutes: parseEgressRoutes([`api.example.com=${upstream.url}`]) });
  try {
    const egress = { proxy: emulator.egress, network: { allowlist: [{ domain: "api.example.com", transform: { "X-Key": "v" } }] }, owner: "k", envId: "env_e1" };
    const result = await runTool("code_execution", { code: "curl -sS http://api.example.com/x" }, { root: makeTree(), egress });
    expect(result).toMatchObject({ output: "ok api.example.com /x", failed: false });
    expect(upstream.requests[0].headers["x-key"]).toBe("v");
  } finally {
    await emulator.close();
  }
  await expect(emulator.egress.attach({ network: undefined, owner: "k", envId: "env_e2" })).rejects.toThrow(/closed/);
});

test("--egress-route values are HOST=URL", () => {
  expect(parseEgressRoutes(["a.example.com=http://127.0.0.1:9000", "b.example.com=https://127.0.0.1:9443"])).toEqual({
    "a.example.com": "http://127.0.0.1:9000",
    "b.example.com": "https://127.0.0.1:9443",
  });
  expect(() => parseEgressRoutes(["a.example.com"])).toThrow(CLIError);
  expect(() => parseEgressRoutes(["a.example.com=127.0.0.1:9000"])).toThrow(/--egress-route: egress route a.example.com/);
});
