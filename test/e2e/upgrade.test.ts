// Upgrades change nothing: a stack made by the previous release, 0.2.0 (its package built and packed
// from the commit it was cut from by that commit's own scripts, as a user installs it), with the
// dynamic classes (an Environment, a Credential with its default id, a GuardedEnvironment) and a
// plugin.* resource, then the same program with this checkout's package: `pulumi preview
// --expect-no-changes` passes, and an `up` changes nothing and makes no request that writes. What a
// user must change between the two is in the CHANGELOG.
import * as fs from "node:fs";
import * as path from "node:path";

import { createPackedWorkspace, javascriptProject, type PackedWorkspace } from "../../devtools/packed-workspace";
import { packedRelease, PREVIOUS_RELEASE, RELEASE_BUILD_TIMEOUT_MS } from "./_previous-release";
import { E2E_TEST_TIMEOUT_MS, listIds, program, useE2E } from "./_workspace";
import { repoRoot } from "./engine";

const PROGRAM = program(`
const bundle = new genv.HookBundle({
  hooks: { gate: genv.group().before("code_execution", genv.command("python3 /.agents/hooks-scripts/gate.py", { timeout: 10 })) },
  scripts: { "gate.py": { content: "import json, sys\\\\njson.load(sys.stdin)\\\\nprint(json.dumps({'decision': 'allow'}))\\\\n" } },
});
const token = new genv.Credential("token", { type: "bearer_token", token: pulumi.secret("ghp_upgrade") });
const agent = new genv.Environment("agent", {
  sources: [{ type: "inline", target: "workspace/TASK.md", content: "Triage.\\\\n" }],
  network: genv.NetworkPolicy.allowlist().allow("api.github.com", { credential: token }).toNetworkArgs(),
});
const guarded = new genv.GuardedEnvironment("guarded", { hooks: bundle, network: genv.NetworkPolicy.disabled(), acknowledgedWarnings: ["inline-hooks-writable"] });
const served = new genv.plugin.Environment("served", { sources: [{ type: "inline", target: "a.txt", content: "a" }], network: "disabled" });
exports.agentId = agent.id;
exports.credentialId = token.credentialId;
exports.guardedId = guarded.environmentId;
exports.servedId = served.id;
`);

/** Pulumi.yaml naming the plugin of the package the program runs on, as 0.2.0's docs asked. */
const project = (pluginBinDir: string) => javascriptProject("upgrade", `plugins:\n  providers:\n    - name: gemini-environments\n      path: ${pluginBinDir}\n`);

describe(`a stack made with ${PREVIOUS_RELEASE.version} previews with no changes on this checkout (real engine)`, () => {
  const e2e = useE2E();
  let previous: PackedWorkspace;
  let before: Record<string, string>;

  beforeAll(async () => {
    previous = await createPackedWorkspace({ repoRoot, tarball: await packedRelease(repoRoot) });
    const installed = JSON.parse(await fs.promises.readFile(path.join(previous.root, "node_modules", "pulumi-gemini-environments", "package.json"), "utf8")) as { version: string };
    expect(installed.version).toBe(PREVIOUS_RELEASE.version);
  }, RELEASE_BUILD_TIMEOUT_MS + E2E_TEST_TIMEOUT_MS);

  afterAll(() => previous?.cleanup());

  test(`${PREVIOUS_RELEASE.version}: up creates the dynamic resources, the component and the plugin's resource`, async () => {
    const dir = await previous.addProgram("upgrade", PROGRAM, project(path.join(previous.root, "node_modules", "pulumi-gemini-environments", "bin")));
    const stack = await e2e().stack(dir, "upgrade");
    const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
    before = Object.fromEntries(Object.entries(up.outputs).map(([name, { value }]) => [name, value as string]));
    expect(before.credentialId).toMatch(/^token-/);
    expect((await listIds(e2e().client)).sort()).toEqual([before.agentId, before.guardedId, before.servedId].sort());
  }, E2E_TEST_TIMEOUT_MS);

  test("this checkout: preview --expect-no-changes passes, then up changes nothing and writes nothing", async () => {
    expect(before).toBeDefined();
    // The same project and stack, the program now beside this checkout's package.
    const dir = await e2e().workspace.addProgram("upgrade", PROGRAM, project(e2e().pluginBinDir));
    const stack = await e2e().stack(dir, "upgrade");
    const preview = await e2e().run(stack, (s, onOutput) => s.preview({ onOutput, expectNoChanges: true, diff: true }));
    expect(Object.keys(preview.changeSummary)).toEqual(["same"]);

    let up: Awaited<ReturnType<typeof stack.up>> | undefined;
    const requests = await e2e().requestsDuring(async () => {
      up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput, expectNoChanges: true }));
    });
    expect(Object.keys(up!.summary.resourceChanges ?? {})).toEqual(["same"]);
    expect(requests.filter((request) => !request.startsWith("GET "))).toEqual([]);
    expect(Object.fromEntries(Object.entries(up!.outputs).map(([name, { value }]) => [name, value]))).toEqual(before);

    await e2e().run(stack, (s, onOutput) => s.destroy({ onOutput }));
    expect(await listIds(e2e().client)).toEqual([]);
  }, E2E_TEST_TIMEOUT_MS);
});
