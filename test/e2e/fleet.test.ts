// examples/fleet (three guarded environments) through the real engine: the API calls of up and
// refresh, and expiry — the emulator's clock jumps past the idle TTL, refresh reports the
// environments `expired`, and the next up replaces them.
import type { Stack } from "@pulumi/pulumi/automation";

import { E2E_TEST_TIMEOUT_MS, isGone, useE2E } from "./_workspace";

const DAY_MS = 24 * 3600 * 1000;

interface StateResource {
  type: string;
  id?: string;
  outputs?: Record<string, unknown>;
}

describe("examples/fleet: refresh and expiry (real engine)", () => {
  // A movable clock instead of a short TTL: nothing expires until the test says so.
  const clock = { offsetMs: 0 };
  const e2e = useE2E({ emulator: { now: () => Date.now() + clock.offsetMs } });
  let stack: Stack;
  let ids: string[];

  const environments = async () =>
    ((await stack.exportStack()).deployment.resources as StateResource[]).filter((r) => r.type === "pulumi-nodejs:dynamic/gemini-environments:Environment");

  beforeAll(async () => {
    const dir = await e2e().workspace.addExample("fleet");
    stack = await e2e().stack(dir, "fleet");
  }, E2E_TEST_TIMEOUT_MS);

  test("up creates three environments with one POST each", async () => {
    let up: Awaited<ReturnType<Stack["up"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    });
    ids = up!.outputs.environmentIds.value;
    expect(ids).toHaveLength(3);
    expect(up!.outputs.statuses.value).toEqual(["active", "active", "active"]);
    expect(requests).toEqual(["POST /v1beta/environments", "POST /v1beta/environments", "POST /v1beta/environments"]);
  }, E2E_TEST_TIMEOUT_MS);

  test("refresh of three environments makes one GET each, and downloads their two declared hook files only", async () => {
    const requests = await e2e().requestsDuring(() => e2e().run(stack, (s, onOutput) => s.refresh({ onOutput })));
    const perEnvironment = (id: string) => [`GET /v1beta/environments/${id}`, ...[".agents/hooks-scripts/gate.py", ".agents/hooks.json"].map((file) => `GET /v1beta/environments/${id}/files/${file}`)];
    expect(requests.sort()).toEqual(ids.flatMap(perEnvironment).sort());
  }, E2E_TEST_TIMEOUT_MS);

  test("past the idle TTL, refresh shows them expired and up replaces them", async () => {
    clock.offsetMs += 8 * DAY_MS; // the default idle TTL is 7 days
    await e2e().run(stack, (s, onOutput) => s.refresh({ onOutput }));
    expect((await environments()).map((r) => r.outputs?.status)).toEqual(["expired", "expired", "expired"]);

    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    expect(preview.changeSummary).toMatchObject({ replace: 3 });

    let up: Awaited<ReturnType<Stack["up"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    });
    const fresh: string[] = up!.outputs.environmentIds.value;
    expect(fresh.filter((id) => ids.includes(id))).toEqual([]);
    expect(up!.outputs.statuses.value).toEqual(["active", "active", "active"]);
    expect(requests.filter((r) => r.startsWith("POST"))).toHaveLength(3);
    expect(requests.filter((r) => r.startsWith("DELETE")).sort()).toEqual(ids.map((id) => `DELETE /v1beta/environments/${id}`).sort());
    for (const id of ids) expect(await isGone(e2e().client, id)).toBe(true);
  }, E2E_TEST_TIMEOUT_MS);
});
