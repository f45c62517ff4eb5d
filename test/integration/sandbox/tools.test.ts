import { readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { sandboxOwner } from "../../../emulator/sandbox";
import { InvalidToolArgsError, UnknownToolError, runTool } from "../../../emulator/sandbox";
import { listTree, makeTree } from "../../support/trees";

describe("the six container tools", () => {
  test("write_to_file creates parent directories and the file persists in the tree", async () => {
    const root = makeTree();
    const result = await runTool("write_to_file", { path: "/workspace/src/app.py", content: "print('hi')\n" }, { root });
    expect(result).toEqual({ output: "Wrote 12 bytes to /workspace/src/app.py", failed: false });
    expect(readFileSync(path.join(root, "workspace/src/app.py"), "utf8")).toBe("print('hi')\n");
    // Owned by the sandbox's host user: the emulator's own uid, or as root one that owns nothing else.
    expect(statSync(path.join(root, "workspace/src/app.py")).uid).toBe(sandboxOwner()?.uid ?? process.getuid!());
  });

  test("view_file returns the content; relative paths are relative to the sandbox's /", async () => {
    const root = makeTree({ "workspace/public/summary.json": '{"headcount": 42}\n' });
    expect(await runTool("view_file", { path: "/workspace/public/summary.json" }, { root })).toEqual({
      output: '{"headcount": 42}\n',
      failed: false,
    });
    expect(await runTool("view_file", { path: "workspace/public/summary.json" }, { root })).toMatchObject({
      output: '{"headcount": 42}\n',
    });
  });

  test("view_file of a missing file fails with the path in the error", async () => {
    const root = makeTree();
    expect(await runTool("view_file", { path: "/workspace/nope.txt" }, { root })).toEqual({
      error: "/workspace/nope.txt: No such file or directory",
      failed: true,
    });
  });

  test("replace_file_content replaces the first occurrence and fails when the target is absent", async () => {
    const root = makeTree({ "workspace/a.txt": "one two one\n" });
    const replaced = await runTool(
      "replace_file_content",
      { path: "/workspace/a.txt", target_content: "one", replacement_content: "1" },
      { root },
    );
    expect(replaced).toEqual({ output: "Replaced the first of 2 occurrences in /workspace/a.txt", failed: false });
    expect(readFileSync(path.join(root, "workspace/a.txt"), "utf8")).toBe("1 two one\n");

    const absent = await runTool(
      "replace_file_content",
      { path: "/workspace/a.txt", target_content: "three", replacement_content: "3" },
      { root },
    );
    expect(absent).toEqual({ error: "target_content was not found in /workspace/a.txt", failed: true });
    expect(readFileSync(path.join(root, "workspace/a.txt"), "utf8")).toBe("1 two one\n");
  });

  test("list_dir lists one entry per line, directories with a trailing slash", async () => {
    const root = makeTree({ "workspace/b.txt": "b", "workspace/a/x.txt": "x", "workspace/.hidden": "" });
    expect(await runTool("list_dir", { path: "/workspace" }, { root })).toEqual({
      output: ".hidden\na/\nb.txt",
      failed: false,
    });
  });

  test("delete_file deletes files and directories", async () => {
    const root = makeTree({ "workspace/a.txt": "a", "workspace/d/e/f.txt": "f", "workspace/keep.txt": "k" });
    expect(await runTool("delete_file", { path: "/workspace/a.txt" }, { root })).toEqual({
      output: "Deleted /workspace/a.txt",
      failed: false,
    });
    expect(await runTool("delete_file", { path: "/workspace/d" }, { root })).toMatchObject({ failed: false });
    expect(listTree(root)).toEqual(["workspace/", "workspace/keep.txt"]);
    expect(await runTool("delete_file", { path: "/workspace/a.txt" }, { root })).toMatchObject({ failed: true });
  });

  test("code_execution runs bash by default in /workspace; changes persist", async () => {
    const root = makeTree({ "workspace/in.txt": "hello\n" });
    const result = await runTool("code_execution", { code: "pwd; tr a-z A-Z < in.txt > out.txt; cat out.txt" }, { root });
    expect(result).toEqual({ output: "/workspace\nHELLO\n", exitCode: 0, failed: false });
    expect(readFileSync(path.join(root, "workspace/out.txt"), "utf8")).toBe("HELLO\n");
  });

  test("code_execution runs python; stderr becomes the error and marks the call failed", async () => {
    const root = makeTree();
    const result = await runTool(
      "code_execution",
      { code: "import sys\nprint(sum(range(10)))\nprint('careful', file=sys.stderr)\nsys.exit(3)", language: "python" },
      { root },
    );
    expect(result).toEqual({ output: "45\n", error: "careful\n", exitCode: 3, failed: true });
  });

  test("code_execution passes code larger than one argv string through stdin", async () => {
    const root = makeTree();
    const code = `# ${"x".repeat(200_000)}\nprint(len(open(__file__).read()) > 200000)\n`;
    expect(await runTool("code_execution", { code, language: "python" }, { root })).toEqual({
      output: "True\n",
      exitCode: 0,
      failed: false,
    });
  });

  test("an unknown tool and bad arguments are typed errors naming the field", async () => {
    const root = makeTree();
    await expect(runTool("read_file", { path: "/x" }, { root })).rejects.toBeInstanceOf(UnknownToolError);
    await expect(runTool("view_file", { path: 3 }, { root })).rejects.toBeInstanceOf(InvalidToolArgsError);
    await expect(runTool("view_file", { path: "/x", mode: "r" }, { root })).rejects.toThrow(
      "args.mode: is not a known field: remove it or check its spelling",
    );
    await expect(runTool("code_execution", { code: "ls", language: "ruby" }, { root })).rejects.toThrow(
      'args.language: must be "bash" or "python"',
    );
    await expect(runTool("write_to_file", { path: "/x" }, { root })).rejects.toMatchObject({
      status: "INVALID_ARGUMENT",
      issues: [{ path: ["args", "content"], message: "must be a string" }],
    });
  });
});
