/**
 * Repository sources (local file:// git repositories at a branch, tag or commit; github:// and
 * https:// failing cleanly without network) and skill_registry sources.
 */
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { GoogleGenAI } from "@google/genai";
import { inline, startTestEmulator, type TestEmulator, officialClient } from "../../support/emulator";

let emulator: TestEmulator;
let bare: TestEmulator;
let ai: GoogleGenAI;
let work: string;
let repo: string;
let firstCommit: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

async function write(root: string, files: Record<string, string>) {
  for (const [file, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
    if (content.startsWith("symlink:")) await fs.symlink(content.slice("symlink:".length), path.join(root, file));
    else await fs.writeFile(path.join(root, file), content);
  }
}

async function makeRepo(name: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(work, name);
  await fs.mkdir(dir, { recursive: true });
  git(dir, "init", "--quiet");
  await write(dir, files);
  git(dir, "add", "-A");
  git(dir, "commit", "--quiet", "-m", "first");
  return dir;
}

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), "genv-sources-test-"));
  repo = await makeRepo("my-repo", { "README.md": "v1", "src/app.py": "print(1)", "src/alias.py": "symlink:app.py" });
  firstCommit = git(repo, "rev-parse", "HEAD");
  git(repo, "tag", "v1");
  git(repo, "checkout", "--quiet", "-b", "feature");
  await write(repo, { "feature.txt": "f" });
  git(repo, "add", "-A");
  git(repo, "commit", "--quiet", "-m", "feature");
  git(repo, "checkout", "--quiet", "main");
  await write(repo, { "README.md": "v2" });
  git(repo, "commit", "--quiet", "-am", "second");

  await write(work, { "registry/skills/my-skill/SKILL.md": "# skill", "registry/skills/my-skill/scripts/run.sh": "echo", "registry/notes.txt": "x" });
  emulator = await startTestEmulator({ skillRegistryDir: path.join(work, "registry"), gitTimeoutMs: 20_000 });
  bare = await startTestEmulator();
  ai = officialClient(emulator.url);
});
afterAll(async () => {
  await emulator.close();
  await bare.close();
  await fs.rm(work, { recursive: true, force: true });
});

const create = (body: unknown, on: TestEmulator = emulator) => on.json("/v1beta/environments", { method: "POST", body: JSON.stringify(body) });
const read = async (id: string, file: string) => (await emulator.call(`/v1beta/environments/${id}/files/${file}?alt=media`)).text();
const paths = async (id: string) =>
  ((await emulator.json(`/v1beta/environments/${id}/files/?recursive=true`)).body.files as { path: string }[]).map((file) => file.path);

test("a file:// repository at its default branch lands under its name, without .git", async () => {
  const created = await ai.environments.create({ sources: [{ type: "repository", source: `file://${repo}` }] });
  expect(await paths(created.id)).toEqual(["my-repo/README.md", "my-repo/src/app.py"]);
  expect(await read(created.id, "my-repo/README.md")).toBe("v2");
  expect(await read(created.id, "my-repo/src/alias.py")).toBe("print(1)"); // an inside symlink is kept
  expect((await emulator.call(`/v1beta/environments/${created.id}/files/my-repo/.git`)).status).toBe(404);
  expect(created).toMatchObject({ file_count: "2", sources: [{ type: "repository", source: `file://${repo}` }] });
});

test("@ref: a tag, a branch and a commit sha, at a target", async () => {
  const tag = await create({ sources: [{ type: "repository", source: `file://${repo}@v1`, target: "workspace/tag" }] });
  expect(tag.status).toBe(200);
  expect(await read(tag.body.id, "workspace/tag/README.md")).toBe("v1");
  const branch = await create({ sources: [{ type: "repository", source: `file://${repo}@feature`, target: "b" }] });
  expect(await paths(branch.body.id)).toContain("b/feature.txt");
  const sha = await create({ sources: [{ type: "repository", source: `file://${repo}@${firstCommit}`, target: "c" }] });
  expect(sha.status).toBe(200);
  expect(await read(sha.body.id, "c/README.md")).toBe("v1");
});

