/**
 * `on_failure` on `geminienvironments_hooks` (provider/terraform/hooks.ts): the default for every
 * command handler that sets none, compiled as HookBundle compiles it; refusals at the attribute named.
 */
import { readHooks } from "../../../../provider/terraform/hooks";

const config = (handler: Record<string, unknown>) => JSON.stringify({ gate: { pre_tool_execution: [{ matcher: "code_execution", hooks: [handler] }] } });
const gate = { type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 };
const scripts = { "gate.py": "print('{}')\n" };

test("on_failure = \"deny\": hooks_json runs the wrapper and holds no on_failure; the sources ship the wrapper", () => {
  const read = readHooks({ config: config(gate), scripts, on_failure: "deny" });
  expect(read.errors).toEqual([]);
  expect(read.result!.hooksJson).not.toContain("on_failure");
  expect(JSON.parse(read.result!.hooksJson).gate.pre_tool_execution[0].hooks[0].command).toBe("bash /.agents/hooks-scripts/genv-on-failure-deny.sh 8 'python3 /.agents/hooks-scripts/gate.py'");
  expect(read.result!.sources.map((source) => source.target)).toEqual([".agents/hooks.json", ".agents/hooks-scripts/gate.py", ".agents/hooks-scripts/genv-on-failure-deny.sh"]);
  // A handler's own on_failure in the config does the same; without either, nothing is wrapped.
  expect(readHooks({ config: config({ ...gate, on_failure: "deny" }), scripts }).result!.hooksJson).toBe(read.result!.hooksJson);
  expect(readHooks({ config: config(gate), scripts }).result!.sources).toHaveLength(2);
});

test("refusals name the attribute: deny on an http handler (config), a value that is not allow or deny (on_failure)", () => {
  const http = readHooks({ config: config({ type: "http", url: "https://h.example.com", on_failure: "deny" }) });
  expect(http.errors.map((issue) => [issue.path.join("."), issue.code])).toEqual([["config", "http-on-failure-deny"]]);
  const bad = readHooks({ config: config(gate), scripts, on_failure: "never" as never });
  expect(bad.errors.map((issue) => [issue.path.join("."), issue.code])).toEqual([["on_failure", "invalid-value"]]);
});
