// @ts-check
// node test/support/cpu-summary.js LOG: what the suite's files used of the CPU, from the lines
// test/support/cpu-environment.js wrote to LOG: the total, and the files that used the most.
const fs = require("node:fs");
const path = require("node:path");

const SHOWN = 15;
const [log] = process.argv.slice(2);
/** @type {{ file: string, cpuSeconds: number }[]} */
const files = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line)) : [];
const total = files.reduce((sum, { cpuSeconds }) => sum + cpuSeconds, 0);
console.log(`scripts/test: CPU of the ${files.length} files, theirs and their child processes': ${Math.round(total)} s; the ${Math.min(SHOWN, files.length)} that used the most:`);
for (const { file, cpuSeconds } of files.sort((a, b) => b.cpuSeconds - a.cpuSeconds).slice(0, SHOWN)) {
  console.log(`  ${cpuSeconds.toFixed(0).padStart(5)} s  ${(cpuSeconds / total * 100).toFixed(1).padStart(4)} %  ${path.relative(process.cwd(), file)}`);
}
