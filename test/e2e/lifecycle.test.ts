// The life of a stack of two environments through the real engine, credentials from the environment
// (GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL): up, no-op preview, a replacement (a moved source; an edited one
// updates in place: hooks-lifecycle.test.ts), an out-of-band delete,
// destroy — with the API calls each step makes, counted in the emulator's request log.
import { execFileSync } from "node:child_process";
import * as path from "node:path";

import type { Stack } from "@pulumi/pulumi/automation";

import { E2E_TEST_TIMEOUT_MS, isGone, listIds, program, useE2E } from "./_workspace";
import { repoRoot } from "./engine";

const PROGRAM = program(`
const config = new pulumi.Config();
const a = new genv.Environment("a", {
  sources: [{ type: "inline", target: "workspace/a.txt", content: "alpha\\n" }],
  network: "disabled",
});
const b = new genv.Environment("b", {
  sources: [{ type: "inline", target: config.get("bTarget") ?? "workspace/b.txt", content: "one\\n" }],
});
exports.aId = a.id;
exports.aStatus = a.status;
exports.aCreated = a.created;
exports.aFileCount = a.fileCount;
exports.aSizeBytes = a.sizeBytes;
exports.aNetwork = a.network;
exports.bId = b.id;
exports.runtime = { node: process.version, pulumi: require("@pulumi/pulumi/package.json").version };
`);

describe("Environment lifecycle (real engine, credentials from the environment)", () => {
  const e2e = useE2E();
  let stack: Stack;
  let ids: { a: string; b: string };

  beforeAll(async () => {
    const dir = await e2e().workspace.addProgram("lifecycle", PROGRAM);
    stack = await e2e().stack(dir, "lifecycle");
  }, E2E_TEST_TIMEOUT_MS);

  test("up: the stack outputs are what the API returns", async () => {
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    ids = { a: up.outputs.aId.value, b: up.outputs.bId.value };

    const a = await e2e().client.get(ids.a);
    expect({
      id: up.outputs.aId.value,
      status: up.outputs.aStatus.value,
      created: up.outputs.aCreated.value,
      fileCount: up.outputs.aFileCount.value,
      sizeBytes: up.outputs.aSizeBytes.value,
      network: up.outputs.aNetwork.value,
    }).toEqual({
      id: a.id,
      status: a.status,
      created: a.created,
      fileCount: Number(a.file_count),
      sizeBytes: Number(a.size_bytes),
      network: a.network,
    });
    expect(a.status).toBe("active");
    expect(a.file_count).toBe("1");

    // The program ran on the `node` of PATH with the workspace's @pulumi/pulumi (scripts/e2e-node22: 22, newest).
    const pulumiDir = process.env.GENV_E2E_PULUMI_DIR || path.join(repoRoot, "node_modules", "@pulumi", "pulumi");
    expect(up.outputs.runtime.value).toEqual({
      node: execFileSync("node", ["--version"], { env: e2e().engine.env, encoding: "utf8" }).trim(),
      pulumi: require(path.join(pulumiDir, "package.json")).version,
    });
  }, E2E_TEST_TIMEOUT_MS);

  test("a no-op preview shows no change and makes no API call", async () => {
    let preview: Awaited<ReturnType<Stack["preview"]>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput }));
    });
    expect(preview!.changeSummary).toEqual({ same: 3 });
    expect(requests).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);

  test("refresh makes exactly one GET per environment", async () => {
    const requests = await e2e().requestsDuring(() => e2e().run(stack, (s, onOutput) => s.refresh({ onOutput })));
    expect(requests.sort()).toEqual([`GET /v1beta/environments/${ids.a}`, `GET /v1beta/environments/${ids.b}`].sort());
  }, E2E_TEST_TIMEOUT_MS);

  test("a moved source previews as a replacement of that environment only; up replaces it", async () => {
    await stack.setConfig("bTarget", { value: "workspace/c.txt" });
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput, diff: true }));
    expect(preview.changeSummary).toEqual({ replace: 1, same: 2 });
    // The replaced resource, by URN, and the changed path.
    expect(preview.output).toMatch(/\+-pulumi-nodejs:dynamic\/gemini-environments:Environment: \(replace\)\s+\[id=[^\]]+\]\s+\[urn=[^\]]*::b\]/);
    expect(preview.output).toMatch(/~ sources\s*:/);
    expect(preview.output).not.toMatch(/\(replace\)\s+\[id=[^\]]+\]\s+\[urn=[^\]]*::a\]/);

    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ replace: 1, same: 2 });
    expect(up.outputs.aId.value).toBe(ids.a);
    expect(up.outputs.bId.value).not.toBe(ids.b);
    expect(await isGone(e2e().client, ids.b)).toBe(true);
    const b = await e2e().client.get(up.outputs.bId.value);
    expect(b.sources).toEqual([{ type: "inline", target: "workspace/c.txt", content: "one\n" }]);
    ids.b = up.outputs.bId.value;
  }, E2E_TEST_TIMEOUT_MS);

  test("an environment deleted out of band is dropped by refresh and recreated by up", async () => {
    await e2e().client.delete(ids.a);
    const refresh = await e2e().run(stack, (s, onOutput) => s.refresh({ onOutput }));
    expect(refresh.summary.resourceChanges).toMatchObject({ delete: 1 });
    const state = await stack.exportStack();
    expect((state.deployment.resources as Array<{ id?: string }>).map((r) => r.id)).not.toContain(ids.a);

    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    expect(up.summary.resourceChanges).toEqual({ create: 1, same: 2 });
    expect(up.outputs.aId.value).not.toBe(ids.a);
    expect((await e2e().client.get(up.outputs.aId.value)).status).toBe("active");
  }, E2E_TEST_TIMEOUT_MS);

  test("destroy leaves no environment", async () => {
    const destroy = await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
    expect(await listIds(e2e().client)).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);
});
