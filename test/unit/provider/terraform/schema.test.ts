import { terraformSchema, type TerraformAttribute } from "../../../../provider/terraform/schema";

const schema = terraformSchema();
const attribute = (attributes: TerraformAttribute[], ...path: string[]): TerraformAttribute => {
  const [name, ...rest] = path;
  const found = attributes.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no attribute ${name} among ${attributes.map((candidate) => candidate.name).join(", ")}`);
  return rest.length === 0 ? found : attribute(found.nested!.attributes, ...rest);
};
const environment = schema.resources.geminienvironments_environment.attributes;
const credential = schema.resources.geminienvironments_credential.attributes;

test("every name is snake_case, from the zod properties", () => {
  const names = (attributes: TerraformAttribute[]): string[] => attributes.flatMap((item) => [item.name, ...(item.nested ? names(item.nested.attributes) : [])]);
  const all = [schema.provider, ...Object.values(schema.resources), ...Object.values(schema.dataSources)].flatMap((block) => names(block.attributes));
  expect(all.filter((name) => !/^[a-z][a-z0-9_]*$/.test(name))).toEqual([]);
  expect(environment.map((item) => item.name)).toEqual(expect.arrayContaining(["from_environment", "system_instruction", "custom_config", "update_strategy", "file_count", "size_bytes", "environment_key", "drifted_hook_files"]));
});

test("objects are nested attributes, not blocks: sources a list, network a single object", () => {
  expect(attribute(environment, "sources").nested?.nesting).toBe("list");
  expect(attribute(environment, "sources", "target")).toMatchObject({ type: "string", optional: true });
  expect(attribute(environment, "sources", "type")).toMatchObject({ required: true });
  expect(attribute(environment, "network").nested?.nesting).toBe("single");
  expect(attribute(environment, "network", "allowlist", "domain")).toMatchObject({ required: true, type: "string" });
  expect(attribute(environment, "network", "disabled").type).toBe("bool");
  // The API's other forms (a single transform map) are not Terraform's: the bindable branch is.
  expect(attribute(environment, "network", "allowlist", "transform").type).toEqual(["list", ["map", "string"]]);
  expect(attribute(credential, "injection_location").type).toEqual(["list", "string"]);
  expect(attribute(environment, "custom_config")).toMatchObject({ type: "string", json: true });
});

test("secrets are sensitive, computed outputs computed, a credential's id required", () => {
  const sensitive = (attributes: TerraformAttribute[]) => attributes.filter((item) => item.sensitive).map((item) => item.name);
  expect(sensitive(credential)).toEqual(["token", "value", "client_secret", "refresh_token", "token_wo", "value_wo", "client_secret_wo", "refresh_token_wo"]);
  expect(credential.filter((item) => item.writeOnly).map((item) => [item.name, item.writeOnly])).toEqual([
    ["token_wo", { version: "token_wo_version", plain: "token" }],
    ["value_wo", { version: "value_wo_version", plain: "value" }],
    ["client_secret_wo", { version: "client_secret_wo_version", plain: "client_secret" }],
    ["refresh_token_wo", { version: "refresh_token_wo_version", plain: "refresh_token" }],
  ]);
  expect(attribute(credential, "token_wo").description).toMatch(/^bearer_token: the token, write-only: sent to the API, kept in neither the plan nor the state \(Terraform 1\.11 or OpenTofu 1\.11 and newer\)/);
  expect(sensitive(environment)).toEqual(["environment_key"]);
  expect(attribute(environment, "network", "allowlist", "transform").sensitive).toBe(true);
  expect(attribute(schema.provider.attributes, "api_key")).toMatchObject({ sensitive: true, optional: true });
  for (const name of ["id", "status", "created", "updated", "file_count", "size_bytes", "environment_key", "drifted_hook_files"]) {
    expect(attribute(environment, name)).toMatchObject({ computed: true, optional: false, required: false });
  }
  expect(attribute(credential, "credential_id")).toMatchObject({ required: true });
  // Pulumi's default comes from the URN; Terraform gives a provider no address to derive one from.
  expect(attribute(credential, "credential_id").description).not.toMatch(/Default/);
  expect(attribute(credential, "type")).toMatchObject({ required: true });
});

test("descriptions come from the zod meta, naming attributes by their Terraform names", () => {
  expect(attribute(environment, "update_strategy").description).toContain("`in_place` (default)");
  expect(attribute(environment, "update_strategy").description).toContain("`inPlace`, its name before 0.2.0");
  expect(attribute(environment, "environment_key").description).not.toMatch(/environmentKey/);
  for (const block of [...Object.values(schema.resources), ...Object.values(schema.dataSources)]) {
    expect(block.description).not.toBe("");
    for (const item of block.attributes) expect(`${item.name}: ${item.description}`).not.toMatch(/: $/);
  }
});

test("descriptions are in Terraform's words: attributes by their names, code as HCL, no Pulumi commands or stacks", () => {
  const described = (attributes: TerraformAttribute[]): string[] => attributes.flatMap((item) => [`${item.name}: ${item.description}`, ...(item.nested ? described(item.nested.attributes) : [])]);
  const all = [schema.provider, ...Object.values(schema.resources), ...Object.values(schema.dataSources)].flatMap((block) => [block.description, ...described(block.attributes)]);
  // `inPlace` is a value the provider still reads, named as such.
  expect(all.filter((text) => /\b[a-z]+[A-Z]\w*\b/.test(text.replace("`inPlace`", "")))).toEqual([]);
  expect(all.filter((text) => /`up`|\bstacks?\b|\bpreview\b|\{ ?[\w"-]+: /.test(text))).toEqual([]);
  expect(attribute(environment, "network").description).toContain("`{ allowlist = [...] }` or `{ disabled = true }`");
  expect(schema.resources.geminienvironments_environment.description).toContain("from_environment, mode, system_instruction or custom_config");
  expect(attribute(environment, "drifted_hook_files").description).toContain("the next `terraform apply` uploads");
});

test("data sources: a lookup's arguments in, its result computed", () => {
  const file = schema.dataSources.geminienvironments_environment_file.attributes;
  expect(attribute(file, "environment_id")).toMatchObject({ required: true });
  expect(attribute(file, "content")).toMatchObject({ computed: true });
  expect(attribute(schema.dataSources.geminienvironments_environment.attributes, "id")).toMatchObject({ required: true, computed: false });
  expect(attribute(schema.dataSources.geminienvironments_environments.attributes, "environments", "sources", "content")).toMatchObject({ computed: true });
  const hooks = schema.dataSources.geminienvironments_hooks.attributes;
  expect(attribute(hooks, "config")).toMatchObject({ required: true, type: "string" });
  expect(attribute(hooks, "scripts")).toMatchObject({ optional: true, type: ["map", "string"] });
  expect(attribute(hooks, "sources").nested?.attributes.map((item) => item.name)).toEqual(attribute(environment, "sources").nested?.attributes.map((item) => item.name));
});
