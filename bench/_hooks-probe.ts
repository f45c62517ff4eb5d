/**
 * `genv hooks probe`'s cost (issue 43), two rows of `npm run bench hooks`:
 *
 * - a config of four gates (the security gate on every tool, the privacy gate, a path gate for the
 *   file tools, a shell gate on code_execution) probed whole — corpus, runs in the sandbox over a
 *   worker's reused tree as many at once as there are CPUs, the runtime's judgement, grouping —
 *   against the same gates run bare (`bash -c` of the same command, scripts at their host path) on the
 *   very runs the probe made, as many at once: goal at most 1.5×;
 * - the security gate alone on every tool (the largest corpus one gate sees): goal under 10 s,
 *   against its bare runs (`target` is 10 s over the bare time).
 *
 * Each side alternates with its baseline (medians of `RUNS`).
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCommandHandlers, type HooksUnderTest } from "../emulator/sandbox/policy-cases";
import { DEFAULT_PROBE_SEED, probeCorpus } from "../hooks/probe/corpus";
import { probeHooks, type CommandRunRequest, type ProbeReport } from "../hooks/probe/run";
import { HooksConfig, type HooksConfigInput } from "../hooks/schema";
import { interleavedMedians, type Comparison } from "./_measure";

const RUNS = 3;
const RATIO_GOAL = 1.5;
const ONE_GATE_GOAL_MS = 10_000;
const EXAMPLES = [path.join(__dirname, "..", "..", "examples"), path.join(__dirname, "..", "examples")];

const PATH_GATE = `import json, os, sys
event = json.load(sys.stdin)
target = os.path.normpath(os.path.join("/", event["tool_call"]["args"]["path"]))
if target == "/workspace" or target.startswith("/workspace/"):
    print(json.dumps({"decision": "allow"}))
else:
    print(json.dumps({"decision": "deny", "reason": "only /workspace may be changed"}))
`;
const SHELL_GATE = `payload=$(cat)
case "$payload" in
  *sudo*|*"curl "*) echo '{"decision": "deny", "reason": "no sudo, no curl"}' ;;
  *) echo '{"decision": "allow"}' ;;
esac
`;

const command = (script: string, timeout = 10) => ({ type: "command" as const, command: `${script.endsWith(".sh") ? "bash" : "python3"} /.agents/hooks-scripts/${script}`, timeout });
const SECURITY: HooksConfigInput = { "security-gate": { pre_tool_execution: [{ matcher: ".*", hooks: [command("gate.py")] }] } };
const FOUR: HooksConfigInput = {
  ...SECURITY,
  "privacy-gate": { pre_tool_execution: [{ matcher: "view_file", hooks: [command("check_privacy.py")] }] },
  "path-gate": { pre_tool_execution: [{ matcher: "write_to_file|replace_file_content|delete_file", hooks: [command("paths.py")] }] },
  "shell-gate": { pre_tool_execution: [{ matcher: "code_execution", hooks: [command("shell.sh")] }] },
};

export async function probeRows(): Promise<Comparison[]> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "genv-bench-probe-"));
  try {
    const scripts = path.join(scratch, "hooks-scripts");
    await fs.mkdir(scripts);
    await fs.writeFile(path.join(scripts, "gate.py"), await fs.readFile(await example("security-gate/hooks-scripts/gate.py")));
    await fs.writeFile(path.join(scripts, "check_privacy.py"), await fs.readFile(await example("privacy-gate/hooks-scripts/check_privacy.py")));
    await fs.writeFile(path.join(scripts, "paths.py"), PATH_GATE);
    await fs.writeFile(path.join(scripts, "shell.sh"), SHELL_GATE);
    const cpus = os.availableParallelism();
    return [
      await row(FOUR, scripts, cpus, (s, report) => ({
        name: `probe of 4 gates: ${report.summary.payloads} payloads, ${report.summary.runs} runs, ${cpus} at once (${(s / 1000).toFixed(1)} s)`,
        target: RATIO_GOAL,
      })),
      await row(SECURITY, scripts, cpus, (s, report, bare) => ({
        name: `probe of 1 gate on every tool: ${report.summary.runs} runs (${(s / 1000).toFixed(1)} s; goal < ${ONE_GATE_GOAL_MS / 1000} s)`,
        target: Math.round((ONE_GATE_GOAL_MS / bare) * 100) / 100,
      })),
    ];
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

async function row(config: HooksConfigInput, scripts: string, cpus: number, label: (ms: number, report: ProbeReport, bare: number) => { name: string; target: number }): Promise<Comparison> {
  const parsed = HooksConfig.parse(config);
  const hooks: HooksUnderTest = { hooksText: JSON.stringify(config), scriptsDir: scripts };
  let report: ProbeReport | undefined;
  const probe = async () => {
    report = await probeHooks(parsed, { seed: DEFAULT_PROBE_SEED, calls: probeCorpus(DEFAULT_PROBE_SEED), runCommands: (requests, control) => runCommandHandlers(hooks, requests, cpus, control) });
    if (report.findings.length > 0 || report.errors.length > 0) throw new Error(`the bench's gates failed open: ${JSON.stringify(report.findings.map((f) => [f.group, f.tool, f.outcome, f.detail.text]))}`);
  };
  // The runs the probe makes, recorded without running them: the baseline runs exactly these.
  let requests: CommandRunRequest[] = [];
  await probeHooks(parsed, {
    seed: DEFAULT_PROBE_SEED,
    calls: probeCorpus(DEFAULT_PROBE_SEED),
    runCommands: async (made) => {
      requests = [...made];
      return made.map(() => ({ exitCode: 0, stdout: '{"decision": "allow"}', stderr: "", timedOut: false }));
    },
  });
  const bare = () => pool(requests.map((request) => () => runBare(request, scripts)), cpus);
  await probe(); // warm: the sandbox's check, the interpreter's caches
  await bare();
  const [ours, baseline] = await interleavedMedians(RUNS, probe, bare);
  return { ...label(ours, report!, baseline), ours, baselineName: `the same ${requests.length} runs bare, ${cpus} at once`, baseline };
}

async function pool(jobs: ReadonlyArray<() => Promise<void>>, width: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) await jobs[next++]();
  }));
}

/** The handler's command line by bash on the host, its scripts where they are; exit status ignored. */
function runBare(request: CommandRunRequest, scripts: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const line = request.command.replaceAll("/.agents/hooks-scripts", scripts);
    // HOME as in the sandbox (an empty directory): with stdin on a socket, Debian's bash sources ~/.bashrc.
    const child = spawn("/bin/bash", ["-c", line], { stdio: ["pipe", "pipe", "pipe"], env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", HOME: os.tmpdir() } });
    child.stdout.resume();
    child.stderr.resume();
    child.stdin.on("error", () => undefined);
    child.stdin.end(request.stdin);
    child.on("error", reject);
    child.on("close", () => resolve());
  });
}

async function example(relative: string): Promise<string> {
  for (const root of EXAMPLES) {
    const candidate = path.join(root, relative);
    if (await fs.stat(candidate).then(() => true, () => false)) return candidate;
  }
  throw new Error(`examples/${relative} not found`);
}
