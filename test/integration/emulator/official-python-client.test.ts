/**
 * Google's Python client, google-genai 3.6.1 from PyPI, unchanged, against `genv serve` on a free
 * port: its whole environments, files and credentials surface, sync and async, under each API
 * version, and a second key's isolation. Each test runs one scenario of python/official_client.py
 * (the client's calls, their answers recorded as JSON) and holds the expectations here, beside the
 * emulator's request log. The venv comes from scripts/python-genai (cached outside the repo). What
 * each official client expects on the wire: python/README.md.
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { runServe } from "../../../cli/commands/serve";
import type { RunningEmulator } from "../../../emulator/server";

const execFileAsync = promisify(execFile);
const REPO = path.resolve(__dirname, "../../..");
const DRIVER = path.join(__dirname, "python", "official_client.py");
const KEY = "py-key-1";
const OTHER_KEY = "py-key-2";
/**
 * A refusal must reach the caller at once: the client re-sends a chunk whose reply lacks
 * X-Goog-Upload-Status (7 s of retries). The request log proves it, not a clock: each refused chunk
 * POST is there once, never re-sent.
 */
const refusedChunks = (requests: string[]) =>
  requests.filter((line) => /^POST \/upload\/v\w+\/uploads\//.test(line)).map((line) => line.split(" ")[2]).filter((status) => status !== "200");

let python: string;
let emulator: RunningEmulator;
let work: string;
const log: string[] = [];

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), "genv-python-client-"));
  const [venv] = await Promise.all([
    execFileAsync(path.join(REPO, "scripts", "python-genai"), [], { timeout: 280_000 }),
    makeFixtures(work),
  ]);
  python = venv.stdout.trim();
  ({ emulator } = await runServe(
    {
      host: "127.0.0.1",
      port: 0,
      dataDir: path.join(work, "data"),
      apiKey: [KEY, OTHER_KEY],
      inMemory: true,
      idleTtl: "7d",
      logFormat: "text",
      egressRoute: [],
      skillRegistry: path.join(work, "registry"),
    },
    (line) => log.push(line),
  ));
}, 300_000);
afterAll(async () => {
  await emulator?.close();
  await fs.rm(work, { recursive: true, force: true });
});

/** A skill registry with skills/hello, and a git repository for a file:// repository source. */
async function makeFixtures(dir: string): Promise<void> {
  await fs.mkdir(path.join(dir, "registry", "skills", "hello"), { recursive: true });
  await fs.writeFile(path.join(dir, "registry", "skills", "hello", "SKILL.md"), "# hello\n");
  const repository = path.join(dir, "repository");
  await fs.mkdir(repository);
  await fs.writeFile(path.join(repository, "README.md"), "readme\n");
  const git = (...args: string[]) => execFileAsync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main", ...args], { cwd: repository });
  await git("init", "-q");
  await git("add", ".");
  await git("commit", "-qm", "init");
}

/** Runs one scenario; returns its facts and the emulator's log lines (`METHOD /path STATUS`) while it ran. */
async function scenario(name: string, ...args: string[]): Promise<{ facts: any; requests: string[] }> {
  const before = log.length;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: work,
    LANG: "C.UTF-8",
    GENV_BASE_URL: emulator.url,
    GENV_KEY: KEY,
    GENV_OTHER_KEY: OTHER_KEY,
    GENV_WORK: work,
    GENV_REPOSITORY: `file://${path.join(work, "repository")}`,
  };
  try {
    const { stdout } = await execFileAsync(python, [DRIVER, name, ...args], { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
    return { facts: JSON.parse(stdout), requests: log.slice(before).map((line) => line.replace(/ [\d.]+ms$/, "")) };
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`python scenario ${name} failed:\n${stderr ?? String(error)}`);
  }
}

const refusal = (code: number, status: string, message: string | RegExp, errorClass: string) => ({
  class: errorClass,
  code,
  status,
  message: typeof message === "string" ? message : expect.stringMatching(message),
  seconds: expect.any(Number),
});

