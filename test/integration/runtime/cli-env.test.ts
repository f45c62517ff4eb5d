/** `genv env list|get|files|cat|rm` against a real emulator, and every `genv …` a message or the docs name exists. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import type { Command } from "commander";
import { buildProgram } from "../../../cli/main";
import { CLIError } from "../../../cli/errors";
import { runEnvCat } from "../../../cli/commands/env-cat";
import { runEnvFiles } from "../../../cli/commands/env-files";
import { runEnvGet } from "../../../cli/commands/env-get";
import { runEnvList } from "../../../cli/commands/env-list";
import { runEnvRm } from "../../../cli/commands/env-rm";
import { documentationFiles, readDocPage } from "../../support/docs";
import { inline, OTHER_KEY, startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";

let emulator: TestEmulator;
let onDemand: string;
let selfHosted: string;
const BLOB = Buffer.from([0, 1, 2, 0xff, 0xfe]);

beforeAll(async () => {
  emulator = await startTestEmulator();
  const create = async (body: unknown) => (await emulator.json("/v1/environments", { method: "POST", body: JSON.stringify(body) })).body;
  onDemand = (
    await create({
      sources: [
        inline("main.py", "print('Hello, World!')"),
        { type: "inline", encoding: "base64", content: BLOB.toString("base64"), target: "workspace/bin/blob.bin" },
        inline("workspace/src/deep/a.txt", "deep\n"),
      ],
      network: { allowlist: [{ domain: "api.example.com" }] },
    })
  ).id;
  selfHosted = (await create({ mode: "self_hosted", system_instruction: "Be terse.", custom_config: { pool: "gpu" } })).id;
});
afterAll(() => emulator.close());

const env = () => ({ GOOGLE_GEMINI_BASE_URL: emulator.url, GEMINI_API_KEY: TEST_KEY });
const refused = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as CLIError);

describe("genv env list", () => {
  test("a table of every environment, oldest first; --mode filters; --json prints the API's objects", async () => {
    const { output } = await runEnvList({ env: env() });
    const lines = output.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID +MODE +STATUS +FILES +SIZE +CREATED +LAST ACCESSED$/);
    expect(lines[1]).toMatch(new RegExp(`^${onDemand} +on_demand +active +3 +32 bytes +\\d{4}-\\d\\d-\\d\\dT[\\d:]+Z +\\d{4}-`));
    expect(lines[2]).toMatch(new RegExp(`^${selfHosted} +self_hosted +active +0 +0 bytes `));
    expect(lines).toHaveLength(3);

    const filtered = await runEnvList({ env: env(), mode: "self_hosted" });
    expect(filtered.output.trimEnd().split("\n").slice(1).map((line) => line.split(" ")[0])).toEqual([selfHosted]);
    const json = JSON.parse((await runEnvList({ env: env(), mode: "self_hosted", json: true })).output);
    expect(json).toEqual([expect.objectContaining({ id: selfHosted, mode: "self_hosted", custom_config: { pool: "gpu" } })]);
    expect(json[0]).not.toHaveProperty("environment_key");
  });

  test("another key sees none; an unknown mode is the API's 400, exit 1", async () => {
    expect((await runEnvList({ env: { ...env(), GEMINI_API_KEY: OTHER_KEY } })).output).toBe("no environments\n");
    expect((await runEnvList({ env: { ...env(), GEMINI_API_KEY: OTHER_KEY }, mode: "self_hosted" })).output).toBe("no self_hosted environments\n");
    expect(await refused(runEnvList({ env: env(), mode: "SELF_HOSTED" }))).toMatchObject({ exitCode: 1, message: expect.stringMatching(/mode: must be "on_demand" or "self_hosted"/) });
  });
});

describe("genv env get", () => {
  test("the fields, the network as JSON and the sources summarised; --json is the API's object", async () => {
    const { output } = await runEnvGet({ environment: onDemand, env: env() });
    expect(output).toMatch(new RegExp(`^id +${onDemand}\nmode +on_demand\nstatus +active\ncreated +\\S+Z\nupdated +\\S+Z\nlast_accessed +\\S+Z\nfile_count +3\nsize_bytes +32 \\(32 bytes\\)\n`));
    expect(output).toContain('network        {"allowlist":[{"domain":"api.example.com"}]}\n');
    expect(output).toMatch(/sources +3\n  inline +main\.py +22 bytes inline\n  inline +workspace\/bin\/blob\.bin +5 bytes inline \(base64\)\n  inline +workspace\/src\/deep\/a\.txt +5 bytes inline\n$/);
    expect(output).not.toContain("Hello, World");

    const shown = await runEnvGet({ environment: `environments/${selfHosted}`, env: env() });
    expect(shown.output).toContain('system_instruction  "Be terse."\ncustom_config       {"pool":"gpu"}\n');
    expect(shown.output).toContain("network             (all egress allowed)\n");
    expect(shown.output).toMatch(/\nsources +\(none\)\n$/);
    const json = JSON.parse((await runEnvGet({ environment: selfHosted, env: env(), json: true })).output);
    expect(json).toEqual((await emulator.json(`/v1/environments/${selfHosted}`)).body);
  });

  test("an unknown environment, or another key's, is exit 1 with the API's message", async () => {
    expect(await refused(runEnvGet({ environment: "env_nope", env: env() }))).toMatchObject({ exitCode: 1, message: expect.stringContaining("environment env_nope not found") });
    expect(await refused(runEnvGet({ environment: onDemand, env: { ...env(), GEMINI_API_KEY: OTHER_KEY } }))).toMatchObject({ exitCode: 1 });
  });
});

describe("genv env files", () => {
  test("the root's entries, a directory recursively, one file; --json", async () => {
    const root = await runEnvFiles({ environment: onDemand, env: env() });
    expect(root.output).toMatch(/^TYPE +SIZE +MODIFIED +PATH\nfile +22 bytes +\S+Z +main\.py\ndirectory +- +\S+Z +workspace\/\n$/);
    const recursive = await runEnvFiles({ environment: onDemand, path: "workspace", recursive: true, env: env() });
    expect(recursive.output.trimEnd().split("\n").map((line) => line.split(/ +/).pop())).toEqual(["PATH", "workspace/bin/blob.bin", "workspace/src/deep/a.txt"]);
    const one = JSON.parse((await runEnvFiles({ environment: onDemand, path: "/main.py", env: env(), json: true })).output);
    expect(one).toEqual([expect.objectContaining({ path: "main.py", type: "file", size_bytes: "22", mime_type: "text/x-python" })]);
    expect((await runEnvFiles({ environment: selfHosted, env: env() })).output).toBe("no files under the root\n");
  });

  test("a missing path is exit 1", async () => {
    expect(await refused(runEnvFiles({ environment: onDemand, path: "nope", env: env() }))).toMatchObject({ exitCode: 1, message: expect.stringContaining('path "nope" not found') });
  });
});

describe("genv env cat", () => {
  test("the bytes as they are; --json as UTF-8 text or base64", async () => {
    expect((await runEnvCat({ environment: onDemand, path: "workspace/bin/blob.bin", env: env() })).output).toEqual(BLOB);
    expect((await runEnvCat({ environment: onDemand, path: "main.py", env: env() })).output.toString()).toBe("print('Hello, World!')");
    expect(JSON.parse(String((await runEnvCat({ environment: onDemand, path: "/main.py", env: env(), json: true })).output))).toEqual({
      path: "main.py",
      content_type: "text/x-python",
      size_bytes: "22",
      encoding: "utf-8",
      content: "print('Hello, World!')",
    });
    expect(JSON.parse(String((await runEnvCat({ environment: onDemand, path: "workspace/bin/blob.bin", env: env(), json: true })).output))).toMatchObject({
      encoding: "base64",
      content: BLOB.toString("base64"),
      size_bytes: "5",
    });
  });

  test("a directory or a missing file is exit 1", async () => {
    expect(await refused(runEnvCat({ environment: onDemand, path: "workspace", env: env() }))).toMatchObject({ exitCode: 1, message: expect.stringContaining("is a directory") });
    expect(await refused(runEnvCat({ environment: onDemand, path: "nope", env: env() }))).toMatchObject({ exitCode: 1 });
  });
});

describe("genv env rm", () => {
  test("deletes; a second rm is exit 1", async () => {
    const id = (await emulator.json("/v1/environments", { method: "POST", body: "{}" })).body.id;
    expect((await runEnvRm({ environment: `environments/${id}`, env: env() })).output).toBe(`deleted ${id}\n`);
    expect((await emulator.json(`/v1/environments/${id}`)).status).toBe(404);
    expect(await refused(runEnvRm({ environment: id, env: env() }))).toMatchObject({ exitCode: 1, message: expect.stringContaining(`environment ${id} not found`) });
    const other = (await emulator.json("/v1/environments", { method: "POST", body: "{}" })).body.id;
    expect(JSON.parse((await runEnvRm({ environment: other, env: env(), json: true })).output)).toEqual({ id: other, deleted: true });
  });
});

describe("the API rules shared with genv exec", () => {
  test("no API key is exit 2 naming the variables; flags override the environment; an unreachable API is exit 1", async () => {
    expect(await refused(runEnvList({ env: { GOOGLE_GEMINI_BASE_URL: emulator.url } }))).toMatchObject({ exitCode: 2, message: expect.stringMatching(/GOOGLE_API_KEY or GEMINI_API_KEY/) });
    const flags = await runEnvList({ baseUrl: emulator.url, apiKey: TEST_KEY, env: { GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9", GEMINI_API_KEY: "wrong" }, json: true });
    expect(JSON.parse(flags.output).length).toBeGreaterThanOrEqual(2);
    const unreachable = await refused(runEnvGet({ environment: onDemand, env: { GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9", GEMINI_API_KEY: TEST_KEY } }));
    expect(unreachable).toBeInstanceOf(CLIError);
    expect(unreachable?.exitCode).toBe(1);
  }, 60_000);

  test("registered as `genv env …`: cat writes the raw bytes, list --json parses", async () => {
    const written: Array<string | Uint8Array> = [];
    const write = jest.spyOn(process.stdout, "write").mockImplementation((chunk) => (written.push(chunk as string | Uint8Array), true));
    try {
      const flags = ["--base-url", emulator.url, "--api-key", TEST_KEY];
      await buildProgram().parseAsync(["env", "cat", onDemand, "workspace/bin/blob.bin", ...flags], { from: "user" });
      await buildProgram().parseAsync(["env", "list", "--mode", "self_hosted", "--json", ...flags], { from: "user" });
    } finally {
      write.mockRestore();
    }
    expect(Buffer.from(written[0] as Uint8Array)).toEqual(BLOB);
    expect(JSON.parse(String(written[1])).map((e: { id: string }) => e.id)).toEqual([selfHosted]);
  });
});

describe("every `genv …` command a message or the documentation names exists", () => {
  const root = path.resolve(__dirname, "../../..");
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) return files(file);
      return /\.(ts|md)$/.test(name) ? [file] : [];
    });
  const program = buildProgram();
  /** The command a run of words names: undefined when a word is no subcommand of a command that has some. */
  const resolve = (words: string[]): Command | undefined => {
    let command: Command | undefined = program;
    for (const word of words) {
      const next: Command | undefined = command.commands.find((child) => child.name() === word);
      if (!next) return command.commands.length === 0 ? command : undefined; // a leaf: the rest are arguments
      command = next;
    }
    return command;
  };
  // Not commands: the egress proxy's CA is named "genv egress CA for env_…". A word runs to its end:
  // the on_failure wrapper's mark, `genv on_failure deny: …`, names no command "on".
  const NOT_COMMANDS = new Set(["egress"]);
  const unknown = (named: Iterable<string>) => [...named].filter((words) => !NOT_COMMANDS.has(words.split(" ")[0]) && resolve(words.split(" ")) === undefined);

  test("in cli/, emulator/, provider/, client/, hooks/, README.md and docs/", () => {
    const named = new Set<string>();
    for (const file of [...["cli", "emulator", "provider", "client", "hooks"].flatMap((dir) => files(path.join(root, dir))), ...documentationFiles()]) {
      for (const match of readFileSync(file, "utf8").matchAll(/`genv ((?:[a-z][a-z-]*)(?!\w)(?: [a-z][a-z-]*(?!\w))?)/g)) named.add(match[1]);
    }
    expect(named).toContain("env get");
    expect(named).toContain("hooks diff");
    expect(unknown(named)).toEqual([]);
  });

  test("each command line the docs show, in a code span or a code block, names options the command has", () => {
    const problems: string[] = [];
    let lines = 0;
    for (const page of documentationFiles().map(readDocPage)) {
      const texts = page.tokens.flatMap((token) =>
        token.type === "code_inline" ? [token.content] : token.type === "fence" || token.type === "code_block" ? token.content.split("\n") : [],
      );
      for (const text of texts) {
        // From `genv` (or `npx genv`) to the end of the line, less a shell comment.
        for (const match of text.matchAll(/(?:^|[\s$(])genv( [^#`]*)?/g)) {
          const tokens = (match[1] ?? "").trim().split(/\s+/).filter(Boolean);
          const words = tokens.slice(0, 2).filter((token, index, all) => /^[a-z][a-z-]*$/.test(token) && all.slice(0, index).every((before) => /^[a-z][a-z-]*$/.test(before)));
          if (words.length === 0) continue;
          lines++;
          const where = `${path.relative(root, page.file)}: genv ${tokens.join(" ")}`;
          const command = resolve(words);
          if (!command) {
            problems.push(`${where}: no command "genv ${words.join(" ")}"`);
            continue;
          }
          const longs = new Set(["--help", ...command.options.map((option) => option.long)]);
          for (const token of tokens) {
            const flag = /^\[?(--[a-z][a-z-]*)/.exec(token)?.[1];
            if (flag && !longs.has(flag)) problems.push(`${where}: "genv ${command.parent?.parent ? `${command.parent.name()} ` : ""}${command.name()}" has no option ${flag}`);
          }
        }
      }
    }
    expect(lines).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });
});
