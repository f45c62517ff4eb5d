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

test("a network change replaces at the paths it changes, exactly: disabled went, allowlist came", async () => {
  const { requires_replace } = await plan((proposed) => (proposed.network = { allowlist: [{ domain: "api.example.com", credential: null, transform: null }], disabled: null }));
  expect(requires_replace).toEqual([
    { steps: [{ attribute_name: "network" }, { attribute_name: "disabled" }] },
    { steps: [{ attribute_name: "network" }, { attribute_name: "allowlist" }] },
  ]);
});

test("a create plans the configuration as it is and every computed attribute unknown", async () => {
  const proposed = { ...terraformValue(attributes, {}), sources: prior.sources, network: prior.network };
  const response = (await terraformProvider().PlanResourceChange({
    type_name: "geminienvironments_environment",
    prior_state: encodeValue(null),
    proposed_new_state: encodeValue(proposed),
    config: encodeValue(proposed),
    prior_private: Buffer.alloc(0),
  })) as { planned_state: never; requires_replace: unknown[] };
  const computed = attributes.filter((attribute) => attribute.computed).map((attribute) => attribute.name);
  expect(computed).toEqual(["id", "status", "created", "updated", "last_accessed", "file_count", "size_bytes", "environment_key", "drifted_hook_files"]);
  expect(decodeValue(response.planned_state)).toEqual({ ...proposed, ...Object.fromEntries(computed.map((name) => [name, UNKNOWN])) });
  expect(response.requires_replace).toEqual([]);
});

test("a destroy plans a null state, and replaces nothing", async () => {
  const response = (await terraformProvider().PlanResourceChange({
    type_name: "geminienvironments_environment",
    prior_state: encodeValue(prior),
    proposed_new_state: encodeValue(null),
    config: encodeValue(null),
    prior_private: Buffer.from("kept"),
  })) as { planned_state: never; requires_replace: unknown[]; planned_private: Buffer; diagnostics: unknown[] };
  expect(decodeValue(response.planned_state)).toBeNull();
  expect(response).toMatchObject({ requires_replace: [], diagnostics: [], planned_private: Buffer.from("kept") });
});

describe("UpgradeResourceState", () => {
  const upgrade = (version: number, stored: object) =>
    terraformProvider().UpgradeResourceState({ type_name: "geminienvironments_environment", version, raw_state: { json: Buffer.from(JSON.stringify(stored)) } }) as Promise<{ upgraded_state: never; diagnostics: unknown[] }>;

  test("a stored state of this version, as JSON, comes back in the schema's shape: an attribute it lacks null, one the schema dropped gone", async () => {
    const { last_accessed: _, ...older } = prior;
    const { upgraded_state, diagnostics } = await upgrade(0, { ...older, retired_attribute: "from an older provider" });
    expect(diagnostics).toEqual([]);
    expect(decodeValue(upgraded_state)).toEqual({ ...prior, last_accessed: null });
  });

  test("a state from a newer provider is refused, saying to upgrade the provider", async () => {
    await expect(upgrade(1, prior)).rejects.toThrow(
      "the state of this geminienvironments_environment was written by a newer version of the provider (schema version 1, this one knows 0): upgrade the provider",
    );
  });
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