test("environments: every field and network form echoed, the self-hosted key once, refusals naming the field", async () => {
  const { facts, requests } = await scenario("environments");
  const { created, typed } = facts;
  expect(created).toMatchObject({
    mode: "self_hosted",
    system_instruction: "Be terse.",
    custom_config: { pool: "gpu", limits: { cpu: 4 }, tags: ["a", "b"], on: true, none: null },
    status: "active",
    file_count: "4",
    network: { allowlist: [{ domain: "api.github.com", credential: "py-gh" }, { domain: "*.googleapis.com", transform: { "X-Api-Key": "abc" } }, { domain: "example.com", transform: [{ "X-A": "1" }, { "X-B": "2" }] }] },
  });
  expect(created.sources.map((source: { type: string }) => source.type)).toEqual(["inline", "inline", "repository", "skill_registry"]);
  // Typed as the client declares them: int64 strings become ints, unknown fields are kept.
  expect(typed).toEqual({
    file_count: 4,
    size_bytes: expect.any(Number),
    mode: "self_hosted",
    environment_key: expect.stringMatching(/^envkey_[A-Za-z0-9_-]{43}$/),
    custom_config: created.custom_config,
    system_instruction: "Be terse.",
  });

  const { environment_key: _key, ...echoed } = created;
  expect(facts.got).toEqual(echoed);
  expect(facts.got_prefixed).toEqual(echoed);
  expect(facts.got_key).toBeNull();
  expect(facts.listed).toEqual([echoed]);
  expect(requests).toContain(`GET /v1/environments/environments/${created.id} 200`); // path parameters go out unencoded

  expect(facts.network_forms).toEqual({ disabled: "disabled", allowlist_disabled: { allowlist: "disabled" }, allowlist: created.network });
  expect(facts.plain).toMatchObject({ mode: "on_demand", file_count: "0" });
  expect(facts.plain).not.toHaveProperty("environment_key");

  const onlySelfHosted = (field: string) => `${field}: is only supported for self_hosted environments; set mode: "self_hosted" (mode is "on_demand")`;
  expect(facts.refusals).toEqual({
    system_instruction_on_demand: refusal(400, "INVALID_ARGUMENT", onlySelfHosted("system_instruction"), "BadRequestError"),
    custom_config_on_demand: refusal(400, "INVALID_ARGUMENT", onlySelfHosted("custom_config"), "BadRequestError"),
    unknown_mode: refusal(400, "INVALID_ARGUMENT", 'mode: must be "on_demand" or "self_hosted" (got "future_mode")', "BadRequestError"),
    escaping_target: refusal(400, "INVALID_ARGUMENT", 'sources[0].target: "../x" escapes the environment root', "BadRequestError"),
    unknown_credential: refusal(400, "INVALID_ARGUMENT", /^network\.allowlist\[0\]\.credential: no credential "nope"/, "BadRequestError"),
  });
  expect(facts.after_delete).toEqual({
    get: refusal(404, "NOT_FOUND", `environment ${created.id} not found`, "NotFoundError"),
    delete: refusal(404, "NOT_FOUND", `environment ${created.id} not found`, "NotFoundError"),
  });
  expect(requests.filter((line) => / (4\d\d)$/.test(line))).toHaveLength(7); // each refusal once: 400s and 404s are not retried
});

test("paging: pages of 2 with and without the mode filter; tokens and page sizes checked", async () => {
  const { facts } = await scenario("paging");
  expect(facts.self_hosted).toEqual([facts.own.self_hosted, 2]);
  expect(facts.on_demand).toEqual([facts.own.on_demand, 2]);
  expect(new Set(facts.all[0])).toEqual(new Set([...facts.own.self_hosted, ...facts.own.on_demand]));
  expect(facts.keys_listed).toEqual([]);
  expect(facts.unknown_mode).toEqual(refusal(400, "INVALID_ARGUMENT", 'mode: must be "on_demand" or "self_hosted" (got "future_mode")', "BadRequestError"));
  expect(facts.negative_page_size).toEqual(refusal(400, "INVALID_ARGUMENT", "page_size: must not be negative (got -1)", "BadRequestError"));
  expect(facts.bad_token.code).toBe(400);
});

