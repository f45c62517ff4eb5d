/**
 * `--faults`: each kind over real HTTP, as a client meets it, and the same seed giving the same faults.
 */
import { parseFaultSpec } from "../../../emulator/api/faults";
import { ownerOf } from "../../../emulator/api";
import { inline, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";

const CREATE = { method: "POST", body: JSON.stringify({ sources: [inline("a.txt", "a")] }) };

async function withEmulator(faults: string, fn: (emulator: TestEmulator) => Promise<void>): Promise<void> {
  const emulator = await startTestEmulator({ faults });
  try {
    await fn(emulator);
  } finally {
    await emulator.close();
  }
}

/** Environments the emulator holds for the test key, read past the HTTP layer and its faults. */
function held(emulator: TestEmulator): number {
  return emulator.service.list(ownerOf(TEST_KEY), 1000, undefined).environments.length;
}

describe("the spec", () => {
  test("defaults: every kind and route, seed 1, Retry-After 1 s, 30 s delay", () => {
    expect(parseFaultSpec("rate=0.2")).toEqual({
      rate: 0.2, seed: 1, kinds: ["429", "503", "500", "reset-before", "reset-after", "slow"],
      routes: ["create", "list", "get", "delete", "files", "download", "upload", "tool", "calls", "credentials"], retryAfterSeconds: 1, delayMs: 30_000,
    });
    expect(parseFaultSpec("rate=1,seed=7,kinds=429+reset-after,routes=create,retry-after=0,delay=1500ms")).toMatchObject({
      seed: 7, kinds: ["429", "reset-after"], routes: ["create"], retryAfterSeconds: 0, delayMs: 1500,
    });
  });

  test.each([
    ["", /rate must be a number from 0 to 1/],
    ["rate=2", /rate must be a number from 0 to 1/],
    ["rate=0.1,kinds=timeout", /kinds takes 429\+503\+500\+reset-before\+reset-after\+slow \(got "timeout"\)/],
    ["rate=0.1,speed=3", /unknown key "speed"/],
    ["rate=0.1,routes=everything", /routes takes create\+list/],
    ["rate", /"rate" is not key=value/],
  ])("%j is refused naming the key", (spec, message) => {
    expect(() => parseFaultSpec(spec)).toThrow(message);
  });
});

describe("each kind, on creates only", () => {
  test.each(["429", "503"])("%s: Google's error body and Retry-After; nothing created", async (kind) => {
    await withEmulator(`rate=1,kinds=${kind},routes=create,retry-after=2`, async (emulator) => {
      const response = await emulator.call("/v1beta/environments", CREATE);
      expect(response.status).toBe(Number(kind));
      expect(response.headers.get("retry-after")).toBe("2");
      expect(((await response.json()) as any).error).toMatchObject({ code: Number(kind), status: kind === "429" ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE" });
      expect(held(emulator)).toBe(0);
    });
  });

  test("500: INTERNAL, nothing created", async () => {
    await withEmulator("rate=1,kinds=500,routes=create", async (emulator) => {
      const response = await emulator.call("/v1beta/environments", CREATE);
      expect(response.status).toBe(500);
      expect(((await response.json()) as any).error.status).toBe("INTERNAL");
      expect(held(emulator)).toBe(0);
    });
  });

  test("reset-before: the connection drops and nothing is created", async () => {
    await withEmulator("rate=1,kinds=reset-before,routes=create", async (emulator) => {
      await expect(emulator.call("/v1beta/environments", CREATE)).rejects.toThrow();
      expect(held(emulator)).toBe(0);
    });
  });

  test("reset-after: the connection drops, but the environment was created", async () => {
    await withEmulator("rate=1,kinds=reset-after,routes=create", async (emulator) => {
      await expect(emulator.call("/v1beta/environments", CREATE)).rejects.toThrow();
      expect(held(emulator)).toBe(1);
      // Other routes are untouched: the list answers.
      expect((await emulator.json("/v1beta/environments")).body.environments).toHaveLength(1);
    });
  });

  test("slow: the answer comes late; a client that gives up first leaves the environment created all the same", async () => {
    await withEmulator("rate=1,kinds=slow,routes=create,delay=2s", async (emulator) => {
      await expect(emulator.call("/v1beta/environments", { ...CREATE, signal: AbortSignal.timeout(300) })).rejects.toThrow(/timeout|abort/i);
      expect(held(emulator)).toBe(1);
      const patient = await emulator.json("/v1beta/environments", CREATE);
      expect(patient).toMatchObject({ status: 200, body: { id: expect.stringMatching(/^env_/) } });
      expect(held(emulator)).toBe(2);
    });
  });
});

test("the same seed deals the same faults to the same requests; another seed, others", async () => {
  const statuses = async (seed: number) => {
    const seen: string[] = [];
    await withEmulator(`rate=0.5,seed=${seed},kinds=429+503+500,routes=list`, async (emulator) => {
      for (let i = 0; i < 40; i++) seen.push(String((await emulator.call("/v1beta/environments")).status));
      expect([...(emulator.faults?.dealt.values() ?? [])].reduce((a, b) => a + b, 0)).toBe(seen.filter((status) => status !== "200").length);
    });
    return seen.join(" ");
  };
  const first = await statuses(7);
  expect(first).toMatch(/200/);
  expect(first).toMatch(/429|503|500/);
  expect(await statuses(7)).toBe(first);
  expect(await statuses(8)).not.toBe(first);
});
