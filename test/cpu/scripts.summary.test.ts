/**
 * Issue 15: the closing line of scripts/test.sh (scripts/vitest-summary.mjs) agrees with vitest's exit status: a test
 * file that fails to load is a failure and is counted, where it used to say "0 failed".
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'treeline-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function summary(report: unknown, status: number): { line: string; code: number | null } {
  const path = join(dir, `r${Math.random()}.json`);
  if (report !== undefined) writeFileSync(path, JSON.stringify(report));
  const r = spawnSync(process.execPath, ['scripts/vitest-summary.mjs', path, String(status)], { encoding: 'utf8' });
  return { line: r.stdout.trim(), code: r.status };
}

const file = (name: string, status: string, tests: string[]) => ({
  name: join(process.cwd(), name),
  status,
  assertionResults: tests.map((s) => ({ status: s })),
});

describe('scripts/vitest-summary.mjs', () => {
  it('issue 15: a file that fails to load counts as a failure and is named', () => {
    const r = summary(
      {
        numPassedTests: 5,
        numFailedTests: 0,
        numPendingTests: 0,
        numTodoTests: 0,
        testResults: [
          file('test/cpu/a.test.ts', 'passed', ['passed', 'passed']),
          file('test/cpu/b.test.ts', 'failed', []),
        ],
      },
      1,
    );
    expect(r.line).toMatch(/^5 passed, 1 failed, 0 skipped \(1 file failed to load.*test\/cpu\/b\.test\.ts\)$/);
    expect(r.code).toBe(1);
  });

  it('counts failed tests once, skipped and todo together, and exits 0 when all passed', () => {
    const failing = summary(
      {
        numPassedTests: 3,
        numFailedTests: 2,
        numPendingTests: 1,
        numTodoTests: 1,
        testResults: [file('test/cpu/a.test.ts', 'failed', ['failed', 'failed', 'passed'])],
      },
      1,
    );
    expect(failing).toEqual({ line: '3 passed, 2 failed, 2 skipped', code: 1 });
    const passing = summary(
      { numPassedTests: 3, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [] },
      0,
    );
    expect(passing).toEqual({ line: '3 passed, 0 failed, 0 skipped', code: 0 });
  });

  it('a non-zero status with nothing counted, or no report at all, is a failure', () => {
    const r = summary(
      { numPassedTests: 3, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [] },
      1,
    );
    expect(r.line).toMatch(/^3 passed, 1 failed, 0 skipped \(vitest exited 1/);
    expect(r.code).toBe(1);
    const none = summary(undefined, 1);
    expect(none.line).toMatch(/^0 passed, 1 failed, 0 skipped \(no vitest report/);
    expect(none.code).toBe(1);
  });
});