test("files: root, recursive and single-file listings, paging, binary and non-ASCII downloads, 404s", async () => {
  const { facts } = await scenario("files");
  expect(facts.root).toEqual([["docs", "directory"], ["main.py", "file"], ["many", "directory"], ["workspace", "directory"]]);
  expect(facts.recursive).toEqual(["workspace/bin/all.bytes", "workspace/src/deep/a.txt"]);
  expect(facts.one).toMatchObject({ name: "main.py", path: "main.py", type: "file", mime_type: "text/x-python", size_bytes: "8" });
  expect(facts.directory_entry).toEqual({ name: "bin", path: "workspace/bin", type: "directory", created: expect.any(String), modified: expect.any(String) });
  expect(facts.pages).toEqual([["many/f0.txt", "many/f1.txt"], ["many/f2.txt", "many/f3.txt"], ["many/f4.txt"]]);
  expect(facts.docs).toEqual(["docs/read me.md", "docs/ü é.txt"]);
  expect(facts).toMatchObject({ download_binary: true, download_prefixed: "print(1)", download_space: "space", download_umlaut: "umlaut" });
  expect(facts.list_missing).toEqual(refusal(404, "NOT_FOUND", /^path "nope" not found/, "NotFoundError"));
  expect(facts.download_missing).toEqual(refusal(404, "NOT_FOUND", /^path "nope\.txt" not found/, "ClientError"));
  expect(facts.download_directory).toEqual(refusal(400, "INVALID_ARGUMENT", /is a directory/, "ClientError"));
  expect(facts.list_unknown_environment).toEqual(refusal(404, "NOT_FOUND", "environment env_nope not found", "NotFoundError"));
});

test("uploads: bytes, a path, a file object, overwrite, 9 MiB in two chunks, tar.gz; every refusal reaches the caller at once", async () => {
  const { facts, requests } = await scenario("uploads");
  expect(facts.bytes).toEqual([expect.objectContaining({ path: "up/bytes.bin", size_bytes: "3", type: "file" })]);
  expect(facts.path).toEqual([expect.objectContaining({ path: "up/notes.txt", mime_type: "text/plain", size_bytes: "12" })]);
  expect(facts.file_object).toEqual(["up/stream.txt"]);
  expect(facts.empty).toEqual([expect.objectContaining({ path: "up/empty.txt", size_bytes: "0" })]);
  expect(facts.downloads).toEqual(["000102", "from a path\n", "streamed", ""]);
  expect(facts).toMatchObject({ after_exists: "from a path\n", overwritten: "replaced", big_roundtrip: true });
  expect(facts.big).toEqual([expect.objectContaining({ path: "data/big.bin", size_bytes: String(9 * 1024 * 1024 + 5) })]);
  expect(facts.extract).toEqual(["ex/pkg/a.txt", "ex/pkg/sub/b.txt"]);
  expect(facts.extracted).toEqual(["ex/pkg/a.txt", "ex/pkg/sub/b.txt"]);
  expect(facts.extract_root).toEqual(["root.txt"]);

  // Refused at finalize: the legacy stack's ClientError with the server's code and status, at once.
  const refused = "file: the archive is refused (extract=true): ";
  expect(facts.exists).toEqual(refusal(409, "ALREADY_EXISTS", 'path: "up/notes.txt" already exists; upload with overwrite: true to replace it', "ClientError"));
  expect(facts.extract_again).toEqual(refusal(409, "ALREADY_EXISTS", /^path: "ex\/pkg\/a\.txt" already exists/, "ClientError"));
  expect(facts.archive_escaping).toEqual(refusal(400, "INVALID_ARGUMENT", `${refused}entry "../escape.txt" escapes the target directory (absolute or ".." path)`, "ClientError"));
  expect(facts.archive_absolute).toEqual(refusal(400, "INVALID_ARGUMENT", `${refused}entry "/etc/evil" escapes the target directory (absolute or ".." path)`, "ClientError"));
  expect(facts.archive_link_out).toEqual(refusal(400, "INVALID_ARGUMENT", `${refused}symlink "l" points outside the archive's tree`, "ClientError"));
  expect(facts.not_an_archive).toEqual(refusal(400, "INVALID_ARGUMENT", /^file: is not a tar or tar\.gz archive/, "ClientError"));
  expect(facts.onto_directory).toEqual(refusal(400, "INVALID_ARGUMENT", /^path: "up" is a directory/, "ClientError"));
  // Refused at start: the environments stack's classes.
  expect(facts.unknown_environment).toEqual(refusal(404, "NOT_FOUND", "environment env_nope not found", "NotFoundError"));
  expect(facts.empty_path).toEqual(refusal(400, "INVALID_ARGUMENT", /^path: is empty/, "BadRequestError"));
  // One chunk POST per refusal, never re-sent, and no 'session not found' after it: each came at once.
  // (unknown_environment and empty_path are refused at start, before any chunk.)
  const chunks = requests.filter((line) => line.startsWith("POST /upload/v1/uploads/")).map((line) => line.split(" ")[2]);
  expect(refusedChunks(requests)).toEqual(["409", "409", "400", "400", "400", "400", "400"]);
  expect(chunks.filter((status) => status === "200")).toHaveLength(9); // bytes, path, object, empty, overwrite, big (2), tar.gz, root tar
  expect(facts.root_after).toEqual(["data", "ex", "main.py", "root.txt", "up"]); // nothing of the refused archives
  // main.py, up/{bytes.bin,notes.txt,stream.txt,empty.txt}, data/big.bin, ex/pkg/{a,sub/b}.txt, root.txt
  expect(facts.stats).toEqual({ file_count: 9, size_bytes: 8 + 3 + 8 + 8 + 0 + (9 * 1024 * 1024 + 5) + 1 + 1 + 1 });
});

