/**
 * Emulator extension (not in the Environments API): `POST /{v}/environments/{id}:executeTool` runs one
 * container tool call in the environment's sandbox, with the hooks runtime (spec/HOOKS.md) in front
 * and behind — what the hosted agent does on each tool call, made callable so that hooks and policies
 * can be exercised without a model.
 *
 * Request `{"tool_call": {"name": "code_execution", "args": {"code": "echo hi"}}}`; answer 200
 * `{"decision": "allow"|"deny", "reason"?, "output"?, "error"?, "exit_code"?, "hooks": [...]}`.
 * Unknown environment: 404 NOT_FOUND. Unknown tool or bad arguments: 400 INVALID_ARGUMENT naming
 * the field (`tool_call.name`, `tool_call.args.path`). Expired environment: 400 FAILED_PRECONDITION.
 * A machine where no sandbox can start (no bubblewrap, no user namespaces, root without CAP_SYS_ADMIN):
 * 400 FAILED_PRECONDITION saying why and what to do, before any hook runs (`sandbox/_readiness.ts`).
 *
 * Calls on one environment run one at a time (hooks and tool together, and never during an upload's
 * finalize), so two calls never interleave their pre hooks, tools and post hooks. After each call the
 * tree is walked once and compared with its walk before the call (remembered from the previous call):
 * when anything changed — hooks count too, a post hook may format files — the row's `file_count`,
 * `size_bytes` and `updated` follow; `last_accessed` always moves.
 *
 * The environment's limits (`maxBytes`, `maxFiles`) hold for the call as a whole (`trees/budget.ts`):
 * each file it writes is capped at the tree's remaining bytes (RLIMIT_FSIZE), and a call that leaves
 * the tree over a limit has its growth undone and answers 200 with the tool's result, its `error`
 * saying so (`environment limit exceeded: …`). Not a 4xx: the tool did run — it printed, it may have
 * called out through egress, what it did inside the limits stays — and a 429 RESOURCE_EXHAUSTED
 * would make clients retry a call that acted.
 *
 * Each call the hooks saw is recorded (`recorded-calls.ts`), in the order the calls ran.
 */
import { executeWithHooks, type ToolCallResult } from "../../hooks/runtime";
import { atPath, describeIssues } from "../../client/issues";
import type { ToolCall } from "../../client/schemas";
import { HttpError } from "../errors";
import { assertSandboxRunnable, DEFAULT_LIMITS, existingReadOnly, parseToolCall, runTool, SandboxError, sandboxHooks, type EgressPort } from "../sandbox";
import type { TreeStore } from "../trees";
import { exceeds, fileSizeCap, limitMessage, SnapshotCache, undoGrowth, type TreeLimits } from "../trees/budget";
import { walkTree } from "../trees/snapshot";
import type { EnvironmentsService } from "./environments";
import type { RecordedCallsService } from "./recorded-calls";

// Files whose size and inode are remembered across environments (the walk after each one's last
// call, ≈ 150 bytes a file): a call on a remembered tree walks it once, after the call.
const MAX_REMEMBERED_FILES = 200_000;

export interface ToolCallsOptions {
  environments: EnvironmentsService;
  trees: TreeStore;
  /** The egress proxy, injected into each call's sandbox. */
  egress: EgressPort;
  limits: TreeLimits;
  /** Where each executed call is recorded, for replays (`recorded-calls.ts`). */
  recorded: RecordedCallsService;
}

export class ToolCallsService {
  private readonly snapshots = new SnapshotCache(MAX_REMEMBERED_FILES);

  constructor(private readonly options: ToolCallsOptions) {}

