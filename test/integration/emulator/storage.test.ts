/** Storage: environments survive a restart; a crash's leftovers are removed at start-up; trees are the sandbox owner's. */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { TreeStore } from "../../../emulator/trees";
import { inline, startTestEmulator } from "../../support/emulator";
import { describeNeeding } from "../../support/prerequisites";

test("environments and their files survive a restart on the same data dir", async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "genv-storage-"));
  try {
    const first = await startTestEmulator({ dataDir });
    const { body } = await first.json("/v1/environments", { method: "POST", body: JSON.stringify({ sources: [inline("a/b.txt", "kept")] }) });
    await first.close();

    const second = await startTestEmulator({ dataDir });
    expect((await second.json(`/v1/environments/${body.id}`)).body).toMatchObject({ id: body.id, file_count: "1" });
    expect(await (await second.call(`/v1/environments/${body.id}/files/a/b.txt?alt=media`)).text()).toBe("kept");
    await second.close();
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
});

test("half-built trees and trees without a committed row are removed at start-up", async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "genv-storage-"));
  try {
    const first = await startTestEmulator({ dataDir });
    const { body } = await first.json("/v1/environments", { method: "POST", body: JSON.stringify({ sources: [inline("x", "1")] }) });
    await first.close();
    // What a crash mid-create leaves: a scratch tree, and a renamed tree whose row never committed.
    await fs.mkdir(path.join(dataDir, "tmp", "build-deadbeef", "workspace"), { recursive: true });
    await fs.mkdir(path.join(dataDir, "trees", "env_uncommitted"), { recursive: true });

    const second = await startTestEmulator({ dataDir });
    expect(await fs.readdir(path.join(dataDir, "tmp"))).toEqual([]);
    expect(await fs.readdir(path.join(dataDir, "trees"))).toEqual([body.id]);
    await second.close();
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
});

describeNeeding({ "root (uid 0), to give trees to another user": process.getuid?.() === 0 })("the sandbox's owner at start-up", () => {
  /** The owner of a tree's root and of its file. */
  const ownersOf = async (dataDir: string, id: string) =>
    Promise.all([path.join(dataDir, "trees", id), path.join(dataDir, "trees", id, "f.txt")].map(async (file) => {
      const { uid, gid } = await fs.lstat(file);
      return { uid, gid };
    }));
  const commitTree = async (trees: TreeStore, id: string) => {
    const dir = await trees.scratch();
    await fs.writeFile(path.join(dir, "f.txt"), id);
    await trees.commit(dir, id);
  };

  test("trees a run without an owner committed are handed to the owner by the next start-up with one, and to a new owner when it changes", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "genv-storage-"));
    const owner = { uid: 61_001, gid: 61_001 };
    try {
      const ownerless = new TreeStore(dataDir);
      await ownerless.init();
      await commitTree(ownerless, "env_a");
      await new TreeStore(dataDir, owner).sweep(new Set(["env_a"]));
      expect(await ownersOf(dataDir, "env_a")).toEqual([owner, owner]);

      // A start-up without an owner between two with one: what it commits is its own user's.
      await ownerless.sweep(new Set(["env_a"]));
      await commitTree(ownerless, "env_b");
      await new TreeStore(dataDir, owner).sweep(new Set(["env_a", "env_b"]));
      expect(await ownersOf(dataDir, "env_b")).toEqual([owner, owner]);

      // GENV_SANDBOX_GID changed.
      const regrouped = { uid: owner.uid, gid: 61_002 };
      await new TreeStore(dataDir, regrouped).sweep(new Set(["env_a", "env_b"]));
      expect([...(await ownersOf(dataDir, "env_a")), ...(await ownersOf(dataDir, "env_b"))]).toEqual([regrouped, regrouped, regrouped, regrouped]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
