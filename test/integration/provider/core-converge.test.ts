/**
 * The resource cores create through client/converge.ts, so both adapters (the dynamic provider and the
 * plugin) do: an environment or credential whose create answer is lost is found again, not made twice.
 */
import { EnvironmentsClient } from "../../../client";
import { ownerOf } from "../../../emulator/api";
import { credentialCore } from "../../../provider/credential/core";
import { environmentCore } from "../../../provider/environment/core";
import { inline, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";

async function withFaults(faults: string, fn: (emulator: TestEmulator, client: EnvironmentsClient) => Promise<void>): Promise<void> {
  const emulator = await startTestEmulator({ faults });
  const client = new EnvironmentsClient({
    apiKey: TEST_KEY, baseUrl: emulator.url, env: {}, timeoutMs: 1_000,
    retry: { initialDelayMs: 5, maxDelayMs: 20, totalTimeMs: 10_000 },
  });
  try {
    await fn(emulator, client);
  } finally {
    await client.close();
    await emulator.close();
  }
}

test("environmentCore.create: a lost create answer (reset-after) is adopted, one environment", async () => {
  await withFaults("rate=1,kinds=reset-after,routes=create", async (emulator, client) => {
    const { id, outs } = await environmentCore.create(client, { sources: [inline("a.txt", "one")] });
    expect(outs).toMatchObject({ status: "active", fileCount: 1, sources: [inline("a.txt", "one")] });
    expect(emulator.service.list(ownerOf(TEST_KEY), 1000, undefined).environments.map((env) => env.id)).toEqual([id]);
    expect(emulator.faults?.dealt.get("reset-after")).toBeGreaterThanOrEqual(1);
  });
});

test("environmentCore.create: a self_hosted environment keeps its key (a lost answer is made again)", async () => {
  await withFaults("rate=0.5,seed=7,kinds=reset-after,routes=create", async (emulator, client) => {
    const { id, outs } = await environmentCore.create(client, { mode: "self_hosted", sources: [inline("a.txt", "sh")] });
    expect(outs.environmentKey).toEqual(expect.any(String));
    expect(emulator.faults?.dealt.get("reset-after")).toBe(1);
    expect(emulator.service.list(ownerOf(TEST_KEY), 1000, undefined).environments.map((env) => env.id)).toEqual([id]);
    // Refresh: Get never returns the key; read keeps it from the state.
    const read = await environmentCore.read(client, id, outs);
    expect(read?.outs.environmentKey).toBe(outs.environmentKey);
  });
});

test("credentialCore.create: a lost create answer is read back, not refused as a conflict", async () => {
  await withFaults("rate=0.5,seed=7,kinds=reset-after,routes=credentials", async (emulator, client) => {
    const { id, outs } = await credentialCore.create(client, { credentialId: "lost-answer", type: "bearer_token", token: "t0k3n" });
    expect({ id, type: outs.type, token: outs.token }).toEqual({ id: "lost-answer", type: "bearer_token", token: "t0k3n" });
    expect(emulator.faults?.dealt.get("reset-after")).toBe(1);
  });
});
