/**
 * The probe's corpus (`genv hooks probe`): tool calls the runtime can deliver — each valid for its tool
 * as `genv hooks test` validates a case (a path non-empty and without NUL, `target_content` non-empty,
 * `code` at most 1 MiB; test/unit/hooks/probe-corpus.test.ts holds every call to the sandbox's own
 * schemas) — but unkind in content: every string argument empty where the tool takes it, 64 KiB and
 * more, text beyond Latin-1 (CJK, emoji, combining marks, right-to-left), control characters and
 * newlines, shell metacharacters; paths with `..`, absolute and relative, deep, with spaces and
 * leading dashes; large files for `write_to_file`; and the example calls of spec/HOOKS.md (seed 003).
 *
 * Deterministic: the same seed gives the same calls, in the same order (the seed prints with the
 * report, so that a finding can be reproduced). The seed draws the words, characters and depths each
 * class is made of; the classes themselves are always all there.
 *
 * One argument varies at a time, the others kept ordinary, so that a finding's payload says which
 * argument and which class of content a gate cannot take.
 */
import type { SandboxTool } from "../matcher";

// ── shapes ──────────────────────────────────────────────────────────────────────────────────────

export interface ProbeCall {
  tool: SandboxTool;
  args: Record<string, unknown>;
  /** What the call tries, e.g. `code: cjk` or `path: leading dash`: the argument and the class. */
  label: string;
}

// ── defaults ────────────────────────────────────────────────────────────────────────────────────

/** The seed when none is given (any whole number gives a corpus of the same classes). */
export const DEFAULT_PROBE_SEED = 43;
const LONG_CHARS = 64 * 1024 + 1; // just past 64 KiB
const LONGER_CHARS = 512 * 1024; // a long script, half the 1 MiB code_execution takes
const LARGE_FILE_BYTES = [1024 * 1024, 4 * 1024 * 1024]; // write_to_file contents: 1 MiB and 4 MiB
const DEEP_SEGMENTS = 160; // a path deeper than PATH_MAX (4096) once the names are drawn

const ORDINARY = {
  code: "echo hello",
  path: "/workspace/notes.txt",
  content: "hello\n",
  target: "hello",
  replacement: "goodbye",
};

/** spec/HOOKS.md's example calls (seed 003): the security gate's and the privacy gate's. */
const SEED_EXAMPLES: ReadonlyArray<Omit<ProbeCall, "label"> & { label: string }> = [
  { tool: "code_execution", args: { code: "rm -rf /tmp/forbidden", language: "bash" }, label: "seed example: security-gate" },
  { tool: "view_file", args: { path: "workspace/private/employees.json" }, label: "seed example: privacy-gate (private)" },
  { tool: "view_file", args: { path: "workspace/public/summary.json" }, label: "seed example: privacy-gate (public)" },
  { tool: "write_to_file", args: { path: "/workspace/report.md", content: "# Report\n" }, label: "seed example: audit-logging" },
];

// ── the generator ───────────────────────────────────────────────────────────────────────────────

