/**
 * issue 15 §3 and §4.4, §4.7: outputs are written atomically (a temporary file beside the target, renamed on success,
 * removed on failure or interrupt: an existing file is never truncated by a failed run), and every output path is
 * checked before any computation (a missing folder or a path that cannot be written is an input error at once, naming
 * the path). The real executable as a child process.
 *
 * Tests run as root here, which no permission bit stops: a read-only place is /sys (sysfs refuses new files to root
 * too, EACCES or EROFS); the other cases are a missing folder, a parent that is a regular file, a folder where a file
 * goes and the reverse.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../src/datasets/generate.js';
import { writeNpy } from '../../src/io/npy.js';
import { runCliProcess } from '../helpers/cli.process.js';

let dir: string;
let small: string;
let big: string;
const OLD = 'the previous result, which a failed run must leave as it was\n';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'treeline-atomic-'));
  small = join(dir, 'small.npy');
  writeFileSync(small, writeNpy(generate('blobs', { n: 3000, dim: 2, seed: 1, clusters: 3 }), [3000, 2]));
  big = join(dir, 'big.npy');
  writeFileSync(big, writeNpy(generate('uniform', { n: 300_000, dim: 2, seed: 2 }), [300_000, 2]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh folder holding `out.csv` with OLD in it. */
function folderWithOldOutput(name: string): { folder: string; out: string } {
  const folder = join(dir, name);
  mkdirSync(folder);
  const out = join(folder, 'out.csv');
  writeFileSync(out, OLD);
  return { folder, out };
}

/** Temporary files (`.<name>.<pid>.<hex>.tmp`) left anywhere under `folder`. */
const temporaries = (folder: string): string[] =>
  (readdirSync(folder, { recursive: true }) as string[]).filter((f) => /\.tmp$/.test(f));

