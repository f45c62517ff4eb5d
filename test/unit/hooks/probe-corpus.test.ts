/**
 * The probe's corpus: only calls the runtime can deliver (each valid for its tool, by the sandbox's own
 * schemas, as `genv hooks test` checks a case), every class the issue lists for every string argument
 * of every tool, deterministic per seed.
 */
import { parseToolCall } from "../../../emulator/sandbox";
import { SANDBOX_TOOLS } from "../../../hooks/matcher";
import { DEFAULT_PROBE_SEED, probeCorpus } from "../../../hooks/probe/corpus";

const corpus = probeCorpus();
const strings = (tool: string, arg: string) => corpus.filter((call) => call.tool === tool).map((call) => call.args[arg]).filter((value): value is string => typeof value === "string");

test("every call is one the runtime delivers: valid for its tool", () => {
  for (const call of corpus) expect(() => parseToolCall(call.tool, call.args)).not.toThrow();
  expect(new Set(corpus.map((call) => call.tool))).toEqual(new Set(SANDBOX_TOOLS));
});

test("the same seed gives the same calls; another seed other content of the same classes", () => {
  expect(probeCorpus(DEFAULT_PROBE_SEED)).toEqual(corpus);
  const other = probeCorpus(7);
  expect(other.map((call) => [call.tool, call.label])).toEqual(corpus.map((call) => [call.tool, call.label]));
  expect(other).not.toEqual(corpus);
});

test("no two calls are the same", () => {
  const keys = corpus.map((call) => JSON.stringify([call.tool, call.args]));
  expect(new Set(keys).size).toBe(keys.length);
});

const TEXT_ARGS: Array<[string, string]> = [["code_execution", "code"], ["write_to_file", "content"], ["replace_file_content", "target_content"], ["replace_file_content", "replacement_content"]];
const PATH_TOOLS = ["view_file", "write_to_file", "replace_file_content", "list_dir", "delete_file"];

test.each(TEXT_ARGS)("%s.%s: empty (where the tool takes it), 64 KiB and more, beyond Latin-1, control characters and newlines, shell metacharacters", (tool, arg) => {
  const values = strings(tool, arg);
  if (arg !== "target_content") expect(values).toContain(""); // the one string a tool refuses empty
  expect(values.some((value) => value.length >= 64 * 1024)).toBe(true);
  expect(values.some((value) => /\p{Script=Han}/u.test(value))).toBe(true);
  expect(values.some((value) => /\p{Extended_Pictographic}/u.test(value))).toBe(true);
  expect(values.some((value) => /\p{M}/u.test(value))).toBe(true);
  expect(values.some((value) => /[\p{Script=Hebrew}\p{Script=Arabic}]/u.test(value))).toBe(true);
  expect(values.some((value) => /[\u0000-\u0008\u001b\u007f]/.test(value))).toBe(true);
  expect(values.some((value) => value.includes("\n") && value.includes("\r\n"))).toBe(true);
  expect(values.some((value) => /\$\(.*`.*;.*\|/.test(value))).toBe(true);
});

test.each(PATH_TOOLS)("%s.path: .., absolute and relative, deep, spaces, leading dashes, beyond Latin-1, control characters", (tool) => {
  const paths = strings(tool, "path");
  expect(paths.some((p) => p.split("/").includes(".."))).toBe(true);
  expect(paths.some((p) => p.startsWith("/"))).toBe(true);
  expect(paths.some((p) => !p.startsWith("/"))).toBe(true);
  expect(paths.some((p) => p.split("/").length > 100)).toBe(true);
  expect(paths.some((p) => p.length >= 64 * 1024)).toBe(true);
  expect(paths.some((p) => p.includes(" "))).toBe(true);
  expect(paths.some((p) => p.startsWith("-"))).toBe(true);
  expect(paths.some((p) => /\p{Script=Han}/u.test(p))).toBe(true);
  expect(paths.some((p) => p.includes("\n"))).toBe(true);
  expect(paths.some((p) => /[;|&$`]/.test(p))).toBe(true);
});

test("write_to_file carries large files, and the seed's example calls are in", () => {
  expect(Math.max(...strings("write_to_file", "content").map((content) => content.length))).toBeGreaterThanOrEqual(4 * 1024 * 1024);
  expect(corpus).toEqual(expect.arrayContaining([
    expect.objectContaining({ tool: "code_execution", args: { code: "rm -rf /tmp/forbidden", language: "bash" } }),
    expect.objectContaining({ tool: "view_file", args: { path: "workspace/private/employees.json" } }),
  ]));
});
