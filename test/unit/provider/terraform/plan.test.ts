// PlanResourceChange over the Environment's core, called as Terraform calls it (msgpack in and out):
// what replaces, what updates in place, and values not known until apply staying unknown. A plan
// makes no request, so no emulator is needed.
import { UNKNOWN } from "../../../../provider/environment/inputs";
import { terraformProvider } from "../../../../provider/terraform/provider";
import { terraformSchema } from "../../../../provider/terraform/schema";
import { decodeValue, encodeValue, terraformValue, type TerraformObject } from "../../../../provider/terraform/values";

const attributes = terraformSchema().resources.geminienvironments_environment.attributes;
const prior = terraformValue(attributes, {
  id: "env_1",
  sources: [{ type: "inline", target: "a.txt", content: "A" }],
  network: { disabled: true },
  status: "active",
  created: "2026-12-05T00:00:00Z",
  updated: "2026-12-05T00:00:00Z",
  lastAccessed: "2026-12-05T00:00:00Z",
  fileCount: 1,
  sizeBytes: 1,
});

async function plan(change: (proposed: TerraformObject) => void) {
  const proposed = structuredClone(prior);
  change(proposed);
  const response: { planned_state?: unknown; requires_replace?: unknown[]; diagnostics?: unknown[] } = await terraformProvider().PlanResourceChange({
    type_name: "geminienvironments_environment",
    prior_state: encodeValue(prior),
    proposed_new_state: encodeValue(proposed),
    prior_private: Buffer.alloc(0),
  });
  return { ...response, planned: decodeValue(response.planned_state as never) as TerraformObject };
}

test("no change: the prior state, nothing unknown", async () => {
  const { planned, requires_replace } = await plan(() => {});
  expect(requires_replace).toEqual([]);
  expect(planned).toEqual(prior);
});

test("an edited file is an update in place: no replacement, what the update changes unknown, the id kept", async () => {
  const { planned, requires_replace } = await plan((proposed) => ((proposed.sources as TerraformObject[])[0].content = "B"));
  expect(requires_replace).toEqual([]);
  expect(planned).toMatchObject({ id: "env_1", created: prior.created, file_count: UNKNOWN, updated: UNKNOWN, drifted_hook_files: null });
});

test("a network change replaces at its path", async () => {
  const { requires_replace } = await plan((proposed) => (proposed.network = { allowlist: [{ domain: "api.example.com", credential: null, transform: null }], disabled: null }));
  expect(requires_replace).toEqual(expect.arrayContaining([{ steps: [{ attribute_name: "network" }, { attribute_name: "allowlist" }] }]));
});

test("values not known until apply stay unknown: a file's content updates in place, a whole list or the network may replace", async () => {
  const content = await plan((proposed) => ((proposed.sources as TerraformObject[])[0].content = UNKNOWN));
  expect(content.requires_replace).toEqual([]);
  expect((content.planned.sources as TerraformObject[])[0].content).toBe(UNKNOWN);

  const sources = await plan((proposed) => (proposed.sources = UNKNOWN));
  expect(sources.planned.sources).toBe(UNKNOWN);
  expect(sources.requires_replace).toEqual([{ steps: [{ attribute_name: "sources" }] }]);

  const network = await plan((proposed) => (proposed.network = UNKNOWN));
  expect(network.planned.network).toBe(UNKNOWN);
  expect(network.requires_replace).toEqual([{ steps: [{ attribute_name: "network" }] }]);
});

test("a check failure stops the plan at the attribute, named as the configuration names it", async () => {
  const { diagnostics } = await plan((proposed) => ((proposed.sources as TerraformObject[])[0].target = "../x"));
  expect(diagnostics).toEqual([expect.objectContaining({ severity: "ERROR", summary: expect.stringMatching(/^sources\[0\]\.target: "\.\.\/x" escapes/), attribute: { steps: [{ attribute_name: "sources" }, { element_key_int: 0 }] } })]);
});