describe('output paths are checked before any computation (exit 2, naming the path)', () => {
  it('issue 15: -o under a missing folder, or under a regular file', async () => {
    const missing = join(dir, 'no-such-folder', 'edges.csv');
    const r = await runCliProcess(['emst', big, '--backend', 'cpu', '--verbose', '-o', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`-o ${missing}: no such folder`);
    expect(r.stderr).not.toContain('emst: k-NN'); // nothing was computed (not even read)
    expect(r.stderr).not.toContain('emst: read');

    const underFile = join(small, 'edges.csv');
    const g = await runCliProcess(['hdbscan', big, '--backend', 'cpu', '--verbose', '-o', underFile]);
    expect(g.code).toBe(2);
    expect(g.stderr).toContain(`-o ${underFile}: ${small} is not a folder`);
    expect(g.stderr).not.toContain('hdbscan: read');
  });

  it('issue 15: --save-model and --plot where no file can be created (/sys refuses root too), a folder where a file goes', async () => {
    const { out } = folderWithOldOutput('paths');
    const model = '/sys/treeline-test-model.json';
    const h = await runCliProcess(['hdbscan', big, '--backend', 'cpu', '--verbose', '-o', out, '--save-model', model]);
    expect(h.code).toBe(2);
    expect(h.stderr).toMatch(
      /--save-model \/sys\/treeline-test-model\.json: cannot create a file in \/sys \((EACCES|EROFS|EPERM)\)/,
    );
    expect(h.stderr).not.toContain('hdbscan: read');
    expect(readFileSync(out, 'utf8')).toBe(OLD);

    const s = await runCliProcess([
      'stats',
      big,
      '--backend',
      'cpu',
      '--verbose',
      '--plot',
      join(dir, 'figure.svg', '..'),
    ]);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/--plot .*: expected a \.svg or \.png file/);

    const folderPlot = join(dir, 'plot-folder.svg');
    mkdirSync(folderPlot);
    const f = await runCliProcess(['stats', big, '--backend', 'cpu', '--verbose', '--plot', folderPlot]);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain(`--plot ${folderPlot}: is a folder, not a file`);
    expect(f.stderr).not.toContain('stats: read');
  });

  it('issue 15: --format npy -o naming a regular file; generate -o under a missing folder', async () => {
    const { out } = folderWithOldOutput('npy-file');
    const r = await runCliProcess(['emst', small, '--backend', 'cpu', '--format', 'npy', '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`-o ${out}: exists and is not a folder`);
    expect(readFileSync(out, 'utf8')).toBe(OLD);

    const missing = join(dir, 'missing', 'points.csv');
    const g = await runCliProcess(['generate', 'uniform', '-n', '10', '-o', missing]);
    expect(g.code).toBe(2);
    expect(g.stderr).toContain(`-o ${missing}: no such folder`);
  });
});

describe('outputs are atomic: a failed run leaves existing files byte-identical and no temporary behind', () => {
  it('issue 15: a .npy folder whose sub-folder is blocked by a file fails at write time without replacing the files before it', async () => {
    const folder = join(dir, 'npy-out');
    mkdirSync(folder);
    const degree = join(folder, 'degree.npy');
    writeFileSync(degree, OLD);
    writeFileSync(join(folder, 'hist'), 'a file where stats puts its histogram folder\n');
    const r = await runCliProcess(['stats', small, '--backend', 'cpu', '--format', 'npy', '-o', folder]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(folder, 'hist')}: exists and is not a folder`);
    expect(readFileSync(degree, 'utf8')).toBe(OLD);
    expect(readdirSync(folder).sort()).toEqual(['degree.npy', 'hist']);
  });

  it('a successful hdbscan run replaces -o and --save-model and leaves no temporary behind', async () => {
    const { folder, out } = folderWithOldOutput('together');
    const model = join(folder, 'model.json');
    writeFileSync(model, OLD);
    const ok = await runCliProcess([
      'hdbscan',
      small,
      '--min-cluster-size',
      '20',
      '--backend',
      'cpu',
      '-o',
      out,
      '--save-model',
      model,
    ]);
    expect(ok.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^label,probability,outlier_score\n/);
    expect(JSON.parse(readFileSync(model, 'utf8'))).toHaveProperty('dim', 2);
    expect(temporaries(folder)).toEqual([]);
  });

  /** Runs `args`, sending `signal` once a stderr line matches `when`. */
  function interruptWhen(args: string[], when: RegExp, signal: NodeJS.Signals) {
    let sent = false;
    return runCliProcess(args, {
      onSpawn: (child: ChildProcess) => {
        let seen = '';
        child.stderr!.on('data', (s: Buffer | string) => {
          seen += String(s);
          if (!sent && when.test(seen)) {
            sent = true;
            child.kill(signal);
          }
        });
      },
    });
  }

  it('issue 15: Ctrl-C (SIGINT) during the computation exits 130 and leaves -o as it was', async () => {
    const { folder, out } = folderWithOldOutput('sigint');
    const r = await interruptWhen(
      ['emst', big, '--backend', 'cpu', '--threads', '1', '--verbose', '-o', out],
      /emst: k-NN/,
      'SIGINT',
    );
    expect(r.stderr).toContain('interrupted (SIGINT)');
    expect(r.code).toBe(130);
    expect(r.stderr).not.toContain('emst: write');
    expect(readFileSync(out, 'utf8')).toBe(OLD);
    expect(temporaries(folder)).toEqual([]);
  });

  it('issue 15: SIGTERM while hdbscan runs exits 143 and leaves -o and --save-model as they were', async () => {
    const { folder, out } = folderWithOldOutput('sigterm');
    const model = join(folder, 'model.json');
    writeFileSync(model, OLD);
    const args = [
      'hdbscan',
      big,
      '--min-cluster-size',
      '10',
      '--backend',
      'cpu',
      '--verbose',
      '-o',
      out,
      '--save-model',
      model,
    ];
    const r = await interruptWhen(args, /hdbscan: Borůvka round 1/, 'SIGTERM');
    expect(r.stderr).toContain('interrupted (SIGTERM)');
    expect(r.code).toBe(143);
    expect(readFileSync(out, 'utf8')).toBe(OLD);
    expect(readFileSync(model, 'utf8')).toBe(OLD);
    expect(temporaries(folder)).toEqual([]);
  });

  it('issue 15: SIGINT while the output is being written removes the temporary and keeps the old file', async () => {
    const { folder, out } = folderWithOldOutput('sigint-write');
    const r = await interruptWhen(['emst', big, '--backend', 'cpu', '--verbose', '-o', out], /emst: write/, 'SIGINT');
    expect(r.code).toBe(130);
    expect(readFileSync(out, 'utf8')).toBe(OLD);
    expect(temporaries(folder)).toEqual([]);
  });
});
