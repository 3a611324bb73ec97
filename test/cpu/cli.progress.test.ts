/**
 * issue 15 §3, progress from the first second to the last: the library's onProgress(fraction, phase) reports every
 * phase (BVH, k-NN, each Borůvka round, sort, clustering) from the start; the CLI's bar (src/cli/progress.ts) draws
 * phase, percentage and elapsed time on a terminal; with --verbose every command prints one line per phase, the
 * first long before the MST is done. CLI runs are the real executable as a child process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatElapsed, Progress, renderBar, renderPhaseLine } from '../../src/cli/progress.js';
import { generate } from '../../src/datasets/generate.js';
import { emst } from '../../src/emst/emst.js';
import { hdbscan } from '../../src/hdbscan.js';
import { writeNpy } from '../../src/io/npy.js';
import { mstStats } from '../../src/stats/mstStats.js';
import { runCliProcess } from '../helpers/cli.process.js';

const cpu = { backend: 'cpu' as const };

/** A fake terminal: what was written to the bar and logged, with a hand-moved clock. */
function fakeTerminal(tty = true) {
  const bar: string[] = [];
  const logged: string[] = [];
  let t = 0;
  const io = {
    out: () => {},
    log: (s: string) => void logged.push(s),
    progress: tty ? (s: string) => void bar.push(s) : undefined,
  };
  return { io, bar, logged, now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('renderBar(command, phase, fraction, elapsed)', () => {
  it('issue 15: shows the command, the phase, a bar, the whole percentage and the elapsed time', () => {
    expect(renderBar('emst', 'k-NN', 0.5, 2340)).toBe(`emst  k-NN  [${'#'.repeat(12)}${'.'.repeat(12)}]   50%  2.3 s`);
    expect(renderBar('emst', 'sort', 1.7, 0)).toContain(`[${'#'.repeat(24)}]  100%`);
    expect(renderBar('emst', 'bvh', -1, 0)).toContain(`[${'.'.repeat(24)}]    0%`);
    expect(formatElapsed(187_400)).toBe('3 min 07 s');
    expect(renderPhaseLine('hdbscan', 'Borůvka round 2', 0.456, 1500)).toBe('hdbscan: Borůvka round 2 (45%, 1.5 s)');
  });
});

describe('Progress(io, command)', () => {
  it('issue 15: draws a new phase at once (not after a second), throttles fractions, clears the line when done', () => {
    const term = fakeTerminal();
    const p = new Progress(term.io, 'emst', { now: term.now, tickMs: 0 });
    p.phase('read');
    expect(term.bar).toEqual([`\r\x1b[2K${renderBar('emst', 'read', 0, 0)}`]);
    p.onProgress(0.1, 'k-NN'); // a new phase: drawn at once
    p.onProgress(0.2); // the same phase within 100 ms: skipped
    expect(term.bar.length).toBe(2);
    term.advance(150);
    p.onProgress(0.3);
    expect(term.bar.at(-1)).toBe(`\r\x1b[2K${renderBar('emst', 'k-NN', 0.3, 150)}`);
    p.onProgress(0.2, 'k-NN'); // fractions never go back
    term.advance(150);
    p.onProgress(0.25);
    expect(term.bar.at(-1)).toContain(' 30%');
    p.done();
    expect(term.bar.at(-1)).toBe('\r\x1b[2K');
    p.onProgress(0.9, 'sort'); // after done: nothing
    expect(term.bar.at(-1)).toBe('\r\x1b[2K');
    expect(term.logged).toEqual([]);
  });

  it('issue 15: elsewhere draws nothing; with verbose logs one line per phase', () => {
    const quiet = fakeTerminal(false);
    const q = new Progress(quiet.io, 'emst', { now: quiet.now });
    q.phase('read');
    q.onProgress(0.5, 'k-NN');
    q.done();
    expect(quiet.logged).toEqual([]);

    const term = fakeTerminal(false);
    const p = new Progress(term.io, 'hdbscan', { verbose: true, now: term.now });
    p.phase('read');
    term.advance(400);
    p.onProgress(0.1, 'k-NN');
    p.onProgress(0.2, 'k-NN');
    p.onProgress(0.3);
    p.onProgress(0.5, 'Borůvka round 1');
    p.done();
    expect(term.logged).toEqual([
      'hdbscan: read (0%, 0.0 s)',
      'hdbscan: k-NN (10%, 0.4 s)',
      'hdbscan: Borůvka round 1 (50%, 0.4 s)',
    ]);
  });

  it('log() clears the bar, logs, and draws it again', () => {
    const term = fakeTerminal();
    const p = new Progress(term.io, 'hdbscan', { now: term.now, tickMs: 0 });
    p.phase('read');
    p.log('hdbscan: warning: …');
    expect(term.logged).toEqual(['hdbscan: warning: …']);
    expect(term.bar.slice(-2)).toEqual(['\r\x1b[2K', `\r\x1b[2K${renderBar('hdbscan', 'read', 0, 0)}`]);
    p.done();
  });
});

describe('onProgress(fraction, phase) of the library', () => {
  const points = generate('uniform', { n: 30000, dim: 2, seed: 7 });

  it('issue 15: emst(points) reports bvh, k-NN, every Borůvka round and sort, from the start, non-decreasing, ending at 1', async () => {
    const seen: [number, string | undefined][] = [];
    const tree = await emst(points, { dim: 2, ...cpu, onProgress: (f, phase) => void seen.push([f, phase]) });
    const phases = seen.map(([, p]) => p);
    expect(phases[0]).toBe('bvh');
    expect(seen[0][0]).toBe(0);
    expect(phases).toContain('k-NN');
    const rounds = phases.filter((p) => /^Borůvka round \d+$/.test(p ?? ''));
    expect(rounds.length).toBeGreaterThan(3);
    expect(rounds[0]).toBe('Borůvka round 1');
    expect(phases.indexOf('k-NN')).toBeLessThan(phases.indexOf('Borůvka round 1'));
    expect(phases.at(-1)).toBe('sort');
    expect(seen.at(-1)![0]).toBe(1);
    for (let i = 1; i < seen.length; i++) expect(seen[i][0]).toBeGreaterThanOrEqual(seen[i - 1][0]);
    // The first round starts before half the work is reported (it was reported at 68–89 % as edges / (n − 1)).
    expect(seen.find(([, p]) => p === 'Borůvka round 1')![0]).toBeLessThan(0.5);
    expect(seen.find(([, p]) => p === 'Borůvka round 2')![0]).toBeLessThan(0.6);
    expect(tree.sources.length).toBe(29999);
  });

  it('issue 15: hdbscan(points) and mstStats(points) report the MST phases, then their own', async () => {
    const h: (string | undefined)[] = [];
    await hdbscan(points, { dim: 2, minClusterSize: 20, ...cpu, onProgress: (_f, phase) => void h.push(phase) });
    expect(h).toContain('k-NN');
    expect(h).toContain('Borůvka round 1');
    expect(h.at(-1)).toBe('cluster');
    const s: (string | undefined)[] = [];
    await mstStats(points, { dim: 2, ...cpu, onProgress: (_f, phase) => void s.push(phase) });
    expect(s).toContain('Borůvka round 1');
    expect(s.indexOf('branches')).toBeGreaterThan(s.indexOf('sort'));
    expect(s.at(-1)).toBe('histograms');
  });
});

describe('treeline --verbose: one line per phase on stderr (child process)', () => {
  let dir: string;
  let input: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'treeline-progress-'));
    input = join(dir, 'uniform.npy');
    writeFileSync(input, writeNpy(generate('uniform', { n: 60000, dim: 2, seed: 3 }), [60000, 2]));
    writeFileSync(join(dir, 'graph.txt'), '0 1 1\n1 2 2\n0 2 3\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The phase lines of `command` in stderr, in order (`emst: k-NN (10%, 0.4 s)` → 'k-NN'). */
  const phases = (stderr: string, command: string): string[] =>
    stderr
      .split('\n')
      .map((l) => new RegExp(`^${command}: (.+) \\(\\d+%, [\\d.]+ s\\)$`).exec(l)?.[1])
      .filter((p): p is string => p !== undefined);

  it('issue 15: emst prints read, bvh, k-NN, every round, sort and write, before its summary', async () => {
    const r = await runCliProcess(['emst', input, '--backend', 'cpu', '--verbose', '-o', join(dir, 'edges.csv')]);
    expect(r.code).toBe(0);
    const p = phases(r.stderr, 'emst');
    expect(p.slice(0, 3)).toEqual(['read', 'bvh', 'k-NN']);
    expect(p[3]).toBe('Borůvka round 1');
    expect(p.filter((x) => x.startsWith('Borůvka round')).length).toBeGreaterThan(3);
    expect(p.slice(-2)).toEqual(['sort', 'write']);
    // Every phase line comes before the summary, which is printed once the tree is written.
    expect(r.stderr.indexOf('emst: read')).toBeLessThan(r.stderr.indexOf('→ EMST of'));
    expect(r.stderr.lastIndexOf('emst: write')).toBeLessThan(r.stderr.indexOf('→ EMST of'));
  });

  it('issue 15: hdbscan, stats and mst print their phases; without --verbose (not a terminal) nothing but the summary', async () => {
    const h = await runCliProcess([
      'hdbscan',
      input,
      '--min-cluster-size',
      '20',
      '--backend',
      'cpu',
      '--verbose',
      '-o',
      join(dir, 'labels.csv'),
    ]);
    expect(h.code).toBe(0);
    const hp = phases(h.stderr, 'hdbscan');
    expect(hp.slice(0, 3)).toEqual(['read', 'bvh', 'k-NN']);
    expect(hp).toContain('Borůvka round 1');
    expect(hp.slice(-2)).toEqual(['cluster', 'write']);

    const s = await runCliProcess(['stats', input, '--backend', 'cpu', '--verbose', '-o', join(dir, 'stats.json')]);
    expect(s.code).toBe(0);
    const sp = phases(s.stderr, 'stats');
    expect(sp.slice(0, 3)).toEqual(['read', 'bvh', 'k-NN']);
    expect(sp).toContain('Borůvka round 1');
    expect(sp.slice(-3)).toEqual(['branches', 'histograms', 'write']);

    const m = await runCliProcess([
      'mst',
      join(dir, 'graph.txt'),
      '--backend',
      'cpu',
      '--verbose',
      '-o',
      join(dir, 'forest.csv'),
    ]);
    expect(m.code).toBe(0);
    expect(phases(m.stderr, 'mst')).toEqual(['read', 'MST', 'write']);

    const quiet = await runCliProcess(['emst', input, '--backend', 'cpu', '-o', join(dir, 'edges.csv')]);
    expect(quiet.code).toBe(0);
    expect(phases(quiet.stderr, 'emst')).toEqual([]);
    expect(quiet.stderr).not.toContain('\r');
  });
});
