// The shared e2e fixture: the Pulumi engine (engine.ts), the package installed from its `npm pack`
// tarball into one temp workspace (devtools/packed-workspace.ts), an in-process emulator with its
// request log, and stacks of program dirs beneath the workspace driven through the Automation API.
//
//   const e2e = useE2E();              // beforeAll/afterAll of the calling test file
//   const dir = await e2e().workspace.addProgram("p", { "index.js": "..." });
//   const stack = await e2e().stack(dir, "dev");
//   await e2e().run(stack, (s, onOutput) => s.up({ onOutput }));
//
// The @pulumi/pulumi that programs and the dynamic provider load comes from GENV_E2E_PULUMI_DIR when
// set (scripts/e2e-node22 points it at the newest release), else from the repo's node_modules.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";

import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";

import { createPackedWorkspace, type PackedWorkspace } from "../../devtools/packed-workspace";
import { EnvironmentsClient } from "../../client/client";
import { isNotFound } from "../../client/errors";
import { startTestEmulator, TEST_KEY, type TestEmulator } from "../support/emulator";
import type { EmulatorOptions } from "../../emulator/server";
import { ENGINE_BUILD_TIMEOUT_MS, pulumiCommand, pulumiEngine, pythonSdkVenvBinDir, pythonVenvBinDir, repoRoot, type PulumiEngine } from "./engine";

const execFileAsync = promisify(execFile);

/** Per test: a few `pulumi` runs of a few seconds each. */
export const E2E_TEST_TIMEOUT_MS = 180_000;

export interface E2E {
  engine: PulumiEngine;
  workspace: PackedWorkspace;
  emulator: TestEmulator;
  /** A client of the emulator with the test key. */
  client: EnvironmentsClient;
  /** The installed package's bin dir, holding the plugin's launcher `pulumi-resource-gemini-environments`. */
  pluginBinDir: string;
  /**
   * A stack of the program in `dir`. `credentials: "env"` (default) passes the key and base URL as
   * GOOGLE_API_KEY / GOOGLE_GEMINI_BASE_URL; `"config"` sets `gemini-environments:apiKey` (secret) and
   * `:baseUrl` in the stack config instead, and keeps them out of the environment; `"none"` gives
   * neither (the program configures an explicit provider).
   */
  stack(dir: string, stackName: string, options?: StackOptions): Promise<Stack>;
  /** Runs one operation, collecting its output into the error when it fails; returns result and output. */
  run<T>(stack: Stack, operation: (stack: Stack, onOutput: (out: string) => void) => Promise<T>): Promise<T & { output: string }>;
  /** Runs the engine's `pulumi` CLI in `dir` with the fixture's environment (plus `env`); returns stdout. */
  pulumi(args: string[], dir: string, env?: Record<string, string>): Promise<string>;
  /** The emulator requests made while `body` runs, as `METHOD /path` lines. */
  requestsDuring(body: () => Promise<unknown>): Promise<string[]>;
}

export interface StackOptions {
  credentials?: "env" | "config" | "none";
  /** Plain stack config values. */
  config?: Record<string, string>;
  /** Secret stack config values. */
  secrets?: Record<string, string>;
  /**
   * A Python program: a venv first on PATH (its language host runs `python3`): `true` the venv of
   * scripts/python-venv (`pulumi` only), `"sdk"` that of scripts/python-sdk-venv (`pulumi` and our wheel).
   */
  python?: boolean | "sdk";
  /** Environment variables set over the engine's (and the Python venv's PATH), e.g. a PATH without Node.js. */
  env?: Record<string, string>;
}

