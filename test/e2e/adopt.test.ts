// Existing environments through the real engine: `adopt` takes one created outside Pulumi under
// management without creating anything (destroy then deletes it), and `Environment.get` reads one
// without ever changing or deleting it.
import type { Stack } from "@pulumi/pulumi/automation";

import { E2E_TEST_TIMEOUT_MS, isGone, listIds, program, useE2E } from "./_workspace";

const SOURCES = [{ type: "inline" as const, target: "workspace/notes.md", content: "# adopted\n" }];

const PROGRAM = program(`
const config = new pulumi.Config();
const adopted = new genv.Environment("adopted", { sources: ${JSON.stringify(SOURCES)}, adopt: config.require("adoptId") });
exports.adoptedId = adopted.id;
exports.adoptedStatus = adopted.status;
const viewId = config.get("viewId");
if (viewId) {
  const viewed = genv.Environment.get("viewed", viewId);
  exports.viewedStatus = viewed.status;
  exports.viewedFileCount = viewed.fileCount;
  exports.viewedCreated = viewed.created;
}
`);

describe("adopt and Environment.get (real engine)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let adoptId: string;
  let viewId: string;

  beforeAll(async () => {
    adoptId = (await e2e().client.create({ sources: SOURCES })).id;
    viewId = (await e2e().client.create({ sources: [{ type: "inline", target: "a.txt", content: "a" }, { type: "inline", target: "b.txt", content: "b" }] })).id;
    const dir = await e2e().workspace.addProgram("adopt", PROGRAM);
    stack = await e2e().stack(dir, "adopt", { config: { adoptId } });
  }, E2E_TEST_TIMEOUT_MS);

  test("up adopts the environment: no POST, and it is in the state", async () => {
    let up: Awaited<ReturnType<Stack["up"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    });
    expect(requests).toEqual([`GET /v1beta/environments/${adoptId}`]);
    expect(up!.outputs.adoptedId.value).toBe(adoptId);
    expect(up!.outputs.adoptedStatus.value).toBe("active");
    const ids = ((await stack.exportStack()).deployment.resources as Array<{ id?: string }>).map((r) => r.id);
    expect(ids).toContain(adoptId);
  }, E2E_TEST_TIMEOUT_MS);

  test("Environment.get reads an environment read-only", async () => {
    await stack.setConfig("viewId", { value: viewId });
    let up: Awaited<ReturnType<Stack["up"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    });
    expect(requests).toEqual([`GET /v1beta/environments/${viewId}`]);
    const viewed = await e2e().client.get(viewId);
    expect(up!.outputs.viewedStatus.value).toBe("active");
    expect(up!.outputs.viewedFileCount.value).toBe(2);
    expect(up!.outputs.viewedCreated.value).toBe(viewed.created);
  }, E2E_TEST_TIMEOUT_MS);

  test("destroy deletes the adopted environment and leaves the read one alone", async () => {
    const requests = await e2e().requestsDuring(() => e2e().run(stack, (s, onOutput) => s.destroy({ onOutput })));
    expect(requests).toEqual([`DELETE /v1beta/environments/${adoptId}`]);
    expect(await isGone(e2e().client, adoptId)).toBe(true);
    expect(await listIds(e2e().client)).toEqual([viewId]);
  }, E2E_TEST_TIMEOUT_MS);
});
