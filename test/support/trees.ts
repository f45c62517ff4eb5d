/** Temporary environment trees for the sandbox and egress tests, removed after each test file. */
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { giveToSandboxSync } from "./sandbox-owner";
import { removeHostView } from "../../emulator/sandbox";

const made: string[] = [];

/** A fresh tree with `files` (paths relative to the tree's root) written into it. */
export function makeTree(files: Record<string, string> = {}): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "genv-sbx-tree-"));
  made.push(root);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
  giveToSandboxSync(root);
  return root;
}

/** A host directory outside any tree (what the sandbox must not see). */
export function makeHostDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "genv-sbx-host-"));
  made.push(dir);
  return dir;
}

/** Every path under `root`, sorted, directories with a trailing `/`. */
export function listTree(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)) + (e.isDirectory() ? "/" : ""))
    .sort();
}

afterAll(async () => {
  for (const dir of made.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
    await removeHostView(dir); // what the sandbox keeps beside a tree, as root
  }
});
