/**
 * The files an Environment's inline sources put in place, as the API can change them after create:
 * one upload with `overwrite` per file. The API has no UpdateEnvironment and cannot remove a file, so
 * only two changes can be made in place — an inline source's content edited, and inline sources
 * added at the end. Everything else replaces the environment (environment/core.ts).
 *
 * A source is applied in order at create, so a later source wins where targets overlap. An upload
 * after create would win over every source, so an inline source is updated in place only when no
 * later source writes at, above or below its target: its file then holds exactly its content, as at
 * create. The same rule says which hook files refresh can compare with what is declared.
 */
import type { EnvironmentsClient } from "../../client/client";
import { isNotFound } from "../../client/errors";
import type { Source } from "../../client/schemas";
import { propertyChanges } from "../contracts/property-diff";

/** An inline source's file: its index among the sources, its path, its bytes. */
export interface InlineFile {
  index: number;
  target: string;
  bytes: Buffer;
}

/** Whether the sources can go from `before` to `after` by uploads alone. */
export function updatableInPlace(before: readonly Source[] = [], after: readonly Source[] = []): boolean {
  // A list not known until apply (Terraform's unknown, Pulumi's during preview): no upload can be promised.
  if (!Array.isArray(before) || !Array.isArray(after)) return false;
  if (after.length < before.length) return false;
  for (const [index, now] of after.entries()) {
    const old = before[index];
    if (old !== undefined && propertyChanges(old, now, "").size === 0) continue;
    if (now.type !== "inline") return false;
    if (old !== undefined && (old.type !== "inline" || normalTarget(old) !== normalTarget(now))) return false;
    if (!sameFile(old, now) && shadowedByLater(after, index)) return false;
  }
  return true;
}

/** The files an update uploads, in source order: the inline sources whose bytes changed or that are new. */
export function changedFiles(before: readonly Source[] = [], after: readonly Source[] = []): InlineFile[] {
  return after.flatMap((now, index) => (now.type === "inline" && !sameFile(before[index], now) ? [inlineFile(now, index)] : []));
}

/** `.agents/hooks.json` and `.agents/hooks-scripts/*` as declared inline, where no later source writes over them. */
export function declaredHookFiles(sources: readonly Source[] = []): InlineFile[] {
  return sources.flatMap((source, index) =>
    source.type === "inline" && isHookFile(normalTarget(source)) && !shadowedByLater(sources, index) ? [inlineFile(source, index)] : [],
  );
}

/**
 * The declared hook files whose content in the environment differs from the declaration, or that are
 * gone: one download per file, the least the API allows. Its EnvironmentFile metadata has no content
 * hash, and `modified` is the file's mtime, which the agent can set back (`touch -d`): no listing or
 * metadata call can prove a file unchanged, only the bytes can. What a listing could prove (gone, or
 * another size) the download proves in the same request (404, `Content-Length`), so a listing first
 * would add a request per environment and save none. A download whose length differs is dropped
 * before its body is read, and one without a length stops one byte past the declared size, so an
 * agent that grew a file to gigabytes costs a refresh no more than the declared bytes.
 */
export async function driftedHookFiles(client: EnvironmentsClient, environmentId: string, sources: readonly Source[] = []): Promise<string[]> {
  const drifted = await Promise.all(
    declaredHookFiles(sources).map(async (file) => ((await holdsBytes(client, environmentId, file)) ? undefined : file.target)),
  );
  return drifted.filter((target): target is string => target !== undefined);
}

async function holdsBytes(client: EnvironmentsClient, environmentId: string, file: InlineFile): Promise<boolean> {
  let download;
  try {
    download = await client.files.download(environmentId, file.target);
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
  if (download.contentLength !== undefined && download.contentLength !== file.bytes.byteLength) {
    download.body.once("error", () => {}); // the abort that destroy reports is ours
    download.body.destroy();
    return false;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of download.body) {
    received += (chunk as Buffer).byteLength;
    if (received > file.bytes.byteLength) {
      download.body.destroy();
      return false;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).equals(file.bytes);
}

export function inlineFile(source: Source, index: number): InlineFile {
  return { index, target: normalTarget(source), bytes: Buffer.from(source.content ?? "", source.encoding === "base64" ? "base64" : "utf8") };
}

function isHookFile(target: string): boolean {
  return target === ".agents/hooks.json" || target.startsWith(".agents/hooks-scripts/");
}

/** A source's target as a path from the root without surrounding slashes; `""` is the root. */
function normalTarget(source: Source): string {
  return (source.target ?? "").replace(/^\/+|\/+$/g, "");
}

/** Two inline sources that put the same bytes at the same path. */
function sameFile(old: Source | undefined, now: Source): boolean {
  if (old === undefined || old.type !== "inline" || now.type !== "inline") return false;
  const [a, b] = [inlineFile(old, 0), inlineFile(now, 0)];
  return a.target === b.target && a.bytes.equals(b.bytes);
}

/** Whether a source after `index` writes at, above or below its target. */
function shadowedByLater(sources: readonly Source[], index: number): boolean {
  const target = normalTarget(sources[index]);
  return sources.slice(index + 1).some((later) => overlaps(target, normalTarget(later)));
}

function overlaps(a: string, b: string): boolean {
  return a === b || a === "" || b === "" || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}
