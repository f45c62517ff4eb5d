// The functions on the real engine, on environments and credentials made outside Pulumi (by the
// client, as a script or `genv` would), in three languages: Pulumi YAML (`fn::invoke`, the plugin's
// Invoke), TypeScript (the package's own functions, called from the program, and `plugin.*` through
// the plugin) and Python (the generated SDK). Each checks what a user would: the values, listings that
// cross pages (one environment a page here; 51 credentials, 50 a page), the errors of an unknown id
// and of a directory or a missing path, no credential secret in the outputs or `pulumi stack export`,
// and an allowlist entry's transform (a header carrying a token) secret wherever a result shows it.
import type { Stack } from "@pulumi/pulumi/automation";

import { TEST_KEY } from "../support/emulator";
import { E2E_TEST_TIMEOUT_MS, pluginProject, program, useE2E } from "./_workspace";

const TOKEN = "ghp_functions-e2e-7f3a";
/** A token in an allowlist entry's transform header, which the schema marks secret. */
const HEADER_TOKEN = "tok_transform-e2e-91c4";
const REPORT = "# Report\nAll checks green ✓\n";
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);

describe("functions on the real engine, on things made outside Pulumi", () => {
  // One environment a ListEnvironments page: a listing of three follows three pages.
  const e2e = useE2E({ emulator: { maxPageBytes: 1 } });
  let environmentId: string;
  let transformedId: string;
  let allIds: string[];

  beforeAll(async () => {
    const { client } = e2e();
    // The credential first: an allowlist entry may only reference one that exists.
    await client.credentials.create({ id: "gh-token", type: "bearer_token", token: TOKEN });
    const made = await client.create({
      sources: [
        { type: "inline", target: "workspace/report.md", content: REPORT },
        { type: "inline", target: "workspace/logo.png", content: LOGO.toString("base64"), encoding: "base64" },
      ],
      network: { allowlist: [{ domain: "api.github.com", credential: "gh-token" }] },
    });
    environmentId = made.id;
    await client.create({ mode: "self_hosted", network: "disabled" });
    await client.create({ sources: [{ type: "inline", target: "a.txt", content: "a" }] });
    transformedId = (await client.create({ network: { allowlist: [{ domain: "api.example.com", transform: { Authorization: `Bearer ${HEADER_TOKEN}` } }] } })).id;
    allIds = [];
    for await (const environment of client.listAll()) allIds.push(environment.id);
    for (let index = 0; index < 50; index++) {
      await client.credentials.create({ id: `var-${String(index).padStart(2, "0")}`, type: "environment_variable", value: `${TOKEN}-${index}`, injection_location: "header" });
    }
  }, E2E_TEST_TIMEOUT_MS);

  /** The exported state and the outputs hold no credential secret, nor the API key. */
  async function expectNoSecret(stack: Stack, dir: string, outputs: object): Promise<void> {
    const exported = await e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    expect(exported).toContain(environmentId);
    for (const secret of [TOKEN, TEST_KEY]) {
      expect(exported).not.toContain(secret);
      expect(JSON.stringify(outputs)).not.toContain(secret);
    }
  }

  /**
   * The environment whose allowlist entry has a transform, looked up into `output`: a secret output
   * (its value, with --show-secrets, the token), and the token nowhere in plain text: not in the
   * state, not in `pulumi stack output`, not in what the update printed.
   */
  async function expectTransformSecret(stack: Stack, dir: string, up: { outputs: Record<string, { value: unknown; secret: boolean }>; output: string }, output: string): Promise<void> {
    expect(up.outputs[output]).toMatchObject({ secret: true, value: { id: transformedId, network: { allowlist: [{ domain: "api.example.com" }] } } });
    expect(JSON.stringify(up.outputs[output].value)).toContain(`Bearer ${HEADER_TOKEN}`);
    const plainOutputs = Object.values(up.outputs).filter((value) => !value.secret);
    expect(JSON.stringify(plainOutputs)).not.toContain(HEADER_TOKEN);
    expect(up.output).not.toContain(HEADER_TOKEN);
    expect(await e2e().pulumi(["stack", "output", "--json", "--stack", stack.name], dir)).not.toContain(HEADER_TOKEN);
    const exported = await e2e().pulumi(["stack", "export", "--stack", stack.name], dir);
    const stackResource = (JSON.parse(exported) as { deployment: { resources: Array<{ type: string; outputs?: Record<string, unknown> }> } }).deployment.resources.find((resource) => resource.type === "pulumi:pulumi:Stack");
    expect(stackResource?.outputs).toHaveProperty(output); // in the state, as a secret (all of it, or its transform)
    expect(exported).not.toContain(HEADER_TOKEN);
  }

  describe("Pulumi YAML: fn::invoke through the plugin", () => {
    const invoke = (name: string, args: string) => `    fn::invoke:\n      function: gemini-environments:index:${name}\n${args ? `      arguments:\n${args}` : ""}`;

    test(
      "each function's values; every page of both listings; no secret in the outputs or the state",
      async () => {
        const yaml =
          `${pluginProject("functions-yaml", e2e().pluginBinDir, "runtime: yaml")}` +
          "config:\n  environmentId:\n    type: string\n  transformedId:\n    type: string\n" +
          "variables:\n" +
          `  shared:\n${invoke("getEnvironment", "        id: ${environmentId}\n")}` +
          `  all:\n${invoke("getEnvironments", "")}` +
          `  selfHosted:\n${invoke("getEnvironments", "        mode: self_hosted\n")}` +
          `  report:\n${invoke("getEnvironmentFile", "        environmentId: ${environmentId}\n        path: workspace/report.md\n")}` +
          `  logo:\n${invoke("getEnvironmentFile", "        environmentId: ${environmentId}\n        path: /workspace/logo.png\n")}` +
          `  github:\n${invoke("getCredential", "        credentialId: gh-token\n")}` +
          `  credentials:\n${invoke("getCredentials", "")}` +
          `  transformed:\n${invoke("getEnvironment", "        id: ${transformedId}\n")}` +
          "outputs:\n  shared: ${shared}\n  all: ${all.environments}\n  selfHosted: ${selfHosted.environments}\n  report: ${report}\n  logo: ${logo}\n" +
          "  github: ${github}\n  credentials: ${credentials.credentials}\n  transformed: ${transformed}\n";
        const dir = await e2e().workspace.addProgram("functions-yaml", { "index.js": "" }, yaml);
        const stack = await e2e().stack(dir, "yaml", { credentials: "config", config: { environmentId, transformedId } });
        let up: Awaited<ReturnType<Stack["up"]>> & { output: string } = undefined as never;
        const requests = await e2e().requestsDuring(async () => {
          up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
        });
        const out = (name: string) => up.outputs[name]?.value;

        expect(out("shared")).toMatchObject({
          id: environmentId,
          status: "active",
          mode: "on_demand",
          fileCount: 2,
          sizeBytes: Buffer.byteLength(REPORT) + LOGO.length,
          created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
          network: { allowlist: [{ domain: "api.github.com", credential: "gh-token" }] },
          sources: [
            { type: "inline", target: "workspace/report.md", content: REPORT },
            { type: "inline", target: "workspace/logo.png", content: LOGO.toString("base64"), encoding: "base64" },
          ],
        });
        expect((out("all") as Array<{ id: string }>).map((environment) => environment.id)).toEqual(allIds);
        // The listings crossed pages: ListEnvironments once per environment, and once more for the filtered one.
        expect(requests.filter((request) => request === "GET /v1beta/environments").length).toBeGreaterThanOrEqual(allIds.length);
        expect(out("selfHosted")).toEqual([expect.objectContaining({ mode: "self_hosted", network: { disabled: true } })]);
        expect(out("report")).toMatchObject({ path: "workspace/report.md", content: REPORT, sizeBytes: Buffer.byteLength(REPORT), mimeType: "text/markdown" });
        expect(out("logo")).toMatchObject({ path: "workspace/logo.png", contentBase64: LOGO.toString("base64"), sizeBytes: LOGO.length });
        expect(out("logo")).not.toHaveProperty("content");
        expect(out("github")).toEqual({ credentialId: "gh-token", type: "bearer_token", status: "active", createTime: expect.any(String), updateTime: expect.any(String) });
        expect(out("credentials")).toHaveLength(51);
        await expectNoSecret(stack, dir, up.outputs);
        await expectTransformSecret(stack, dir, up, "transformed");
      },
      E2E_TEST_TIMEOUT_MS,
    );

    test.each([
      ["an unknown environment id", "getEnvironment", "        id: env_nosuch\n", /gemini-environments:index:getEnvironment[\s\S]*id: no environment env_nosuch for this API key: check the id \(`genv env list` lists them/],
      ["a path that is a directory", "getEnvironmentFile", "        environmentId: ${environmentId}\n        path: workspace\n", /path: "workspace" in environment env_\w+ is a directory, not a file/],
      ["a missing path", "getEnvironmentFile", "        environmentId: ${environmentId}\n        path: workspace/nosuch.md\n", /path: "workspace\/nosuch.md" in environment env_\w+ does not exist: check the path/],
      ["an unknown credential id", "getCredential", "        credentialId: nosuch\n", /credentialId: no credential nosuch for this API key/],
    ])(
      "%s fails the preview, naming it and what to check",
      async (what, name, args, message) => {
        const slug = what.replace(/\W+/g, "-");
        const yaml = `${pluginProject(`functions-${slug}`, e2e().pluginBinDir, "runtime: yaml")}config:\n  environmentId:\n    type: string\nvariables:\n  found:\n${invoke(name, args)}outputs:\n  found: \${found}\n`;
        const dir = await e2e().workspace.addProgram(`functions-${slug}`, { "index.js": "" }, yaml);
        const stack = await e2e().stack(dir, "yaml", { config: { environmentId } });
        await expect(e2e().run(stack, (s, onOutput) => s.preview({ onOutput }))).rejects.toThrow(message);
      },
      E2E_TEST_TIMEOUT_MS,
    );
  });

  describe("TypeScript: the package's functions, and plugin.* through the plugin", () => {
    test(
      "the …Output and promise forms of both agree with the API; an unknown id fails naming it; a transform stays secret",
      async () => {
        const body = `
const config = new pulumi.Config();
const id = config.require("environmentId");
exports.direct = genv.getEnvironmentOutput({ id });
exports.directIds = genv.getEnvironments().then((result) => result.environments.map((environment) => environment.id));
exports.directLogo = genv.getEnvironmentFileOutput({ environmentId: id, path: "workspace/logo.png" });
exports.directCredentials = genv.getCredentialsOutput().credentials.apply((credentials) => credentials.length);
exports.viaPlugin = genv.plugin.getEnvironmentOutput({ id });
exports.viaPluginReport = genv.plugin.getEnvironmentFile({ environmentId: id, path: "workspace/report.md" }).then((file) => file.content);
exports.viaPluginCredential = genv.plugin.getCredentialOutput({ credentialId: "gh-token" });
exports.viaPluginSelfHosted = genv.plugin.getEnvironmentsOutput({ mode: "self_hosted" }).environments.apply((environments) => environments.length);
exports.unknown = genv.getEnvironment({ id: "env_nosuch" }).then(() => "found", (error) => error.message);
exports.transformed = genv.getEnvironmentOutput({ id: config.require("transformedId") });
exports.transformedViaPlugin = genv.plugin.getEnvironmentOutput({ id: config.require("transformedId") });
exports.unknownViaPlugin = genv.plugin.getCredential({ credentialId: "nosuch" }).then(() => "found", (error) => error.message);
`;
        const dir = await e2e().workspace.addProgram("functions-ts", program(body), pluginProject("functions-ts", e2e().pluginBinDir));
        const stack = await e2e().stack(dir, "ts", { credentials: "config", config: { environmentId, transformedId } });
        const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
        const out = (name: string) => up.outputs[name]?.value;

        const expected = { id: environmentId, status: "active", mode: "on_demand", fileCount: 2, network: { allowlist: [{ domain: "api.github.com", credential: "gh-token" }] } };
        expect(out("direct")).toMatchObject(expected);
        expect(out("viaPlugin")).toMatchObject(expected);
        // The same answer either way, but the access time, which the file reads between them move.
        const { lastAccessed: _plugin, ...viaPlugin } = out("viaPlugin");
        const { lastAccessed: _direct, ...direct } = out("direct");
        expect(viaPlugin).toEqual(direct);
        expect(out("directIds")).toEqual(allIds);
        expect(out("directLogo")).toMatchObject({ contentBase64: LOGO.toString("base64"), sizeBytes: LOGO.length });
        expect(out("directCredentials")).toBe(51);
        expect(out("viaPluginReport")).toBe(REPORT);
        expect(out("viaPluginCredential")).toMatchObject({ credentialId: "gh-token", type: "bearer_token", status: "active" });
        expect(out("viaPluginSelfHosted")).toBe(1);
        expect(out("unknown")).toMatch(/^getEnvironment: id: no environment env_nosuch for this API key: check the id/);
        expect(out("unknownViaPlugin")).toMatch(/gemini-environments:index:getCredential[\s\S]*credentialId: no credential nosuch for this API key/);
        await expectNoSecret(stack, dir, up.outputs);
        await expectTransformSecret(stack, dir, up, "transformed");
        await expectTransformSecret(stack, dir, up, "transformedViaPlugin");
      },
      E2E_TEST_TIMEOUT_MS,
    );
  });

  describe("Python: the generated SDK", () => {
    test(
      "get_environment, get_environments, get_environment_file(_output), get_credential(s): the values; an unknown id fails naming it",
      async () => {
        const main = `import pulumi
import pulumi_gemini_environments as genv

config = pulumi.Config()
environment_id = config.require("environmentId")
shared = genv.get_environment(id=environment_id)
pulumi.export("shared", {"id": shared.id, "status": shared.status, "mode": shared.mode, "fileCount": shared.file_count, "sizeBytes": shared.size_bytes,
                         "created": shared.created, "domains": [entry.domain for entry in shared.network.allowlist], "targets": [source.target for source in shared.sources]})
pulumi.export("ids", [environment.id for environment in genv.get_environments().environments])
pulumi.export("report", genv.get_environment_file_output(environment_id=environment_id, path="workspace/report.md").content)
github = genv.get_credential(credential_id="gh-token")
pulumi.export("github", {"id": github.credential_id, "type": github.type, "status": github.status})
pulumi.export("credentials", len(genv.get_credentials().credentials))
try:
    genv.get_environment(id="env_nosuch")
    pulumi.export("unknown", "found")
except Exception as error:
    pulumi.export("unknown", str(error))
`;
        const dir = await e2e().workspace.addProgram("functions-python", { "__main__.py": main, "index.js": "" }, pluginProject("functions-python", e2e().pluginBinDir, "runtime: python"));
        const stack = await e2e().stack(dir, "python", { python: "sdk", credentials: "config", config: { environmentId } });
        const up = await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
        const out = (name: string) => up.outputs[name]?.value;

        expect(out("shared")).toEqual({
          id: environmentId,
          status: "active",
          mode: "on_demand",
          fileCount: 2,
          sizeBytes: Buffer.byteLength(REPORT) + LOGO.length,
          created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          domains: ["api.github.com"],
          targets: ["workspace/report.md", "workspace/logo.png"],
        });
        expect(out("ids")).toEqual(allIds);
        expect(out("report")).toBe(REPORT);
        expect(out("github")).toEqual({ id: "gh-token", type: "bearer_token", status: "active" });
        expect(out("credentials")).toBe(51);
        expect(out("unknown")).toMatch(/gemini-environments:index:getEnvironment[\s\S]*id: no environment env_nosuch for this API key: check the id/);
        await expectNoSecret(stack, dir, up.outputs);
      },
      E2E_TEST_TIMEOUT_MS,
    );
  });
});
