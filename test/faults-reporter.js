/**
 * Jest reporter of `pnpm test:faults`: one line per fault case, the figure that the case printed
 * with reportFault() (apps/api/src/testing/fault-report.ts), then a closing count.
 */
class FaultsReporter {
  onTestResult(_test, result) {
    for (const entry of result.console ?? []) {
      if (String(entry.message).startsWith("faults: ")) process.stdout.write(`${entry.message}\n`);
    }
    for (const test of result.testResults) {
      if (test.status === "failed") process.stdout.write(`faults: FAILED ${test.fullName}\n`);
    }
    if (result.testExecError)
      process.stdout.write(`faults: FAILED ${result.testFilePath}: ${result.testExecError.message}\n`);
  }

  onRunComplete(_contexts, results) {
    process.stdout.write(`faults: ${results.numPassedTests} passed, ${results.numFailedTests} failed\n`);
  }
}

module.exports = FaultsReporter;
