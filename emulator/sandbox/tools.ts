/**
 * The six container tools of the Environments sandbox, each run inside a fresh bubblewrap sandbox
 * over the environment's tree (never on the host's view of the tree, where a symlink the agent
 * planted could lead to a host file).
 *
 * Decisions where the spec is silent:
 * - Paths are absolute in the sandbox (`/workspace/a.txt`) or relative to its `/` (`workspace/a.txt`).
 * - `replace_file_content` replaces the first occurrence of `target_content` and says how many it
 *   found; absent text (or an empty target) is an error.
 * - `delete_file` deletes a file or symlink, or a directory with everything under it.
 * - `list_dir` lists names sorted, one per line, directories (and links to them) with a trailing `/`.
 * - `failed` (the post hook's `error`) is set exactly when `error` is: stderr was written, a
 *   filesystem operation failed, or the call was killed (timeout, output cap, memory of the whole call).
 */
import { z } from "zod";
import { validationIssues } from "../../client/issues";
import { DEFAULT_LIMITS, type SandboxLimits, type SandboxResult, runInSandbox } from "./bwrap";
import { FILEOPS_PY, MAX_VIEW_BYTES } from "./_fileops";
import type { SandboxEgress } from "./network";
import { InvalidToolArgsError, SandboxError, UnknownToolError } from "./errors";
import { formatBytes } from "../../client/units";

// ── schemas ─────────────────────────────────────────────────────────────────────────────────────

const SandboxPath = z
  .string({ error: "must be a string path, e.g. /workspace/main.py" })
  .min(1, { error: "must not be empty" })
  .refine((p) => !p.includes("\0"), { error: "must not contain NUL characters" });

export const CodeExecutionArgs = z.strictObject({
  code: z.string({ error: "must be a string" }).max(1024 * 1024, { error: "must be at most 1 MiB" }),
  language: z.enum(["bash", "python"], { error: 'must be "bash" or "python"' }).default("bash"),
});
export const ViewFileArgs = z.strictObject({ path: SandboxPath });
export const WriteToFileArgs = z.strictObject({
  path: SandboxPath,
  content: z.string({ error: "must be a string" }),
});
export const ReplaceFileContentArgs = z.strictObject({
  path: SandboxPath,
  target_content: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }),
  replacement_content: z.string({ error: "must be a string" }),
});
export const ListDirArgs = z.strictObject({ path: SandboxPath });
export const DeleteFileArgs = z.strictObject({ path: SandboxPath });

/** Argument schema of each container tool, by tool name. */
export const TOOL_ARGS = {
  code_execution: CodeExecutionArgs,
  view_file: ViewFileArgs,
  write_to_file: WriteToFileArgs,
  replace_file_content: ReplaceFileContentArgs,
  list_dir: ListDirArgs,
  delete_file: DeleteFileArgs,
} as const;
export type ToolName = keyof typeof TOOL_ARGS;
export const TOOL_NAMES = Object.keys(TOOL_ARGS) as ToolName[];
export type ToolArgs<T extends ToolName> = z.infer<(typeof TOOL_ARGS)[T]>;

/** What a tool call returns to the model (and to the post hook). */
export const ToolResult = z.object({
  output: z.string().optional(),
  error: z.string().optional(),
  exitCode: z.number().int().optional(),
  failed: z.boolean(),
});
export type ToolResult = z.infer<typeof ToolResult>;

// ── implementation ──────────────────────────────────────────────────────────────────────────────

export interface ToolContext {
  /** The environment tree on the host (the sandbox's `/`). */
  root: string;
  /** Wall-clock limit; default 60 s for code_execution, 15 s for the file tools. */
  timeoutMs?: number;
  /** Overrides of the sandbox limits (`DEFAULT_LIMITS`). */
  limits?: Partial<SandboxLimits>;
  /** Extra environment variables for the sandbox. */
  env?: Readonly<Record<string, string>>;
  /** Network egress under the environment's policy; omitted: no network (see `RunInSandboxOptions`). */
  egress?: SandboxEgress;
  /** Paths of the tree mounted read-only (see `RunInSandboxOptions.readOnly`). */
  readOnly?: readonly string[];
}

const CODE_TIMEOUT_MS = 60_000; // 60 s
const FILE_TIMEOUT_MS = 15_000; // 15 s
const ARGV_CODE_MAX = 100_000; // bytes; larger code goes through stdin (one argv string is capped at 128 KiB)

