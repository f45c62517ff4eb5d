// Resource identity (protocol 6.9) as Terraform calls the provider: the schemas, an identity stored by
// an older provider upgraded, and the identity a plan keeps. Reading, applying and importing by identity
// go through the API: test/e2e/terraform.test.ts, with OpenTofu 1.12.
import { terraformProvider } from "../../../../provider/terraform/provider";
import { terraformSchema } from "../../../../provider/terraform/schema";
import { decodeValue, encodeValue, terraformValue } from "../../../../provider/terraform/values";

const provider = terraformProvider();

test("an environment is identified by { id }, a credential by { credential_id }: a string, required to import", async () => {
  const { identity_schemas } = (await provider.GetResourceIdentitySchemas({})) as {
    identity_schemas: Record<string, { version: number; identity_attributes: Array<{ name: string; type: Buffer; required_for_import: boolean }> }>;
  };
  const summary = Object.fromEntries(
    Object.entries(identity_schemas).map(([type, schema]) => [type, { version: schema.version, attributes: schema.identity_attributes.map((attribute) => [attribute.name, JSON.parse(String(attribute.type)), attribute.required_for_import]) }]),
  );
  expect(summary).toEqual({
    geminienvironments_environment: { version: 0, attributes: [["id", "string", true]] },
    geminienvironments_credential: { version: 0, attributes: [["credential_id", "string", true]] },
  });
});

test("UpgradeResourceIdentity takes a stored identity (JSON) as it is; one from a newer provider is refused", async () => {
  const upgrade = (version: number) =>
    provider.UpgradeResourceIdentity({ type_name: "geminienvironments_credential", version, raw_identity: { json: Buffer.from('{"credential_id":"gh"}') } }) as Promise<{
      upgraded_identity?: { identity_data: never };
      diagnostics: Array<{ summary: string }>;
    }>;
  const current = await upgrade(0);
  expect(current.diagnostics).toEqual([]);
  expect(decodeValue(current.upgraded_identity!.identity_data)).toEqual({ credential_id: "gh" });
  expect((await upgrade(1)).diagnostics.map((diagnostic) => diagnostic.summary)).toEqual([
    "the identity of this geminienvironments_credential was written by a newer version of the provider (identity version 1, this one knows 0): upgrade the provider",
  ]);
});

test("a plan keeps the identity of what exists (an update's, a replacement's until it is made again); a create's and a destroy's is left to apply", async () => {
  const attributes = terraformSchema().resources.geminienvironments_environment.attributes;
  const prior = terraformValue(attributes, { id: "env_1", sources: [{ type: "inline", target: "a.txt", content: "A" }], status: "active", created: "t", updated: "t", lastAccessed: "t", fileCount: 1, sizeBytes: 1 });
  const plan = async (priorState: unknown, proposed: unknown) =>
    (await provider.PlanResourceChange({
      type_name: "geminienvironments_environment",
      prior_state: encodeValue(priorState),
      proposed_new_state: encodeValue(proposed),
      config: encodeValue(proposed),
      prior_private: Buffer.alloc(0),
    })) as { planned_identity?: { identity_data: never } };
  const edited = { ...prior, sources: [{ type: "inline", target: "a.txt", content: "B", encoding: null, source: null }] };
  expect(decodeValue((await plan(prior, edited)).planned_identity!.identity_data)).toEqual({ id: "env_1" });
  expect((await plan(null, edited)).planned_identity).toBeFalsy();
  expect((await plan(prior, null)).planned_identity).toBeFalsy();
});
