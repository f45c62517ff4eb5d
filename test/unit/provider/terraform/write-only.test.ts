// The credential's write-only secrets (`token_wo` with `token_wo_version`) as Terraform calls the
// provider (msgpack in and out): offered in the schema, refused by an engine that does not say it takes
// them, in conflict with their plain attribute, and planned as null: a new value alone plans nothing, a
// new version an update in place. A plan makes no request, so no emulator is needed; applying them is
// test/e2e/terraform.test.ts's, through Terraform and OpenTofu.
import { UNKNOWN } from "../../../../provider/environment/inputs";
import { terraformProvider } from "../../../../provider/terraform/provider";
import { terraformSchema } from "../../../../provider/terraform/schema";
import { decodeValue, encodeValue, terraformValue, type TerraformObject } from "../../../../provider/terraform/values";

const provider = terraformProvider();
const type_name = "geminienvironments_credential";
const attributes = terraformSchema().resources[type_name].attributes;
const object = (values: TerraformObject) => ({ ...terraformValue(attributes, {}), ...values });
const prior = object({ id: "gh", credential_id: "gh", type: "bearer_token", token_wo_version: 1, status: "active", create_time: "t0", update_time: "t0" });
const configured = object({ credential_id: "gh", type: "bearer_token", token_wo: "secret-1", token_wo_version: 1 });

async function validate(config: TerraformObject, writeOnlyAllowed = true) {
  const response = await provider.ValidateResourceConfig({ type_name, config: encodeValue(config), client_capabilities: { write_only_attributes_allowed: writeOnlyAllowed } });
  return (response.diagnostics as Array<{ summary: string; attribute?: unknown }>).map((diagnostic) => diagnostic.summary);
}

async function plan(config: TerraformObject, priorState: TerraformObject | null = prior) {
  // Terraform's proposed state: the configuration's inputs, each write-only one null, the prior computed attributes.
  const proposed = Object.fromEntries(attributes.map(({ name, computed, writeOnly }) => [name, writeOnly ? null : computed ? (priorState?.[name] ?? UNKNOWN) : config[name]]));
  const response = (await provider.PlanResourceChange({
    type_name,
    prior_state: encodeValue(priorState),
    proposed_new_state: encodeValue(proposed),
    config: encodeValue(config),
    prior_private: Buffer.alloc(0),
  })) as { planned_state?: unknown; requires_replace?: unknown[]; diagnostics?: unknown[] };
  return { ...response, planned: decodeValue(response.planned_state as never) as TerraformObject };
}

test("the schema offers each secret write-only, sensitive, with a version; the plain attributes stay sensitive", async () => {
  const { resource_schemas } = (await provider.GetProviderSchema({})) as { resource_schemas: Record<string, { block: { attributes: Array<Record<string, unknown>> } }> };
  const served = resource_schemas[type_name].block.attributes;
  const flags = (name: string) => {
    const found = served.find((attribute) => attribute.name === name)!;
    return { sensitive: found.sensitive, write_only: found.write_only, optional: found.optional, type: Buffer.from(found.type as Buffer).toString() };
  };
  for (const secret of ["token", "value", "client_secret", "refresh_token"]) {
    expect(flags(secret)).toEqual({ sensitive: true, write_only: false, optional: true, type: '"string"' });
    expect(flags(`${secret}_wo`)).toEqual({ sensitive: true, write_only: true, optional: true, type: '"string"' });
    expect(flags(`${secret}_wo_version`)).toEqual({ sensitive: false, write_only: false, optional: true, type: '"number"' });
  }
});

test("validate: both of a pair is an error naming both; a write-only value needs an engine that takes it; a version needs its value", async () => {
  expect(await validate(configured)).toEqual([]);
  expect(await validate({ ...configured, token: "plain" })).toEqual(["token and token_wo: set one of them, not both (token_wo is write-only: the secret stays out of plan and state)"]);
  expect(await validate(configured, false)).toEqual([
    "token_wo: this engine does not take write-only attributes (Terraform 1.11 or OpenTofu 1.11 and newer do): upgrade it, or set token, which the state keeps (sensitive)",
  ]);
  expect(await validate({ ...configured, token_wo: null })).toEqual([
    "token_wo_version: set without token_wo: set token_wo, the secret it versions, or remove token_wo_version",
    "token: is required for a bearer_token credential",
  ]);
  // A write-only secret of another type's is named as configured.
  expect(await validate({ ...configured, token_wo: null, token_wo_version: null, value_wo: "v" })).toEqual([
    "value_wo: is not used by a bearer_token credential (its fields: token, headerName, prefix)",
    "token: is required for a bearer_token credential",
  ]);
});

test("a create plans the write-only value as null and the computed attributes unknown", async () => {
  const { planned, requires_replace } = await plan(configured, null);
  expect(requires_replace).toEqual([]);
  expect(planned).toEqual({ ...configured, token_wo: null, id: UNKNOWN, status: UNKNOWN, create_time: UNKNOWN, update_time: UNKNOWN });
});

test("a new write-only value with the same version plans nothing; a new version plans an update in place, the value still null", async () => {
  const same = await plan({ ...configured, token_wo: "secret-2" });
  expect(same.planned).toEqual(prior);
  expect(same.requires_replace).toEqual([]);

  const rotated = await plan({ ...configured, token_wo: "secret-2", token_wo_version: 2 });
  expect(rotated.requires_replace).toEqual([]);
  expect(rotated.planned).toEqual({ ...prior, token_wo_version: 2, status: UNKNOWN, update_time: UNKNOWN });
});

test("after an import (no secret, no version in the state) the write-only value is sent by an update in place", async () => {
  const imported = { ...prior, token_wo_version: null };
  const { planned, requires_replace } = await plan(configured, imported);
  expect(requires_replace).toEqual([]);
  expect(planned).toEqual({ ...prior, token_wo_version: 1, status: UNKNOWN, update_time: UNKNOWN });
});
