/**
 * `repository` sources, fetched with the `git` CLI (execFile, no shell):
 *
 * - `github://owner/repo[@ref][/subdir]` → `https://github.com/owner/repo.git` (a ref cannot hold `/` here);
 * - `https://host/path[@ref]` and `file:///abs/path[@ref]` (local repositories: offline use, tests).
 *
 * The ref (a branch, a tag or a commit sha; default: the remote's default branch) is cloned with
 * `--depth 1 --branch`; a sha falls back to a full clone and a checkout. The snapshot is copied to
 * `target` (default: the repository's name, as `git clone` would name it) without `.git`.
 * Submodules are not fetched (their directories stay empty), Git LFS files stay pointer files (no
 * smudge filter runs), and symlinks that point outside the copied tree refuse the source. A fetch
 * that fails or takes longer than the timeout (default 60 s) is a 400 FAILED_PRECONDITION naming
 * `sources[i].source`; user:password in a URL is never echoed.
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { targetPathProblem, type Source } from "../../client/schemas";
import { HttpError, invalidArgument } from "../errors";
import { copyTree, type Budget } from "./_copy";

export const REPOSITORY_DEFAULTS = {
  gitTimeoutMs: 60_000, // 60 s per git command
} as const;

interface Repository {
  /** What git clones. */
  url: string;
  /** The source as shown in messages (credentials removed). */
  display: string;
  ref?: string;
  subdir?: string;
  /** Default target. */
  name: string;
}

const GITHUB = /^github:\/\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?(?:@([^/]+))?(?:\/(.*))?$/;
const REF = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/+-]+$/;
const SHA = /^[0-9a-f]{7,40}$/i;

export function parseRepository(source: string, field: string): Repository {
  if (source.startsWith("github://")) {
    const match = GITHUB.exec(source);
    if (!match) throw invalidArgument(`${field}: "${source}" is not github://owner/repo[@ref][/subdir]`);
    const [, owner, repo, ref, subdir] = match;
    const cleanSubdir = subdir?.replace(/\/+$/, "");
    if (cleanSubdir) {
      const problem = targetPathProblem(cleanSubdir);
      if (problem) throw invalidArgument(`${field}: subdirectory ${problem}`);
    }
    return checkRef({ url: `https://github.com/${owner}/${repo}.git`, display: source, ref, subdir: cleanSubdir || undefined, name: repo }, field);
  }
  const scheme = /^(https|file):\/\//.exec(source)?.[1];
  if (!scheme) {
    throw invalidArgument(`${field}: "${redact(source)}" is not a repository URL; use github://owner/repo[@ref][/subdir], https://…[@ref] or file:///path[@ref]`);
  }
  const pathStart = source.indexOf("/", scheme.length + 3);
  const at = pathStart === -1 ? -1 : source.lastIndexOf("@");
  const hasRef = at > pathStart && pathStart !== -1;
  const base = hasRef ? source.slice(0, at) : source;
  const ref = hasRef ? source.slice(at + 1) : undefined;
  if (!URL.canParse(base)) throw invalidArgument(`${field}: "${redact(source)}" is not a valid URL`);
  const url = new URL(base);
  const name = path.posix.basename(url.pathname.replace(/\/+$/, "")).replace(/\.git$/, "") || url.hostname;
  if (scheme === "file") {
    if (url.host !== "") throw invalidArgument(`${field}: file URLs name a local path: file:///abs/path/repo`);
    return checkRef({ url: fileURLToPath(url), display: source, ref, name }, field);
  }
  return checkRef({ url: base, display: redact(source), ref, name }, field);
}

function checkRef(repository: Repository, field: string): Repository {
  if (repository.ref !== undefined && !REF.test(repository.ref)) {
    throw invalidArgument(`${field}: "${repository.ref}" is not a branch, tag or commit name`);
  }
  return repository;
}

function redact(source: string): string {
  return source.replace(/^([a-z]+:\/\/)[^/@]*@/i, "$1***@");
}

