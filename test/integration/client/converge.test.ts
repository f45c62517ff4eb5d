/**
 * Creates that converge under the emulator's faults (`--faults`): a lost answer is adopted, never
 * duplicated; a create that provably did nothing is made again; a match it cannot tell apart is refused.
 */
import { AmbiguousCreateError, createCredentialConverging, createEnvironmentConverging, EnvironmentsClient } from "../../../client";
import { ownerOf } from "../../../emulator/api";
import { inline, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";

const FAST = { settleMs: 10, maxAttempts: 6 };

async function withFaults(faults: string, fn: (emulator: TestEmulator, client: EnvironmentsClient) => Promise<void>): Promise<void> {
  const emulator = await startTestEmulator({ faults });
  // Quick retries, and a timeout below the `slow` fault's delay, so that `slow` is a client timeout.
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

const held = (emulator: TestEmulator) => emulator.service.list(ownerOf(TEST_KEY), 1000, undefined).environments;

test("a create whose answer is lost (reset-after) is adopted: one environment, no duplicate", async () => {
  await withFaults("rate=1,kinds=reset-after,routes=create", async (emulator, client) => {
    const { environment, adopted } = await createEnvironmentConverging(client, { sources: [inline("a.txt", "one")] }, FAST);
    expect(adopted).toBe(true);
    expect(held(emulator).map((env) => env.id)).toEqual([environment.id]);
  });
});

test("a create dropped before it was handled (reset-before) leaves nothing; after the attempts, the error", async () => {
  await withFaults("rate=1,kinds=reset-before,routes=create", async (emulator, client) => {
    await expect(createEnvironmentConverging(client, { sources: [inline("a.txt", "one")] }, FAST)).rejects.toThrow();
    expect(held(emulator)).toEqual([]);
  });
});

test("30 creates under 50% faults of every kind: 30 environments, each exactly once", async () => {
  await withFaults("rate=0.5,seed=11,kinds=429+503+500+reset-before+reset-after+slow,routes=create,retry-after=0,delay=1500ms", async (emulator, client) => {
    const ids: string[] = [];
    let adopted = 0;
    for (let i = 0; i < 30; i++) {
      const result = await createEnvironmentConverging(client, { sources: [inline("n.txt", String(i))] }, FAST);
      ids.push(result.environment.id);
      if (result.adopted) adopted += 1;
    }
    expect(new Set(ids).size).toBe(30);
    expect(held(emulator).map((env) => env.id).sort()).toEqual([...ids].sort());
    expect(adopted).toBeGreaterThan(0); // some answers were lost and found again
    expect(emulator.faults?.dealt.size).toBeGreaterThanOrEqual(4);
  });
});

test("two environments with the same spec in the window: refused, naming both, none adopted", async () => {
  await withFaults("rate=1,kinds=reset-after,routes=create", async (emulator, client) => {
    const spec = { sources: [inline("same.txt", "same")] };
    const first = await createEnvironmentConverging(client, spec, FAST);
    const error = await createEnvironmentConverging(client, spec, FAST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    const ids = held(emulator).map((env) => env.id);
    expect(ids).toHaveLength(2);
    expect((error as AmbiguousCreateError).candidates.slice().sort()).toEqual([...ids].sort());
    expect(ids).toContain(first.environment.id);
  });
});

test("a credential whose create answer is lost is read back, not refused as a conflict", async () => {
  // Seed 7 deals: the create reset after it acted, then its retry (409) and the read untouched.
  await withFaults("rate=0.5,seed=7,kinds=reset-after,routes=credentials", async (emulator, client) => {
    const { credential, adopted } = await createCredentialConverging(client, { id: "lost-answer", type: "bearer_token", token: "t0k3n" }, FAST);
    expect({ id: credential.id, type: credential.type, adopted }).toEqual({ id: "lost-answer", type: "bearer_token", adopted: true });
    expect(emulator.faults?.dealt.get("reset-after")).toBe(1);
  });
});

test("a self-hosted environment whose answer (and key) was lost is deleted and made again: one environment, with its key", async () => {
  // Seed 7 deals: the first create reset after it acted, the second untouched.
  await withFaults("rate=0.5,seed=7,kinds=reset-after,routes=create", async (emulator, client) => {
    const { environment, adopted } = await createEnvironmentConverging(client, { mode: "self_hosted", sources: [inline("a.txt", "sh")] }, FAST);
    expect(adopted).toBe(false);
    expect(environment.environment_key).toEqual(expect.any(String));
    expect(held(emulator).map((env) => env.id)).toEqual([environment.id]);
    expect(emulator.faults?.dealt.get("reset-after")).toBe(1);
  });
});