test("fetch failures are 400 FAILED_PRECONDITION naming the source; syntax errors 400 INVALID_ARGUMENT", async () => {
  const cases: [string, string, string][] = [
    ["github://octo/hello@main/docs", "FAILED_PRECONDITION", 'sources[1].source: cannot fetch "github://octo/hello@main/docs" at "main"'],
    ["https://user:hunter2@git.invalid/o/r.git", "FAILED_PRECONDITION", 'sources[1].source: cannot fetch "https://***@git.invalid/o/r.git"'],
    [`file://${work}/nope`, "FAILED_PRECONDITION", "sources[1].source: cannot fetch"],
    [`file://${repo}@no-such-branch`, "FAILED_PRECONDITION", '"no-such-branch"'],
    ["ssh://git@github.com/o/r", "INVALID_ARGUMENT", "sources[1].source: \"ssh://***@github.com/o/r\" is not a repository URL"],
    ["github://only-owner", "INVALID_ARGUMENT", "is not github://owner/repo[@ref][/subdir]"],
    [`file://${repo}@--upload-pack=x`, "INVALID_ARGUMENT", "is not a branch, tag or commit name"],
  ];
  for (const [source, status, message] of cases) {
    const response = await create({ sources: [inline("a.txt", "1"), { type: "repository", source }] });
    expect(response.status).toBe(400);
    expect(response.body.error.status).toBe(status);
    expect(response.body.error.message).toContain(message);
    expect(response.body.error.message).not.toContain("hunter2");
  }
  expect(await fs.readdir(path.join(emulator.dataDir, "tmp"))).toEqual([]);
});

test("a repository with a symlink pointing outside is refused; a clash with an earlier source is a 400", async () => {
  const evil = await makeRepo("evil", { "ok.txt": "ok", "docs/passwd": "symlink:../../../../etc/passwd" });
  const refused = await create({ sources: [{ type: "repository", source: `file://${evil}` }] });
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toBe('sources[0].source: symlink "docs/passwd" points outside the copied directory; such links are refused');

  const clash = await create({ sources: [inline("my-repo/README.md", "mine"), { type: "repository", source: `file://${repo}` }] });
  expect(clash.status).toBe(400);
  expect(clash.body.error.message).toContain('sources[1].target: "my-repo/README.md" already exists');
});

test("skill_registry: copied at target (default: the source path); unknown skill and no registry are 400s", async () => {
  const created = await ai.environments.create({
    sources: [
      { type: "skill_registry", source: "skills/my-skill" },
      { type: "skill_registry", source: "skills/my-skill", target: ".agents/skills/mine" },
    ],
  });
  expect(await paths(created.id)).toEqual([
    ".agents/skills/mine/SKILL.md",
    ".agents/skills/mine/scripts/run.sh",
    "skills/my-skill/SKILL.md",
    "skills/my-skill/scripts/run.sh",
  ]);
  const unknown = await create({ sources: [{ type: "skill_registry", source: "skills/other" }] });
  expect(unknown).toMatchObject({ status: 400, body: { error: { message: 'sources[0].source: no skill "skills/other" in the skill registry' } } });
  const escaping = await create({ sources: [{ type: "skill_registry", source: "../registry/skills/my-skill" }] });
  expect(escaping.status).toBe(400);
  const file = await create({ sources: [{ type: "skill_registry", source: "notes.txt" }] });
  expect(file.status).toBe(400);

  const none = await create({ sources: [{ type: "skill_registry", source: "skills/my-skill" }] }, bare);
  expect(none.status).toBe(400);
  expect(none.body.error).toMatchObject({ status: "FAILED_PRECONDITION", message: expect.stringContaining("--skill-registry DIR") });
});
