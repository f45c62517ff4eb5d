/**
 * The calls of a start that make no request, run once while the single executable's startup snapshot
 * is made (start.ts): V8 compiles a function at its first call, so what a call runs (msgpack, the
 * cores' checks and diffs, the hooks linter, the network matcher) is then in the snapshot compiled,
 * not compiled again by the first calls of each of Terraform's 3-5 starts a command. It leaves nothing
 * behind: no provider configuration (ConfigureProvider is not called), no request, and nothing of a
 * killed apply's record (its states have no id, so a plan settles none: the record is never read
 * into the snapshot, whatever the directory it is made in holds).
 */
import { terraformProvider } from "./provider";
import { terraformSchema } from "./schema";
import { encodeValue, terraformValue, type TerraformObject } from "./values";

const ENVIRONMENT = "geminienvironments_environment";
const CREDENTIAL = "geminienvironments_credential";

const HOOKS_CONFIG = JSON.stringify({
  "security-gate": { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] },
});

export async function warmUpCalls(): Promise<void> {
  const handlers = terraformProvider();
  // A call that answers with a diagnostic ran its error path, not what a start runs: a failed warm-up.
  const provider = new Proxy(handlers, {
    get: (target, method: string) => async (request: Record<string, unknown>) => {
      const response = await target[method](request);
      const failed = (response.diagnostics as unknown[] | undefined)?.length ?? (response.error ? 1 : 0);
      if (failed > 0) throw new Error(`${method} answered ${JSON.stringify(response.diagnostics ?? response.error)}`);
      return response;
    },
  });
  const { resources } = terraformSchema();
  const environment = (values: object) => terraformValue(resources[ENVIRONMENT].attributes, values);
  const declared = {
    sources: [
      { type: "inline", target: ".agents/hooks.json", content: HOOKS_CONFIG },
      { type: "inline", target: ".agents/hooks-scripts/gate.py", content: "import json, sys\nprint(json.dumps({'decision': 'allow'}))\n" },
      { type: "inline", target: "workspace/task.txt", content: "task\n" },
    ],
    network: { allowlist: [{ domain: "api.example.com" }] },
  };
  const config = environment(declared);
  const prior = environment({ ...declared, id: "", status: "active", created: "2026-01-01T00:00:00Z", updated: "2026-01-01T00:00:00Z", lastAccessed: "2026-01-01T00:00:00Z", fileCount: 3, sizeBytes: 1 });
  const edited: TerraformObject = { ...prior, sources: [...(prior.sources as TerraformObject[]).slice(0, 2), { ...(prior.sources as TerraformObject[])[2], content: "edited\n" }] };
  const capabilities = { write_only_attributes_allowed: true };

  await provider.ValidateProviderConfig({ config: encodeValue({ api_key: null, base_url: "http://127.0.0.1:8765" }) });
  await provider.ValidateResourceConfig({ type_name: ENVIRONMENT, config: encodeValue(config), client_capabilities: capabilities });
  await provider.ValidateResourceConfig({ type_name: CREDENTIAL, config: encodeValue({ ...terraformValue(resources[CREDENTIAL].attributes, { credentialId: "gh-token", type: "bearer_token" }), token_wo: "a-token", token_wo_version: "1" }), client_capabilities: capabilities });
  await provider.UpgradeResourceState({ type_name: ENVIRONMENT, version: 0, raw_state: { json: Buffer.from(JSON.stringify(prior)) } });
  for (const [priorState, proposed] of [
    [null, { ...config }], // a create
    [prior, prior], // nothing to do
    [prior, edited], // an update in place
    [prior, null], // a destroy
  ] as const) {
    await provider.PlanResourceChange({ type_name: ENVIRONMENT, prior_state: encodeValue(priorState), proposed_new_state: encodeValue(proposed), config: encodeValue(proposed ?? config), prior_private: Buffer.alloc(0) });
  }
  await provider.GetResourceIdentitySchemas({});
  await provider.CallFunction({ name: "egress_allowed", arguments: [encodeValue(config.network), encodeValue("https://api.example.com/v1")] });
}