/** Every call of the corpus for `seed`, the seed's examples first, then tool after tool; duplicates removed. */
export function probeCorpus(seed: number = DEFAULT_PROBE_SEED): ProbeCall[] {
  const draw = drawer(seed);
  const texts = textClasses(draw);
  const paths = pathClasses(draw);
  const calls: ProbeCall[] = [...SEED_EXAMPLES];
  const add = (tool: SandboxTool, args: Record<string, unknown>, label: string) => calls.push({ tool, args, label });

  for (const [name, code] of texts) add("code_execution", { code, language: "bash" }, `code: ${name}`);
  add("code_execution", { code: draw.pick(["print('hi')", "import os; print(os.getcwd())"]), language: "python" }, "language: python");
  add("code_execution", { code: ORDINARY.code }, "language: omitted (the tool's default)");

  for (const tool of ["view_file", "list_dir", "delete_file"] as const) {
    for (const [name, path] of paths) add(tool, { path }, `path: ${name}`);
  }

  for (const [name, path] of paths) add("write_to_file", { path, content: ORDINARY.content }, `path: ${name}`);
  for (const [name, content] of texts) add("write_to_file", { path: ORDINARY.path, content }, `content: ${name}`);
  for (const bytes of LARGE_FILE_BYTES) add("write_to_file", { path: ORDINARY.path, content: draw.filler(bytes) }, `content: large file (${bytes / 1024 / 1024} MiB)`);

  const replace = (over: Record<string, string>) => ({ path: ORDINARY.path, target_content: ORDINARY.target, replacement_content: ORDINARY.replacement, ...over });
  for (const [name, path] of paths) add("replace_file_content", replace({ path }), `path: ${name}`);
  for (const [name, text] of texts) if (text !== "") add("replace_file_content", replace({ target_content: text }), `target_content: ${name}`);
  for (const [name, text] of texts) add("replace_file_content", replace({ replacement_content: text }), `replacement_content: ${name}`);

  const seen = new Set<string>();
  return calls.filter((call) => {
    const key = JSON.stringify([call.tool, call.args]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Text for `code`, `content` and the replace tool's two strings: [class, value]. */
function textClasses(draw: Drawer): Array<[string, string]> {
  return [
    ["ordinary", ORDINARY.code],
    ["empty", ""],
    ["64 KiB", draw.filler(LONG_CHARS)],
    ["512 KiB", draw.filler(LONGER_CHARS)],
    ["cjk", `echo ${draw.chars(CJK, 12)}`],
    ["emoji", `echo ${draw.chars(EMOJI, 6)} 👩‍👩‍👧 🏳️‍🌈`],
    ["combining marks", `echo ${draw.chars(COMBINING_BASES, 4).split("").map((c) => c + draw.chars(COMBINING, 3)).join("")}`],
    ["right-to-left", `echo ${draw.chars(ARABIC, 8)} ${draw.chars(HEBREW, 6)} \u202Etxt.exe`],
    ["lone surrogate", `echo \uD800 ${draw.word()}`],
    ["control characters", `echo ${draw.word()}\u0000\u0001\u0007\u001b[31m\u007f\u0085${draw.word()}`],
    ["newlines", `echo one\necho two\r\necho three\u2028echo four\n\n`],
    ["shell metacharacters", `echo $(id) \`whoami\` ; ${draw.word()} | cat && true || false > /tmp/x < /dev/null & '"\\ * ? ~ # ! { } [ ]`],
    ["json in text", `echo '{"decision": "deny"}' "\\"}" ${draw.word()}`],
  ];
}

/** Paths for every tool's `path`: [class, value]. Never empty nor with NUL (the tools refuse those). */
function pathClasses(draw: Drawer): Array<[string, string]> {
  const deep = Array.from({ length: DEEP_SEGMENTS }, () => draw.word()).join("/");
  return [
    ["ordinary", ORDINARY.path],
    ["relative", `workspace/${draw.word()}.txt`],
    ["dot-dot", `../../etc/${draw.pick(["passwd", "shadow", "hosts"])}`],
    ["dot-dot inside", `/workspace/../etc/passwd`],
    ["root", "/"],
    ["dot", "."],
    ["repeated slashes", `//workspace///${draw.word()}//`],
    ["home", `~/${draw.word()}`],
    ["deep", `/workspace/${deep}/${draw.word()}.txt`],
    ["64 KiB", `/workspace/${draw.filler(LONG_CHARS).replace(/ /g, "_")}`],
    ["spaces", `/workspace/my ${draw.word()} (1).txt`],
    ["leading dash", `-${draw.pick(["rf", "n", "-help"])}`],
    ["leading dash inside", `/workspace/-${draw.word()}`],
    ["cjk", `/workspace/${draw.chars(CJK, 6)}.txt`],
    ["emoji", `/workspace/${draw.chars(EMOJI, 3)}.txt`],
    ["combining marks", `/workspace/cafe\u0301${draw.chars(COMBINING, 2)}.txt`],
    ["right-to-left", `/workspace/${draw.chars(HEBREW, 5)}\u202Etxt.sh`],
    ["lone surrogate", `/workspace/\uDC00${draw.word()}.txt`],
    ["control characters", `/workspace/${draw.word()}\n\t\u001b[2J\u007f.txt`],
    ["shell metacharacters", `/workspace/$(touch pwned);\`id\`|&<>*?'"\\.txt`],
  ];
}

// ── seeded drawing ──────────────────────────────────────────────────────────────────────────────

const CJK = "漢字中文日本語한국어測試資料檔案目錄删除写入読込";
const EMOJI = ["😀", "🔥", "🚀", "✅", "❌", "🧪", "💾", "📁"];
const COMBINING = "\u0300\u0301\u0302\u0303\u0308\u030A\u0327\u0336\u20DD";
const COMBINING_BASES = "aeiouz";
const ARABIC = "مرحبابالعالمملف";
const HEBREW = "שלוםעולםקובץ";
const WORDS = ["alpha", "build", "cache", "data", "env", "final", "gate", "hooks", "input", "logs", "main", "notes", "output", "tmp"];

interface Drawer {
  pick<T>(items: readonly T[]): T;
  word(): string;
  /** `count` characters (code points) of `alphabet`. */
  chars(alphabet: string | readonly string[], count: number): string;
  /** Words and spaces, exactly `length` characters. */
  filler(length: number): string;
}

/** mulberry32 (as emulator/api/faults.ts draws its faults): small, fast, the same everywhere. */
function drawer(seed: number): Drawer {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  return {
    pick,
    word: () => pick(WORDS),
    chars: (alphabet, count) => Array.from({ length: count }, () => pick(typeof alphabet === "string" ? [...alphabet] : alphabet)).join(""),
    filler: (length) => {
      // A few hundred drawn words repeated: drawn per character, megabytes would take long to draw.
      const unit = Array.from({ length: 200 }, () => pick(WORDS)).join(" ") + " ";
      return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
    },
  };
}