/** Validates `args` for `name`; throws UnknownToolError or InvalidToolArgsError naming the field. */
export function parseToolCall(name: string, args: unknown): { name: ToolName; args: ToolArgs<ToolName> } {
  if (!Object.hasOwn(TOOL_ARGS, name)) throw new UnknownToolError(name, TOOL_NAMES);
  const tool = name as ToolName;
  const parsed = TOOL_ARGS[tool].safeParse(args ?? {});
  if (!parsed.success) throw new InvalidToolArgsError(tool, validationIssues(parsed.error, ["args"]));
  return { name: tool, args: parsed.data };
}

/** Runs one container tool call in the sandbox. */
export async function runTool(name: string, args: unknown, context: ToolContext): Promise<ToolResult> {
  const call = parseToolCall(name, args);
  if (call.name === "code_execution") return codeExecution(call.args as ToolArgs<"code_execution">, context);
  return fileOperation(call.name, call.args, context);
}

async function codeExecution(args: ToolArgs<"code_execution">, context: ToolContext): Promise<ToolResult> {
  const interpreter = args.language === "python" ? ["/usr/bin/python3", "-c"] : ["/bin/bash", "-c"];
  const small = Buffer.byteLength(args.code) <= ARGV_CODE_MAX;
  // Large code: copy stdin into a tmpfs file, then run it (its own stdin is then at EOF).
  const runner = args.language === "python" ? "/usr/bin/python3" : "/bin/bash";
  const argv = small
    ? [...interpreter, args.code]
    : ["/bin/bash", "-c", 'f=$(mktemp /tmp/code.XXXXXX) && cat > "$f" && exec "$0" "$f"', runner];
  const timeoutMs = context.timeoutMs ?? CODE_TIMEOUT_MS;
  const result = await runInSandbox({
    root: context.root,
    argv,
    stdin: small ? undefined : args.code,
    env: context.env,
    egress: context.egress,
    readOnly: context.readOnly,
    timeoutMs,
    limits: context.limits,
  });
  const notes = killNotes(result, timeoutMs, context.limits);
  const separator = notes.length > 0 && result.stderr !== "" && !result.stderr.endsWith("\n") ? "\n" : "";
  const error = result.stderr + separator + notes.join("");
  return {
    output: result.stdout,
    ...(error ? { error } : {}),
    exitCode: result.exitCode ?? 137, // killed: as a shell reports SIGKILL
    failed: error !== "",
  };
}

async function fileOperation(op: ToolName, args: object, context: ToolContext): Promise<ToolResult> {
  const timeoutMs = context.timeoutMs ?? FILE_TIMEOUT_MS;
  const result = await runInSandbox({
    root: context.root,
    argv: ["/usr/bin/python3", "-I", "-B", "-c", FILEOPS_PY, String(MAX_VIEW_BYTES)],
    stdin: JSON.stringify({ op, ...args }),
    env: context.env,
    egress: context.egress,
    readOnly: context.readOnly,
    timeoutMs,
    // JSON escaping can grow a 1 MiB view several times over.
    limits: { ...context.limits, maxOutputBytes: Math.max(context.limits?.maxOutputBytes ?? 0, 8 * MAX_VIEW_BYTES) },
  });
  const notes = killNotes(result, timeoutMs, context.limits);
  if (notes.length > 0) return { error: notes.join(""), failed: true };
  let answer: { output?: unknown; error?: unknown };
  try {
    answer = JSON.parse(result.stdout) as typeof answer;
  } catch (cause) {
    throw new SandboxError(`${op} did not answer (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 500)}`, {
      code: "GENV_TOOL_CRASHED",
      status: "INTERNAL",
      cause,
    });
  }
  if (typeof answer.error === "string") return { error: answer.error, failed: true };
  return { output: typeof answer.output === "string" ? answer.output : "", failed: false };
}

function killNotes(result: SandboxResult, timeoutMs: number, limits: Partial<SandboxLimits> | undefined): string[] {
  const notes: string[] = [];
  if (result.timedOut) notes.push(`Execution timed out after ${timeoutMs / 1000} s and was killed.\n`);
  if (result.truncated) notes.push("Output exceeded the size limit: it was truncated and the execution was killed.\n");
  if (result.memoryExceeded) {
    const limit = formatBytes(limits?.callMemoryBytes ?? DEFAULT_LIMITS.callMemoryBytes);
    notes.push(`Killed: the call used more than ${limit} of memory (all its processes together).\n`);
  }
  return notes;
}