test("forks: from_environment copies the current tree, uploads included; the two are independent after", async () => {
  const { facts } = await scenario("forks");
  expect(facts.fork).toMatchObject({ mode: "on_demand", network: "disabled", file_count: "2" });
  expect(facts.fork_files).toEqual(["a.txt", "only-in-fork.txt", "uploaded.txt"]);
  expect(facts.origin_files).toEqual(["a.txt", "uploaded.txt"]);
  expect(facts.self_hosted).toEqual({ mode: "self_hosted", has_key: true, file_count: 2 });
  expect(facts.with_sources).toEqual(refusal(400, "INVALID_ARGUMENT", "sources: must be empty when from_environment is set: a fork copies its origin's files", "BadRequestError"));
  expect(facts.unknown_origin).toEqual(refusal(404, "NOT_FOUND", "environment env_nope not found", "NotFoundError"));
});

test("credentials: each type created, paged, read, updated by mask and deleted; no secret ever comes back", async () => {
  const { facts, requests } = await scenario("credentials");
  const shape = (id: string, type: string) => ({ id, type, status: "active", create_time: expect.any(String), update_time: expect.any(String) });
  expect(facts.created).toEqual([shape("py-bearer", "bearer_token"), shape("py-env", "environment_variable"), shape("py-oauth", "oauth2")]);
  expect(facts.listed).toEqual(["py-bearer", "py-env", "py-oauth"]);
  expect(facts.got).toEqual(shape("py-oauth", "oauth2"));
  expect(facts.updated).toEqual(shape("py-bearer", "bearer_token"));
  expect(requests).toContain("PATCH /v1/credentials/py-bearer?update_mask=token 200");
  expect(facts.environment_network).toEqual({ allowlist: [{ domain: "api.github.com", credential: "py-bearer" }] });
  expect(facts.duplicate).toEqual(refusal(409, "ALREADY_EXISTS", "credential py-env already exists; update it (PATCH) or delete it first", "ConflictError"));
  expect(facts.bad_id).toEqual(refusal(400, "INVALID_ARGUMENT", /^id: must be 1-128 letters/, "BadRequestError"));
  expect(facts.empty_token).toEqual(refusal(400, "INVALID_ARGUMENT", "token: must not be empty", "BadRequestError"));
  expect(facts.deleted).toEqual([{}, {}, {}]);
  expect(facts.get_deleted).toEqual(refusal(404, "NOT_FOUND", "credential py-env not found", "NotFoundError"));
  expect(JSON.stringify(facts)).not.toMatch(/ghp_secret|ghp_rotated|s3cr3t|csecret|rtok/);
});

