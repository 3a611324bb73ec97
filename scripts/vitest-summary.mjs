// The closing line of scripts/test.sh: "N passed, N failed, N skipped", agreeing with vitest's exit status.
//
//   node scripts/vitest-summary.mjs <vitest json report> <vitest exit status>
//
// A test file that fails to load (an import error, a missing data file) has no tests of its own to count: it is
// counted as one failure and named. A missing or unreadable report, or a non-zero status with nothing counted, is a
// failure too. Exits 1 when anything failed, else 0.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [path, statusText] = process.argv.slice(2);
const status = Number(statusText ?? 0);
let report;
try {
  report = JSON.parse(readFileSync(path, 'utf8'));
} catch (e) {
  console.log(`0 passed, 1 failed, 0 skipped (no vitest report: ${String(e.message).split('\n')[0]})`);
  process.exit(1);
}
const broken = report.testResults.filter(
  (f) => f.status === 'failed' && f.assertionResults.every((a) => a.status !== 'failed'),
);
let failed = report.numFailedTests + broken.length;
if (status !== 0 && failed === 0) failed = 1;
const files = broken.map((f) => relative(process.cwd(), f.name)).join(', ');
const note = broken.length
  ? ` (${broken.length} file${broken.length === 1 ? '' : 's'} failed to load or failed outside a test: ${files})`
  : status !== 0 && report.numFailedTests === 0
    ? ` (vitest exited ${status} with no failed test counted)`
    : '';
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`${report.numPassedTests} passed, ${failed} failed, ${skipped} skipped${note}`);
process.exit(failed > 0 ? 1 : 0);
