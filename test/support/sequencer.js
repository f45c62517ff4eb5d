// @ts-check
// The order files start in. With every file's time from an earlier run (jest's cache), jest's own
// order: the failed first, then the longest. A clean clone has no times, and jest would fall back on
// file size, which starts the long end-to-end files last (a reference file is four lines and runs
// minutes): here they start first, then integration, then unit files, each the largest first, so
// that side by side no worker is left with a long file at the end.
const Sequencer = require("@jest/test-sequencer").default;

/** Lower starts earlier. */
const PROJECT_RANK = { e2e: 0, alone: 1, integration: 1, unit: 2 };

class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    const rank = (test) => PROJECT_RANK[test.context.config.displayName?.name] ?? 1;
    // Array.prototype.sort is stable: within a rank, jest's order (the largest first) stays.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = LongestFirst;
