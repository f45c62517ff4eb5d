/**
 * Hooks as a lifecycle, through the dynamic provider's methods against a real emulator with its
 * sandbox: an edited hook script is uploaded and the agent's work stays; a hook file the agent
 * rewrites shows in refresh and the next update restores it; an update that fails part-way leaves a
 * state that says exactly what was uploaded, and the next one finishes.
 */
import * as provider from "../../../provider/environment-provider";
import type { EnvironmentInputs, EnvironmentOutputs } from "../../../provider/environment/inputs";
import { EnvironmentsClient } from "../../../client/client";
import { inline, TEST_KEY } from "../../support/emulator";
import { useProviderEmulator } from "../../support/provider-emulator";

const emulator = useProviderEmulator();

const GATE = ".agents/hooks-scripts/gate.py";
const HOOKS = ".agents/hooks.json";
const hooksJson = JSON.stringify({ gate: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: `python3 /${GATE}` }] }] } });
const gate = (verdict: string) => `import json, sys\njson.load(sys.stdin)\nprint(json.dumps({"decision": "${verdict}"}))\n`;

let client: EnvironmentsClient;
beforeAll(() => {
  client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator().url });
});
afterAll(() => client.close());

async function text(id: string, path: string): Promise<string> {
  return (await client.files.downloadBuffer(id, path)).data.toString("utf8");
}

/** A shell command run by the agent, through the hooks (which allow it). */
async function agent(id: string, code: string): Promise<void> {
  const result = await client.executeTool(id, { name: "code_execution", args: { code, language: "bash" } });
  expect(result).toMatchObject({ decision: "allow", exit_code: 0 });
}

async function up(olds: EnvironmentOutputs, news: EnvironmentInputs): Promise<EnvironmentOutputs> {
  const diff = await provider.diff!((olds as unknown as { id: string }).id, olds, news);
  expect(diff).toMatchObject({ changes: true, replaces: [] });
  const id = (olds as unknown as { id: string }).id;
  return { ...(await provider.update!(id, olds, news)).outs, id } as EnvironmentOutputs;
}

async function created(inputs: EnvironmentInputs): Promise<EnvironmentOutputs & { id: string }> {
  const { id, outs } = await provider.create(inputs);
  return { ...outs, id } as EnvironmentOutputs & { id: string };
}

test("an edited hook script and an added source are uploaded: same id, the agent's file stays, state holds the new inputs", async () => {
  const inputs = { sources: [inline(HOOKS, hooksJson), inline(GATE, gate("allow")), inline("workspace/main.py", "print(1)")] };
  const env = await created(inputs);
  await agent(env.id, "echo 'half done' > /workspace/progress.md");

  const news = { sources: [inputs.sources[0], inline(GATE, gate("allow") + "# reviewed\n"), inputs.sources[2], inline("workspace/README.md", "# agent\n")] };
  const outs = await up(env, news);

  expect(outs).toMatchObject({ id: env.id, sources: news.sources, fileCount: 5 });
  expect(await text(env.id, GATE)).toBe(gate("allow") + "# reviewed\n");
  expect(await text(env.id, "workspace/README.md")).toBe("# agent\n");
  expect(await text(env.id, "workspace/progress.md")).toBe("half done\n");
  // The new state is a no-op for the same program.
  expect((await provider.diff!(env.id, outs, news)).changes).toBe(false);
  await provider.remove!(env.id, outs);
});

test("a hook script the agent rewrites shows in refresh by path; the next update restores it; a file outside the hooks is not checked", async () => {
  const inputs = { sources: [inline(HOOKS, hooksJson), inline(GATE, gate("allow")), inline("workspace/main.py", "print(1)")] };
  const env = await created(inputs);
  const read = async (props: EnvironmentOutputs) => (await provider.read!(env.id, props)).props as EnvironmentOutputs;
  expect(await read(env)).not.toHaveProperty("driftedHookFiles");

  await agent(env.id, `echo 'print("{\\"decision\\": \\"allow\\"}")  # always' > /${GATE} && echo changed > /workspace/main.py`);
  const refreshed = await read(env);
  expect(refreshed.driftedHookFiles).toEqual([GATE]);

  const outs = await up({ ...refreshed, id: env.id } as EnvironmentOutputs, inputs);
  expect(outs.driftedHookFiles).toBeUndefined();
  expect(await text(env.id, GATE)).toBe(gate("allow"));
  expect(await read({ ...outs })).not.toHaveProperty("driftedHookFiles");

  // Removed, or grown far past the declared size: both are drift.
  await agent(env.id, `rm /${HOOKS} && head -c 50000000 /dev/zero > /${GATE}`);
  expect((await read(outs)).driftedHookFiles).toEqual([HOOKS, GATE]);
  await provider.remove!(env.id, outs);
});