/** The fixture for one test file: call at the top of a describe block; the returned getter works inside tests. */
export function useE2E(options: { emulator?: Partial<EmulatorOptions> } = {}): () => E2E {
  let fixture: E2E | undefined;

  beforeAll(async () => {
    const started = performance.now();
    const [engine, workspace, emulator] = await Promise.all([
      pulumiEngine(),
      createPackedWorkspace({ repoRoot, build: true, pulumiDir: process.env.GENV_E2E_PULUMI_DIR || undefined }),
      startTestEmulator(options.emulator),
    ]);
    const command = await pulumiCommand(engine.binDir);
    const client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator.url });

    fixture = {
      engine,
      workspace,
      emulator,
      client,
      pluginBinDir: path.join(workspace.root, "node_modules", "pulumi-gemini-environments", "bin"),
      async stack(dir, stackName, stackOptions = {}) {
        const env = { ...engine.env };
        if (stackOptions.python) env.PATH = [await (stackOptions.python === "sdk" ? pythonSdkVenvBinDir() : pythonVenvBinDir()), env.PATH].join(path.delimiter);
        if (stackOptions.credentials === undefined || stackOptions.credentials === "env") Object.assign(env, { GOOGLE_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: emulator.url });
        Object.assign(env, stackOptions.env);
        const stack = await LocalWorkspace.createOrSelectStack({ stackName, workDir: dir }, { envVars: env, pulumiCommand: command });
        if (stackOptions.credentials === "config") {
          await stack.setConfig("gemini-environments:apiKey", { value: TEST_KEY, secret: true });
          await stack.setConfig("gemini-environments:baseUrl", { value: emulator.url });
        }
        for (const [key, value] of Object.entries(stackOptions.config ?? {})) await stack.setConfig(key, { value });
        for (const [key, value] of Object.entries(stackOptions.secrets ?? {})) await stack.setConfig(key, { value, secret: true });
        return stack;
      },
      async run(stack, operation) {
        let output = "";
        try {
          const result = await operation(stack, (out) => {
            output += out;
          });
          return Object.assign(result as object, { output }) as never;
        } catch (error) {
          throw new Error(`${String(error)}\n--- pulumi output (${stack.name}) ---\n${output}`);
        }
      },
      async pulumi(args, dir, env = {}) {
        try {
          const { stdout } = await execFileAsync(path.join(engine.binDir, "pulumi"), args, { cwd: dir, env: { ...engine.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
          return stdout;
        } catch (error) {
          const { stdout, stderr } = error as { stdout?: string; stderr?: string };
          throw new Error(`pulumi ${args.join(" ")} failed: ${String(error)}\n${stdout ?? ""}\n${stderr ?? ""}`);
        }
      },
      async requestsDuring(body) {
        const before = emulator.requests.length;
        await body();
        return emulator.requests.slice(before).map((entry) => `${entry.method} ${entry.path.split("?")[0]}`);
      },
    };
    if (process.env.GENV_E2E_TIMINGS) process.stderr.write(`e2e fixture ready in ${Math.round(performance.now() - started)} ms\n`);
  }, ENGINE_BUILD_TIMEOUT_MS);

  afterAll(async () => {
    if (!fixture) return;
    // Stacks need no destroy: their backend and PULUMI_HOME go with the engine's scratch dir and
    // their environments with the in-memory emulator.
    await fixture.client.close();
    await fixture.emulator.close();
    await fixture.workspace.cleanup();
    await fixture.engine.cleanup();
  }, E2E_TEST_TIMEOUT_MS);

  return () => {
    if (!fixture) throw new Error("the e2e fixture failed to start; see beforeAll's error");
    return fixture;
  };
}

/** A JavaScript program: `body` runs after `const pulumi = require("@pulumi/pulumi")` and `const genv = require("pulumi-gemini-environments")`. */
export function program(body: string): Record<string, string> {
  return { "index.js": `"use strict";\nconst pulumi = require("@pulumi/pulumi");\nconst genv = require("pulumi-gemini-environments");\n${body}\n` };
}

/**
 * `Pulumi.yaml` of a program whose `gemini-environments` resources the plugin serves, found at
 * `pluginBinDir` without a download; `runtime` as Pulumi.yaml writes it (default a JavaScript program).
 */
export function pluginProject(name: string, pluginBinDir: string, runtime = "runtime:\n  name: nodejs\n  options:\n    typescript: false"): string {
  return `name: ${name}\n${runtime}\nplugins:\n  providers:\n    - name: gemini-environments\n      path: ${pluginBinDir}\n`;
}

/** The ids of every environment the test key can see. */
export async function listIds(client: EnvironmentsClient): Promise<string[]> {
  const ids: string[] = [];
  for await (const environment of client.listAll()) ids.push(environment.id);
  return ids;
}

/** Whether GetEnvironment answers 404 for `id`. */
export async function isGone(client: EnvironmentsClient, id: string): Promise<boolean> {
  try {
    await client.get(id);
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}
