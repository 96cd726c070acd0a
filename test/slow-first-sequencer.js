const Sequencer = require("@jest/test-sequencer").default;

/**
 * Jest's own order (the suites that failed last, then the slowest by the timings of earlier runs,
 * else the largest files), with the suites whose run time is fixed by a budget moved to the
 * front: the oracle runs ORACLE_SECONDS per database whatever else runs. On a fresh clone there
 * are no timings and its spec file is small, so it would start last and the other workers would
 * wait for it at the end.
 */
const FIXED_BUDGET = [/\.oracle\.e2e-spec\.ts$/];

class SlowFirstSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const fixed = sorted.filter((test) => FIXED_BUDGET.some((pattern) => pattern.test(test.path)));
    return [...fixed, ...sorted.filter((test) => !fixed.includes(test))];
  }
}

module.exports = SlowFirstSequencer;
