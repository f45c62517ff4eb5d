import { check } from "../../../provider/environment-provider";
import { UNKNOWN } from "../../../provider/environment/inputs";
import type { Source } from "../../../client/schemas";

const hooksJson = (config: unknown): Source => ({ type: "inline", target: ".agents/hooks.json", content: JSON.stringify(config) });
const script: Source = { type: "inline", target: ".agents/hooks-scripts/gate.py", content: "print('{}')" };
const workspace: Source = { type: "inline", target: "workspace/main.py", content: "print('hi')" };

const gate = (matcher: string) => ({
  "security-gate": { pre_tool_execution: [{ matcher, hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }] },
});

async function failures(sources: unknown[], network?: unknown) {
  const result = await check({} as never, { sources, network } as never);
  return result.failures ?? [];
}

describe("Environment check lints .agents/hooks.json", () => {
  test("a glob matcher fails, naming the source and the JSON pointer", async () => {
    expect(await failures([workspace, script, hooksJson(gate("*_file"))])).toEqual([
      {
        property: "sources",
        reason: expect.stringMatching(/^sources\[2\]\.content: \/security-gate\/pre_tool_execution\/0\/matcher: glob-matcher: "\*_file" is a shell glob/),
      },
    ]);
  });

  test("a clean config passes (the inline-sourced warning is not a failure)", async () => {
    expect(await failures([hooksJson(gate("code_execution")), script])).toEqual([]);
  });

  test("a credential in a header fails without echoing it", async () => {
    const secret = "Bearer sk-live-0123456789abcdefSECRET";
    const config = {
      audit: { post_tool_execution: [{ matcher: "view_file", hooks: [{ type: "http", url: "https://telemetry.example.com/e", headers: { Authorization: secret } }] }] },
    };
    const found = await failures([hooksJson(config)]);
    expect(found).toHaveLength(1);
    expect(found[0]?.reason).toMatch(/^sources\[0\]\.content: \/audit\/post_tool_execution\/0\/hooks\/0\/headers\/Authorization: secret-in-header: /);
    expect(JSON.stringify(found)).not.toContain("sk-live");
  });

  test("base64 content is decoded before linting", async () => {
    const source = { type: "inline", target: ".agents/hooks.json", encoding: "base64", content: Buffer.from(JSON.stringify(gate("view_*"))).toString("base64") };
    expect((await failures([source])).map((f) => f.reason)).toEqual([expect.stringContaining("glob-matcher")]);
  });

  test("an HTTP hook to a host the network blocks fails; an unknown network is not held against it", async () => {
    const config = { audit: { post_tool_execution: [{ matcher: "view_file", hooks: [{ type: "http", url: "https://telemetry.example.com/e" }] }] } };
    const blocked = await failures([hooksJson(config)], { allowlist: [{ domain: "api.example.com" }] });
    expect(blocked.map((f) => f.reason)).toEqual([expect.stringMatching(/^sources\[0\]\.content: \/audit\/post_tool_execution\/0\/hooks\/0\/url: http-host-not-allowlisted: /)]);
    expect(await failures([hooksJson(config)], { allowlist: [{ domain: "telemetry.example.com" }] })).toEqual([]);
    expect(await failures([hooksJson(config)], UNKNOWN)).toEqual([]);
  });

  test("invalid JSON fails by position only, never quoting the text", async () => {
    const found = await failures([{ type: "inline", target: ".agents/hooks.json", content: '{"g": {"Authorization": "sk-secret' }]);
    expect(found.map((f) => f.reason)).toEqual([expect.stringMatching(/^sources\[0\]\.content: is not valid JSON/)]);
    expect(JSON.stringify(found)).not.toContain("sk-secret");
  });

  test("a hooks.json checked again (a fleet's environments share one) fails at each one's own index, judged by each one's network", async () => {
    const config = { audit: { post_tool_execution: [{ matcher: "view_*", hooks: [{ type: "http", url: "https://telemetry.example.com/e" }] }] } };
    const blocked = { allowlist: [{ domain: "api.example.com" }] };
    const reasons = async (sources: unknown[], network?: unknown) => (await failures(sources, network)).map((f) => f.reason.replace(/: .*?: /, " "));
    expect(await reasons([hooksJson(config)], blocked)).toEqual([expect.stringMatching(/^sources\[0\]\.content glob-matcher/), expect.stringMatching(/^sources\[0\]\.content http-host-not-allowlisted/)]);
    expect(await reasons([workspace, hooksJson(config)], blocked)).toEqual([expect.stringMatching(/^sources\[1\]\.content glob-matcher/), expect.stringMatching(/^sources\[1\]\.content http-host-not-allowlisted/)]);
    expect(await reasons([workspace, hooksJson(config)], { allowlist: [{ domain: "telemetry.example.com" }] })).toEqual([expect.stringMatching(/^sources\[1\]\.content glob-matcher/)]);
  });

  test("other targets and unknown sources are not linted", async () => {
    const elsewhere = { ...hooksJson(gate("*_file")), target: "workspace/hooks.json" };
    expect(await failures([elsewhere, { type: "inline", target: ".agents/hooks.json", content: UNKNOWN }])).toEqual([]);
  });
});
