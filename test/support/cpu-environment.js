// @ts-check
// jest's node environment, which also records each file's CPU time when GENV_TEST_CPU_LOG names a
// file: the worker's own and that of every child process it has waited for (Linux's /proc/self/stat
// counts a child's time in its parent once reaped, and the child's reaped children in it). On two
// cores the suite is CPU-bound, so this, not a file's wall time beside the others, is what a file costs
// the suite's budget. scripts/test prints the summary. A daemon left running is not counted.
const fs = require("node:fs");
const { TestEnvironment } = require("jest-environment-node");

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux architecture Node.js runs on

/** Seconds of CPU used by this process and its reaped children, or undefined off Linux. */
function processTreeCpuSeconds() {
  let stat;
  try {
    stat = fs.readFileSync("/proc/self/stat", "utf8");
  } catch {
    return undefined;
  }
  // After the command's closing parenthesis: state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
  return ticks / TICKS_PER_SECOND;
}

class CpuRecordingEnvironment extends TestEnvironment {
  /** @param {ConstructorParameters<typeof TestEnvironment>} args */
  constructor(...args) {
    super(...args);
    this.testPath = args[1].testPath;
    this.startedAt = processTreeCpuSeconds();
  }

  async teardown() {
    await super.teardown();
    const log = process.env.GENV_TEST_CPU_LOG;
    const endedAt = processTreeCpuSeconds();
    if (!log || this.startedAt === undefined || endedAt === undefined) return;
    fs.appendFileSync(log, `${JSON.stringify({ file: this.testPath, cpuSeconds: Number((endedAt - this.startedAt).toFixed(2)) })}\n`);
  }
}

module.exports = CpuRecordingEnvironment;
