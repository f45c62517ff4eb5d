// Programs of any Pulumi language, given as one source text each (a reference example's file), made
// into a project under the e2e workspace and run: up, then destroy, against the fixture's emulator.
//
//   const dir = await addProgramOf(e2e(), "go", "get-environment", source);
//   const result = await upAndDestroy(e2e(), dir, "go", { config: { environmentId } });
//
// The project around the source is the one a user of that language has: TypeScript transpiled to
// index.js beside a package.json (the package comes from the workspace's node_modules), Python run
// with a venv holding `pulumi` and our wheel, Go in a module that requires the generated SDK (a
// `replace` to this checkout's sdk/go, from examples/go-environment's go.mod), YAML as Pulumi.yaml.
// Every project finds the plugin at the installed package's bin dir, without a download.
import * as fs from "node:fs";
import * as path from "node:path";

import type { OutputMap, Stack } from "@pulumi/pulumi/automation";

import { replaceGoSdk } from "../support/go";
import { listIds, type E2E, type StackOptions } from "./_workspace";
import { repoRoot } from "./engine";

export const LANGUAGES = ["typescript", "python", "go", "yaml"] as const;
export type Language = (typeof LANGUAGES)[number];

const GO_EXAMPLE = path.join(repoRoot, "examples", "go-environment");

/** A project of `language` named `name` with `source` as its program, beneath the workspace. */
export async function addProgramOf(e2e: E2E, language: Language, name: string, source: string): Promise<string> {
  const dir = path.join(e2e.workspace.root, "programs", name);
  await fs.promises.mkdir(dir, { recursive: true });
  const plugins = `plugins:\n  providers:\n    - name: gemini-environments\n      path: ${e2e.pluginBinDir}\n`;
  const write = (file: string, text: string) => fs.promises.writeFile(path.join(dir, file), text);
  switch (language) {
    case "typescript": {
      const ts = await import("typescript");
      const output = ts.transpileModule(source, { fileName: "index.ts", compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
      await write("index.js", output.outputText);
      await write("package.json", JSON.stringify({ name, private: true, main: "index.js" }) + "\n");
      await write("Pulumi.yaml", `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n${plugins}`);
      break;
    }
    case "python":
      await write("__main__.py", source);
      await write("Pulumi.yaml", `name: ${name}\nruntime: python\n${plugins}`);
      break;
    case "go": {
      await write("main.go", source);
      const goMod = await fs.promises.readFile(path.join(GO_EXAMPLE, "go.mod"), "utf8");
      await write("go.mod", goMod.replace(/^module .*$/m, `module example.com/${name}`));
      await fs.promises.copyFile(path.join(GO_EXAMPLE, "go.sum"), path.join(dir, "go.sum"));
      await replaceGoSdk(dir, path.join(repoRoot, "sdk", "go"));
      await write("Pulumi.yaml", `name: ${name}\nruntime: go\n${plugins}`);
      break;
    }
    case "yaml":
      // The source's own name and runtime give way to the project's.
      await write("Pulumi.yaml", `name: ${name}\nruntime: yaml\n${plugins}${source.replace(/^(name|runtime|description): .*\n/gm, "")}`);
      break;
  }
  return dir;
}

/** The stack options a program of `language` needs (Python: the venv with our wheel first on PATH). */
export function stackOptionsOf(language: Language, options: StackOptions = {}): StackOptions {
  return language === "python" ? { python: "sdk", ...options } : options;
}

export interface UpAndDestroy {
  /** The stack's outputs after up. */
  outputs: OutputMap;
  /** The resources up created, the stack included. */
  created: number;
  /** The resources destroy deleted. */
  deleted: number;
  /** Environment ids the emulator still holds after destroy. */
  left: string[];
}

/** Up, then destroy, of the program in `dir`; throws with the engine's output when either fails. */
export async function upAndDestroy(e2e: E2E, dir: string, language: Language, options: StackOptions = {}): Promise<UpAndDestroy> {
  const stack: Stack = await e2e.stack(dir, path.basename(dir), stackOptionsOf(language, options));
  const up = await e2e.run(stack, (s, onOutput) => s.up({ onOutput }));
  const destroy = await e2e.run(stack, (s, onOutput) => s.destroy({ onOutput }));
  await stack.workspace.removeStack(stack.name);
  return { outputs: up.outputs, created: up.summary.resourceChanges?.create ?? 0, deleted: destroy.summary.resourceChanges?.delete ?? 0, left: await listIds(e2e.client) };
}
