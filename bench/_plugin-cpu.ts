/**
 * Loaded into every Node.js process of a `pulumi` command by `npm run bench fleet`
 * (`NODE_OPTIONS=--require …`, with `GENV_BENCH_PLUGIN_CPU=<file>`): in a provider plugin's process
 * (ours, or the floor's), it appends the process's CPU time in ms to that file when the engine ends
 * it (SIGINT, then SIGKILL). Other processes (the program) are left alone. Bench instrumentation only.
 */
import { appendFileSync } from "node:fs";

const file = process.env.GENV_BENCH_PLUGIN_CPU;
const entry = process.argv[1] ?? "";
// Ours from dist/ (main.js) or as its single executable (argv[1] the executable as run), or the floor's.
if (file && ["/provider/plugin/main.js", "/pulumi-resource-gemini-environments", "/floor.js"].some((end) => entry.endsWith(end))) {
  const report = () => {
    const { user, system } = process.cpuUsage();
    appendFileSync(file, `${(user + system) / 1000}\n`);
    process.exit(0);
  };
  process.once("SIGINT", report);
  process.once("SIGTERM", report);
}