test("refresh reads each declared hook file once and compares the bytes: a same-size rewrite is drift, workspace files are not fetched", async () => {
  const inputs = { sources: [inline(HOOKS, hooksJson), inline(GATE, gate("allow")), inline("workspace/main.py", "print(1)")] };
  const env = await created(inputs);
  const readLogged = async (props: EnvironmentOutputs) => {
    const before = emulator().requests.length;
    const outs = (await provider.read!(env.id, props)).props as EnvironmentOutputs;
    return { outs, requests: emulator().requests.slice(before).map(({ method, path }) => `${method} ${path}`) };
  };
  // The least the API allows: its file metadata has no content hash, so only the bytes prove a file unchanged.
  const unchanged = await readLogged(env);
  expect(unchanged.outs).not.toHaveProperty("driftedHookFiles");
  expect(unchanged.requests.sort()).toEqual(
    [`GET /v1beta/environments/${env.id}`, `GET /v1beta/environments/${env.id}/files/${GATE}?alt=media`, `GET /v1beta/environments/${env.id}/files/${HOOKS}?alt=media`].sort(),
  );

  // "deny" for "allow" and one space more: the same size, a different verdict.
  const tampered = gate("deny").replace("import json, sys", "import json,  sys");
  expect(Buffer.byteLength(tampered)).toBe(Buffer.byteLength(gate("allow")));
  // The agent writes it and sets its mtime back: neither size nor `modified` shows the change.
  await agent(env.id, `touch -r /${GATE} /tmp/mtime && echo ${Buffer.from(tampered).toString("base64")} | base64 -d > /${GATE} && touch -r /tmp/mtime /${GATE}`);
  expect(await text(env.id, GATE)).toBe(tampered);
  expect((await readLogged(env)).outs.driftedHookFiles).toEqual([GATE]);
  await provider.remove!(env.id, env);
});

test("an update that fails part-way records what was uploaded; the next one finishes, and a reverted program is put back", async () => {
  const inputs = { sources: [inline("workspace/a.txt", "a1\n"), inline("workspace/b.txt", "b1\n")] };
  const env = await created(inputs);
  // A directory where b.txt was: its upload cannot land (a real failure, not a mock).
  await agent(env.id, "rm /workspace/b.txt && mkdir /workspace/b.txt");

  const news = { sources: [inline("workspace/a.txt", "a2\n"), inline("workspace/b.txt", "b2\n")] };
  const failure = (await provider.update!(env.id, env, news).then(
    () => undefined,
    (error: unknown) => error,
  )) as { message: string; id: string; properties: EnvironmentOutputs };
  expect(failure.message).toMatch(/uploading workspace\/b\.txt failed \(1 of 2 files uploaded\).*run up again to finish/);
  expect(failure.id).toBe(env.id);
  expect(failure.properties.sources).toEqual([news.sources[0], inputs.sources[1]]);
  expect(await text(env.id, "workspace/a.txt")).toBe("a2\n");

  // The engine keeps those properties as the state: the next up diffs from them.
  const partial = { ...failure.properties, id: env.id } as EnvironmentOutputs;
  await agent(env.id, "rmdir /workspace/b.txt");
  const finished = await up(partial, news);
  expect(finished.sources).toEqual(news.sources);
  expect(await text(env.id, "workspace/b.txt")).toBe("b2\n");

  // Had the state kept the old inputs, going back to them would look like no change and leave a2 in place.
  const reverted = await up(finished, inputs);
  expect(await text(env.id, "workspace/a.txt")).toBe("a1\n");
  expect(reverted.sources).toEqual(inputs.sources);
  await provider.remove!(env.id, reverted);
});
