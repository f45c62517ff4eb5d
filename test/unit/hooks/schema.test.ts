import { HooksConfig, parseDecision } from "../../../hooks/schema";

describe("HooksConfig", () => {
  test("applies defaults: enabled true, timeout 30", () => {
    const parsed = HooksConfig.parse({ g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "true" }] }] } });
    expect(parsed.g?.enabled).toBe(true);
    expect(parsed.g?.pre_tool_execution?.[0]?.hooks[0]?.timeout).toBe(30);
  });

  test.each([
    [{ g: { pre_tool_use: [] } }],
    [{ g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "x", timeout: 0 }] }] } }],
    [{ g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://x.example.com", timeout: -1 }] }] } }],
    [{ g: { pre_tool_execution: [{ hooks: [] }] } }],
    [{ g: { post_tool_execution: [{ matcher: "*", hooks: [{ type: "http" }] }] } }],
    [[]],
  ])("rejects %j", (value) => {
    expect(HooksConfig.safeParse(value).success).toBe(false);
  });
});

describe("parseDecision: only a recognised deny denies", () => {
  test.each<[string, ReturnType<typeof parseDecision>]>([
    ['{"decision": "deny", "reason": "Destructive command blocked by security gate."}', { decision: "deny", reason: "Destructive command blocked by security gate." }],
    ['  {"decision":"deny"}\n', { decision: "deny" }],
    ['{"decision": "deny", "reason": 42}', { decision: "deny" }],
    ['{"decision": "allow"}', { decision: "allow" }],
    ["{}", { decision: "allow" }],
    ['{"decision": "DENY"}', { decision: "allow" }],
    ['["deny"]', { decision: "allow" }],
    ['"deny"', { decision: "allow" }],
    ["deny", { decision: "allow" }],
    ["", { decision: "allow" }],
    ['log line\n{"decision": "deny"}', { decision: "allow" }],
  ])("%j → %j", (text, expected) => {
    expect(parseDecision(text)).toEqual(expected);
  });
});
