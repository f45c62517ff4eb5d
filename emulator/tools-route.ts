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
 *
 * Calls on one environment run one at a time (hooks and tool together), so two calls never
 * interleave their pre hooks, tools and post hooks. After each call the tree is walked once and
 * compared with its snapshot before the call (remembered from the previous call): when anything
 * changed — hooks count too, a post hook may format files — the row's `file_count`, `size_bytes` and
 * `updated` follow; `last_accessed` always moves.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { executeWithHooks, type ToolCallResult } from "../hooks/runtime";
import type { EgressProxy } from "./egress";
import { HttpError } from "./errors";
import { decodeSegment, sendJson, type Route, type RouteContext } from "./http";
import { existingReadOnly, parseToolCall, runTool, SandboxError } from "./sandbox";
import { sandboxHooks } from "./sandbox-hooks";
import type { EnvironmentsService } from "./service";
import type { TreeStats, TreeStore } from "./trees";

interface TreeSnapshot extends TreeStats {
  fingerprint: string;
}

const EXECUTE_TOOL = /^environments\/([^/]+)$/;
const VERB = ":executeTool";
const MAX_REMEMBERED = 1000; // environments whose last snapshot is kept, so that a call walks its tree once

/** The `:executeTool` route, tried after the environment routes. */
export function toolsRoute(context: { service: EnvironmentsService; trees: TreeStore; egress: EgressProxy }): Route {
  const { service, trees } = context;
  const queues = new Map<string, Promise<unknown>>();
  // The tree's snapshot after the last call, by environment (another change, e.g. an upload, only
  // makes the next call record its stats again).
  const snapshots = new Map<string, TreeSnapshot>();
  const remember = (id: string, value: TreeSnapshot): void => {
    snapshots.delete(id);
    snapshots.set(id, value);
    if (snapshots.size > MAX_REMEMBERED) snapshots.delete(snapshots.keys().next().value!);
  };

  return async (route: RouteContext) => {
    const id = environmentOf(route.rest);
    if (id === undefined) return false;
    if (route.request.method !== "POST") throw new HttpError("NOT_FOUND", `method ${route.request.method} ${VERB} not found; use POST`);
    const body = await route.readJson();
    const call = toolCallOf(body);
    const found = service.row(route.owner, id);
    if (found.status === "expired") {
      throw new HttpError(
        "FAILED_PRECONDITION",
        `environment ${found.id} is expired: its files are a read-only snapshot; create a new environment`,
      );
    }
    try {
      parseToolCall(call.name, call.args);
    } catch (error) {
      throw asHttpError(error, "tool_call.");
    }
    const row = service.accessed(route.owner, found.id);
    const root = trees.treePath(row.id);
    const result = await serialised(queues, row.id, async () => {
      const before = snapshots.get(row.id)?.fingerprint ?? (await snapshot(root)).fingerprint;
      const { network, readOnly } = service.sandboxSpec(row.id);
      await assertReadOnlyInPlace(root, row.id, readOnly);
      const egress = { proxy: context.egress, network, owner: route.owner, envId: row.id };
      try {
        return await executeWithHooks(
          { root, environmentId: row.id, toolCall: call, runTool: (toolCall) => runTool(toolCall.name, toolCall.args, { root, egress, readOnly }) },
          sandboxHooks(root, egress, readOnly),
        );
      } finally {
        const after = await snapshot(root);
        remember(row.id, after);
        if (after.fingerprint !== before || after.fileCount !== row.file_count || after.sizeBytes !== row.size_bytes) {
          service.recordTreeChange(row, after);
        }
        service.accessed(route.owner, row.id);
      }
    }).catch((error: unknown) => {
      throw asHttpError(error, "");
    });
    return sendJson(route.response, 200, result satisfies ToolCallResult);
  };
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

/** `env_x` from `environments/env_x:executeTool` or `environments/environments%2Fenv_x:executeTool`. */
function environmentOf(rest: string): string | undefined {
  const match = EXECUTE_TOOL.exec(rest);
  if (!match) return undefined;
  const segment = decodeSegment(match[1]);
  if (!segment.endsWith(VERB)) return undefined;
  const id = segment.slice(0, -VERB.length).replace(/^environments\//, "");
  if (id === "" || id.includes("/")) throw new HttpError("INVALID_ARGUMENT", "name: use environments/{id}:executeTool with an id such as env_abc123");
  return id;
}

function toolCallOf(body: unknown): { name: string; args: Record<string, unknown> } {
  const call = (body as { tool_call?: unknown } | null)?.tool_call;
  if (typeof call !== "object" || call === null || Array.isArray(call)) {
    throw new HttpError("INVALID_ARGUMENT", 'tool_call: is required: {"name": "code_execution", "args": {"code": "echo hi"}}');
  }
  const { name, args } = call as { name?: unknown; args?: unknown };
  if (typeof name !== "string" || name === "") throw new HttpError("INVALID_ARGUMENT", "tool_call.name: is required: a container tool name such as code_execution");
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    throw new HttpError("INVALID_ARGUMENT", "tool_call.args: must be an object of the tool's arguments");
  }
  return { name, args: (args ?? {}) as Record<string, unknown> };
}

/** A sandbox error as the HTTP error of its canonical status; `prefix` qualifies field names. */
function asHttpError(error: unknown, prefix: string): unknown {
  if (!(error instanceof SandboxError)) return error;
  const message = error.status === "INVALID_ARGUMENT" && !error.message.startsWith(prefix) ? `${prefix}${error.message}` : error.message;
  return new HttpError(error.status, message, { cause: error });
}

/**
 * File count and bytes (as `TreeStore.stats` counts them) and a fingerprint of every file and
 * directory under the root (path, inode, size, mtime, ctime in ns): a write, a same-size rewrite, a
 * rename or a deletion changes it. The root's own times are left out: they move on every call (the
 * sandbox's mount points come and go).
 */
async function snapshot(root: string): Promise<TreeSnapshot> {
  const hash = createHash("sha256");
  let fileCount = 0;
  let sizeBytes = 0;
  const walk = async (dir: string, relative: string): Promise<void> => {
    const dirents = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of dirents) {
      if (!dirent.isDirectory() && !dirent.isFile()) continue;
      const child = path.join(dir, dirent.name);
      const stat = await fs.lstat(child, { bigint: true }).catch(() => undefined);
      if (!stat) continue;
      const childRelative = `${relative}/${dirent.name}`;
      hash.update(`${childRelative}\0${stat.ino}\0${stat.size}\0${stat.mtimeNs}\0${stat.ctimeNs}\n`);
      if (stat.isDirectory()) await walk(child, childRelative);
      else {
        fileCount += 1;
        sizeBytes += Number(stat.size);
      }
    }
  };
  await walk(root, "");
  return { fileCount, sizeBytes, fingerprint: hash.digest("hex") };
}

function serialised<T>(queues: Map<string, Promise<unknown>>, key: string, fn: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(fn, fn);
  const tail = run.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}