test("the async client (client.aio): the same surface, refusals at once", async () => {
  const { facts, requests } = await scenario("async");
  expect(facts.created).toEqual({ mode: "self_hosted", has_key: true, file_count: 1 });
  expect(facts).toMatchObject({ got_key: null, listed: true, uploaded: ["up/b.bin"], big: ["big.bin"], download: "0102" });
  expect(facts.files).toEqual(["a.txt", "big.bin", "up/b.bin"]);
  expect(facts.exists).toEqual(refusal(409, "ALREADY_EXISTS", /^path: "a\.txt" already exists/, "ClientError"));
  expect(facts.archive_escaping).toEqual(refusal(400, "INVALID_ARGUMENT", /escapes the target directory/, "ClientError"));
  expect(refusedChunks(requests)).toEqual(["409", "400"]); // each refusal's chunk once, never re-sent
  expect(facts.credential).toMatchObject({ id: "py-aio", type: "bearer_token" });
  expect(facts.credential_deleted).toEqual({});
  expect(facts.gone).toEqual(refusal(404, "NOT_FOUND", /^environment env_\w+ not found$/, "NotFoundError"));
  expect(facts.bad_mode.code).toBe(400);
});

test.each([
  ["default", "v1"],
  ["v1beta", "v1beta"],
  ["v1alpha", "v1alpha"],
])("API version %s: every call goes to /%s", async (option, version) => {
  const { facts, requests } = await scenario("versions", option);
  const id = facts.environment;
  expect(requests.map((line) => line.replace(/uploads\/[0-9a-f]{32}/, "uploads/S"))).toEqual([
    `POST /${version}/environments 200`,
    `GET /${version}/environments/${id} 200`,
    `GET /${version}/environments?page_size=1 200`,
    `GET /${version}/environments/${id}/files/ 200`,
    `GET /${version}/environments/${id}/files/a.txt?alt=media 200`,
    `PUT /upload/${version}/environments/${id}/files/b.txt 200`,
    `POST /upload/${version}/uploads/S 200`,
    `GET /${version}/credentials 200`,
    `DELETE /${version}/environments/${id} 200`,
  ]);
});

test("api_version per call; an upload's own http_options drop the client's key header, and the 403 comes at once", async () => {
  const { facts, requests } = await scenario("per_call_versions");
  const id = facts.environment;
  expect(requests.map((line) => line.replace(/uploads\/[0-9a-f]{32}/, "uploads/S"))).toEqual([
    "POST /v1alpha/environments 200",
    `GET /v1beta/environments/${id} 200`,
    `GET /v1alpha/environments/${id}/files/ 200`,
    `PUT /upload/v1beta/environments/${id}/files/a.txt 200`,
    "POST /upload/v1beta/uploads/S 403",
    `PUT /upload/v1beta/environments/${id}/files/a.txt 200`,
    "POST /upload/v1beta/uploads/S 200",
    `GET /v1alpha/environments/${id}/files/a.txt?alt=media 200`,
    `DELETE /v1alpha/environments/${id} 200`,
  ]);
  expect(facts.keyless_upload).toEqual(refusal(403, "PERMISSION_DENIED", /^Method doesn't allow unregistered callers/, "ClientError"));
  // The 403 above is in the log once: not re-sent, it came at once.
  expect(facts.downloaded).toBe("a");
});

test("a second key sees none of the first key's environments, files, uploads, forks or credentials", async () => {
  const { facts } = await scenario("isolation");
  for (const name of ["get", "delete", "files", "upload", "fork"]) {
    expect([name, facts[name]]).toEqual([name, refusal(404, "NOT_FOUND", /^environment env_\w+ not found$/, "NotFoundError")]);
  }
  expect(facts.download).toEqual(refusal(404, "NOT_FOUND", /^environment env_\w+ not found$/, "ClientError"));
  expect(facts).toMatchObject({ listed: false, listed_self_hosted: false, still_mine: "mine" });
  expect(facts.credential).toEqual(refusal(404, "NOT_FOUND", "credential py-shared-name not found", "NotFoundError"));
  expect(facts.same_credential_id).toMatchObject({ id: "py-shared-name", status: "active" });
  expect(facts.unknown_key).toEqual(refusal(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", "BadRequestError"));
});
