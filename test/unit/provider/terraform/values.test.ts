import { encode } from "@msgpack/msgpack";
import { UNKNOWN } from "../../../../provider/environment/inputs";
import { coreValue, conformed, decodeValue, encodeValue, terraformValue } from "../../../../provider/terraform/values";
import { failureDiagnostic, parsePath, terraformPath } from "../../../../provider/terraform/diagnostics";
import { terraformSchema } from "../../../../provider/terraform/schema";

const environment = terraformSchema().resources.geminienvironments_environment.attributes;

describe("DynamicValue", () => {
  test("an unknown is cty's fixext1 of type 0, both ways", () => {
    const { msgpack } = encodeValue({ id: UNKNOWN, sources: [{ content: UNKNOWN }], n: 3, nothing: null }) as { msgpack: Buffer };
    expect([...msgpack.subarray(msgpack.indexOf(0xd4), msgpack.indexOf(0xd4) + 3)]).toEqual([0xd4, 0, 0]);
    expect(decodeValue({ msgpack })).toEqual({ id: UNKNOWN, sources: [{ content: UNKNOWN }], n: 3, nothing: null });
  });

  test("a refined unknown (extension 12, with what Terraform knows of it) is read as unknown", () => {
    // {1: false}: "not null", the refinement Terraform sends most.
    const refinement = encode(new Map([[1, false]]));
    const bytes = Buffer.concat([Buffer.from([0x81, 0xa2, 0x69, 0x64, 0xc7, refinement.length, 12]), Buffer.from(refinement)]);
    expect(decodeValue({ msgpack: bytes })).toEqual({ id: UNKNOWN });
  });

  test("a stored state comes as JSON (UpgradeResourceState's raw_state)", () => {
    expect(decodeValue({ json: Buffer.from('{"id":"env_1","file_count":2}') })).toEqual({ id: "env_1", file_count: 2 });
    expect(decodeValue({})).toBeNull();
  });
});

describe("Terraform's form and the core's", () => {
  const declared = {
    sources: [{ type: "inline", target: "main.py", content: "x", encoding: null, source: null }],
    network: { allowlist: [{ domain: "api.example.com", credential: null, transform: [{ "X-Key": "k" }] }], disabled: null },
    from_environment: null,
    custom_config: '{"pool": "gpu"}',
    mode: UNKNOWN,
  };

  test("snake_case to the core's camelCase, null left out, JSON parsed, unknowns kept", () => {
    expect(coreValue(environment, declared)).toEqual({
      sources: [{ type: "inline", target: "main.py", content: "x" }],
      network: { allowlist: [{ domain: "api.example.com", transform: [{ "X-Key": "k" }] }] },
      customConfig: { pool: "gpu" },
      mode: UNKNOWN,
    });
  });

  test("back: every attribute present, null where unset", () => {
    const object = terraformValue(environment, { fromEnvironment: "env_1", customConfig: { pool: "gpu" }, fileCount: 2, driftedHookFiles: [".agents/hooks.json"] });
    expect(object).toMatchObject({ from_environment: "env_1", custom_config: '{"pool":"gpu"}', file_count: 2, drifted_hook_files: [".agents/hooks.json"], sources: null, network: null });
    expect(Object.keys(object)).toEqual(environment.map((attribute) => attribute.name));
  });

  test("a stored state fits the schema: missing attributes null, unknown ones dropped, however deep", () => {
    const fitted = conformed(environment, { id: "env_1", retired: 1, sources: [{ type: "inline", gone: true }] });
    expect(fitted.retired).toBeUndefined();
    expect(fitted.sources).toEqual([{ type: "inline", content: null, encoding: null, source: null, target: null }]);
    expect(fitted.network).toBeNull();
  });
});

describe("paths", () => {
  test("a core's path is Terraform's attribute path, in its names", () => {
    expect(terraformPath(environment, parsePath("sources[1].content").path).attribute.steps).toEqual([{ attribute_name: "sources" }, { element_key_int: 1 }, { attribute_name: "content" }]);
    expect(terraformPath(environment, parsePath('network.allowlist[0].transform[0]["X-Key"]').path).attribute.steps).toEqual([
      { attribute_name: "network" },
      { attribute_name: "allowlist" },
      { element_key_int: 0 },
      { attribute_name: "transform" },
      { element_key_int: 0 },
      { element_key_string: "X-Key" },
    ]);
    expect(terraformPath(environment, ["fromEnvironment"]).attribute.steps).toEqual([{ attribute_name: "from_environment" }]);
  });

  test("a check failure is a diagnostic at its attribute, naming it as the configuration does", () => {
    const diagnostic = failureDiagnostic(environment, { property: "sources", reason: 'sources[0].target: "../x" escapes the environment root' });
    expect(diagnostic).toEqual({
      severity: "ERROR",
      summary: 'sources[0].target: "../x" escapes the environment root',
      detail: "",
      // Terraform finds `sources[0]` in the configuration's text, not an attribute of the object written there.
      attribute: { steps: [{ attribute_name: "sources" }, { element_key_int: 0 }] },
    });
    expect(failureDiagnostic(environment, { property: "fromEnvironment", reason: "fromEnvironment: is required" }).summary).toBe("from_environment: is required");
  });
});

describe("the server certificate", () => {
  test("is DER that Node's X.509 parser reads, for localhost, self-signed, every time", () => {
    const { X509Certificate } = require("node:crypto") as typeof import("node:crypto");
    const { serverCertificate } = require("../../../../provider/terraform/certificate") as typeof import("../../../../provider/terraform/certificate");
    // Enough starts that a serial number's non-minimal encoding (one in 256) would show.
    for (let i = 0; i < 1500; i++) {
      const { certificateDer } = serverCertificate();
      const certificate = new X509Certificate(certificateDer);
      expect(certificate.subjectAltName).toBe("DNS:localhost");
      expect(certificate.verify(certificate.publicKey)).toBe(true);
    }
  });
});
