/** The real `treeline` executable as a child process (test/helpers/cli.ts): exit codes and streams. */
import { describe, expect, it } from 'vitest';
import { runCliProcess as runCli } from '../helpers/cli.process.js';

describe('treeline as a child process', () => {
  it('generate writes CSV to stdout and exits 0', async () => {
    const r = await runCli(['generate', 'uniform', '-n', '3', '-d', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('an invalid argument exits 2 with a one-line message on stderr', async () => {
    const r = await runCli(['generate', 'moons', '-n', '4', '-d', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/got 3/);
    expect(r.stdout).toBe('');
  });
});