  /** `:executeTool`: one tool call in environment `id`'s sandbox, with the hooks in front and behind. */
  async execute(owner: string, id: string, call: ToolCall): Promise<ToolCallResult> {
    const { environments: service, trees, limits } = this.options;
    const snapshots = this.snapshots;
    const found = service.row(owner, id);
    if (found.status === "expired") {
      throw new HttpError(
        "FAILED_PRECONDITION",
        `environment ${found.id} is expired: its files are a read-only snapshot; create a new environment`,
      );
    }
    try {
      parseToolCall(call.name, call.args);
      // Before any hook runs: where no sandbox can start, the answer is why and what to do (400).
      await assertSandboxRunnable();
    } catch (error) {
      throw asHttpError(error);
    }
    service.accessed(owner, found.id);
    const root = trees.treePath(found.id);
    const result = await trees.exclusive(found.id, async () => {
      const row = service.row(owner, found.id); // as the previous call or upload left it
      const before = snapshots.get(row.id, row.updated_ms) ?? (await walkTree(root));
      const { network, readOnly } = service.sandboxSpec(row.id);
      await assertReadOnlyInPlace(root, row.id, readOnly);
      const egress = { proxy: this.options.egress, network, owner, envId: row.id };
      const sandboxLimits = { maxFileBytes: fileSizeCap(before, limits, DEFAULT_LIMITS.maxFileBytes) };
      service.treeChanging(row.id);
      // After the call (also when the tool threw: the tree must not stay over its limits): walk,
      // undo growth past the limits, record the stats. Returns the note for the tool's error, if any.
      const settle = async (): Promise<string | undefined> => {
        // Deleted while the call ran: its tree is gone, and the call's own answer stands.
        if (!service.exists(row.id)) return undefined;
        let after = await walkTree(root);
        let note: string | undefined;
        if (exceeds(before, after, limits)) {
          note = limitMessage(after, limits, await undoGrowth(root, before, after));
          after = await walkTree(root);
        }
        // Recorded even when nothing changed: that also clears the mark `treeChanging` set.
        const changed = after.fingerprint !== before.fingerprint || after.fileCount !== row.file_count || after.sizeBytes !== row.size_bytes;
        const stamp = changed ? service.recordTreeChange(row, after) : service.recordTreeUnchanged(row);
        snapshots.set(row.id, stamp, after);
        service.accessed(owner, row.id);
        return note;
      };
      let answer: ToolCallResult;
      try {
        answer = await executeWithHooks(
          {
            root,
            environmentId: row.id,
            toolCall: call,
            runTool: (toolCall) => runTool(toolCall.name, toolCall.args, { root, egress, readOnly, limits: sandboxLimits }),
          },
          sandboxHooks(root, egress, readOnly, sandboxLimits),
        );
      } catch (error) {
        await settle();
        throw error;
      }
      const note = await settle();
      const final = note ? { ...answer, error: joinErrors(answer.error, note) } : answer;
      this.options.recorded.record(row.id, call, final);
      return final;
    }).catch((error: unknown) => {
      throw asHttpError(error);
    });
    return result;
  }
}

/** The tool's error and a note after it, on a line of its own. */
function joinErrors(error: string | undefined, note: string): string {
  if (!error) return note;
  return `${error}${error.endsWith("\n") ? "" : "\n"}${note}`;
}

/**
 * Fails closed when read-only content is no longer where it was mounted. A mount point cannot be
 * renamed, but the writable parent of a nested one (`tools/guard`) can be moved away between calls,
 * which would leave the content writable at its new place; no tool runs in such an environment.
 */
async function assertReadOnlyInPlace(root: string, id: string, readOnly: readonly string[]): Promise<void> {
  const inPlace = new Set(await existingReadOnly(root, readOnly));
  for (const relative of readOnly) {
    if (!inPlace.has(relative)) {
      throw new HttpError(
        "FAILED_PRECONDITION",
        `environment ${id}: the read-only content at /${relative} (a repository or skill source) was moved or removed; tools no longer run in it: create a new environment`,
      );
    }
  }
}

/** A sandbox error as the HTTP error of its canonical status, its issues at the body's `tool_call`. */
function asHttpError(error: unknown): unknown {
  if (!(error instanceof SandboxError)) return error;
  const message = error.issues.length > 0 ? describeIssues(atPath(["tool_call"], error.issues)) : error.message;
  return new HttpError(error.status, message, { cause: error });
}
