import { describe, expect, it } from 'vitest';
import { buildProgram, exitCodeFor, EXIT } from '../../src/cli/program.js';
import { GpuUnavailableError, InputError } from '../../src/errors.js';

async function run(args: string[]): Promise<{ out: string; log: string; error?: unknown }> {
  let out = '';
  let log = '';
  const program = buildProgram({ out: (s) => void (out += s), log: (s) => void (log += s + '\n') });
  for (const c of [program, ...program.commands]) {
    c.exitOverride();
    c.configureOutput({ writeOut: (s) => void (out += s), writeErr: (s) => void (log += s) });
  }
  try {
    await program.parseAsync(['node', 'treeline', ...args]);
    return { out, log };
  } catch (error) {
    return { out, log, error };
  }
}

describe('treeline CLI', () => {
  it('generate writes seeded CSV to stdout', async () => {
    const a = await run(['generate', 'uniform', '-n', '4', '-d', '3', '--seed', '5']);
    const b = await run(['generate', 'uniform', '-n', '4', '-d', '3', '--seed', '5']);
    expect(a.error).toBeUndefined();
    const lines = a.out.trim().split('\n');
    expect(lines[0]).toBe('x0,x1,x2');
    expect(lines.length).toBe(5);
    expect(a.out).toBe(b.out);
  });

  it('bad input maps to the input exit code with a message naming the value', async () => {
    const r = await run(['generate', 'moons', '-n', '4', '-d', '3']);
    expect(r.error).toBeInstanceOf(InputError);
    expect(exitCodeFor(r.error)).toBe(EXIT.input);
    expect((r.error as Error).message).toMatch(/got 3/);
    expect(exitCodeFor(new GpuUnavailableError('x'))).toBe(EXIT.noGpu);
  });

  it('every command has --help with examples', async () => {
    for (const cmd of ['info', 'bench', 'generate', 'emst', 'hdbscan', 'predict', 'mst', 'stats']) {
      const r = await run([cmd, '--help']);
      expect(r.out).toMatch(/Examples:\n  \$ treeline /);
    }
  });
});