export async function materializeRepository(
  source: Source,
  index: number,
  root: string,
  options: { workDir: string; gitTimeoutMs?: number },
  budget: Budget,
): Promise<void> {
  const field = `sources[${index}].source`;
  const repository = parseRepository(source.source!, field);
  const scratch = await fs.mkdtemp(path.join(options.workDir, "git-"));
  try {
    const checkout = path.join(scratch, "checkout");
    await clone(repository, checkout, options.gitTimeoutMs ?? REPOSITORY_DEFAULTS.gitTimeoutMs, field);
    let from = checkout;
    if (repository.subdir) {
      from = path.join(checkout, repository.subdir);
      const stat = await fs.lstat(from).catch(() => undefined);
      if (!stat?.isDirectory()) throw invalidArgument(`${field}: "${repository.subdir}" is not a directory of the repository`);
      const real = await fs.realpath(from);
      if (!real.startsWith((await fs.realpath(checkout)) + path.sep)) throw invalidArgument(`${field}: "${repository.subdir}" leaves the repository`);
    }
    await copyTree(from, root, source.target ?? repository.name, budget, ["sources", index], new Set([".git"]));
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

async function clone(repository: Repository, into: string, timeoutMs: number, field: string): Promise<void> {
  const shallow = ["clone", "--quiet", "--depth", "1", "--no-tags", ...(repository.ref ? ["--branch", repository.ref] : []), "--", repository.url, into];
  try {
    await git(shallow, timeoutMs);
    return;
  } catch (error) {
    if (!(repository.ref && SHA.test(repository.ref)) || isTimeout(error)) throw fetchError(repository, error, timeoutMs, field);
  }
  // A commit sha is not a --branch: full clone, then check it out.
  await fs.rm(into, { recursive: true, force: true });
  try {
    await git(["clone", "--quiet", "--no-checkout", "--", repository.url, into], timeoutMs);
    await git(["-C", into, "checkout", "--quiet", repository.ref!], timeoutMs);
  } catch (error) {
    throw fetchError(repository, error, timeoutMs, field);
  }
}

const GIT_CONFIG = [
  "-c", "protocol.allow=never",
  "-c", "protocol.https.allow=always",
  "-c", "protocol.file.allow=always",
  "-c", "core.symlinks=true",
  "-c", "advice.detachedHead=false",
  // LFS pointers stay as they are: no smudge filter runs.
  "-c", "filter.lfs.smudge=",
  "-c", "filter.lfs.process=",
  "-c", "filter.lfs.required=false",
];

function git(args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      [...GIT_CONFIG, ...args],
      {
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: 1024 * 1024,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_LFS_SKIP_SMUDGE: "1", GIT_ASKPASS: "true", SSH_ASKPASS: "true" },
      },
      (error, _stdout, stderr) => (error ? reject(Object.assign(error, { stderr: String(stderr) })) : resolve()),
    );
  });
}

function isTimeout(error: unknown): boolean {
  return (error as { killed?: boolean }).killed === true;
}

function fetchError(repository: Repository, error: unknown, timeoutMs: number, field: string): HttpError {
  const failure = error as NodeJS.ErrnoException & { stderr?: string };
  if (failure.code === "ENOENT") {
    return new HttpError("FAILED_PRECONDITION", `${field}: repository sources need git on the emulator's PATH`);
  }
  const ref = repository.ref ? ` at "${repository.ref}"` : "";
  if (isTimeout(error)) {
    return new HttpError("FAILED_PRECONDITION", `${field}: cannot fetch "${repository.display}"${ref}: git took longer than ${timeoutMs / 1000} s`);
  }
  const lines = (failure.stderr ?? "").split("\n").map((line) => line.trim()).filter(Boolean);
  const detail = redact(lines[lines.length - 1] ?? failure.message).replace(/\/\/[^/@\s]*@/g, "//***@").slice(0, 300);
  return new HttpError("FAILED_PRECONDITION", `${field}: cannot fetch "${repository.display}"${ref}: ${detail}`);
}
