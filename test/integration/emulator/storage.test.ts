/** Storage: environments survive a restart; a crash's leftovers are removed at start-up. */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { inline, startTestEmulator } from "../../support/emulator";

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
