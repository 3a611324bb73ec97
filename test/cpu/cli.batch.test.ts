/**
 * Batches on one machine (issue 20 §3), through buildProgram(io): `treeline stats --jitter/--subsample
 * --realisations` (json, csv and npy equal to realisationStats; --plot bands; option errors naming the option and
 * the value) and `treeline hdbscan a b … -o outdir/` (each output equal to its single-file run, naming, errors).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor, EXIT } from '../../src/cli/program.js';
import { blobs, uniform } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';
import { parseNpy } from '../../src/io/npy.js';
import { realisationStats } from '../../src/stats/realisations.js';
import { STAT_NAMES } from '../../src/stats/types.js';
import { parseCsvColumns, runCli, tempDir, writePointsCsv } from '../helpers/cli.js';

const dir = tempDir('batch-cli-');
const cpu = ['--backend', 'cpu'];
const points = blobs({ n: 300, dim: 2, seed: 5, clusters: 3 });
const csv = writePointsCsv(join(dir, 'points.csv'), points, 2);

function expectInputError(r: { error?: unknown }, message: RegExp): void {
  expect(r.error).toBeInstanceOf(InputError);
  expect(exitCodeFor(r.error)).toBe(EXIT.input);
  expect((r.error as Error).message).toMatch(message);
}

/** JSON numbers as the CLI writes them (NaN as "NaN"). */
const asJson = (a: ArrayLike<number>): unknown[] => Array.from(a, (v) => (Number.isFinite(v) ? v : String(v)));

describe('treeline stats --jitter / --subsample --realisations', () => {
  it('--jitter: json resampling equals realisationStats for the seed; the summary names k and the seeds', async () => {
    const r = await runCli(['stats', csv, '--jitter', '0.05', '--realisations', '4', '--seed', '3', ...cpu]);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.out);
    const lib = await realisationStats(points, {
      dim: 2,
      backend: 'cpu',
      jitter: 0.05,
      realisations: 4,
      seed: 3,
    });
    expect(j.resampling).toMatchObject({ method: 'jitter', sigma: 0.05, realisations: 4, seed: 3 });
    for (const name of STAT_NAMES) {
      expect(j.resampling.histograms[name].mean).toEqual(asJson(lib.moments[name].mean));
      expect(j.resampling.histograms[name].std).toEqual(asJson(lib.moments[name].std));
      expect(j.resampling.histograms[name].edges).toEqual(j.histograms[name].edges);
    }
    expect(j.comparison).toBeUndefined();
    expect(r.log).toMatch(/4 realisations \(jitter σ 0\.05, seeds 3…6\) on the catalogue's bins/);
    expect(r.log).toMatch(/largest \|catalogue − mean\| \/ std over the bins: degree [\d.]+, edgeLength/);
  });

  it('--subsample --format csv: mean and std columns beside each bin; npy realisations/', async () => {
    const args = ['stats', csv, '--subsample', '0.5', '--realisations', '3', ...cpu];
    const r = await runCli([...args, '--format', 'csv']);
    expect(r.error).toBeUndefined();
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toBe('statistic,lo,hi,x,count,y,mean,std');
    expect(lines.length).toBe(1 + 256);
    const lib = await realisationStats(points, { dim: 2, backend: 'cpu', subsample: 0.5, realisations: 3 });
    const degree = parseCsvColumns(
      lines
        .filter((l, i) => i === 0 || l.startsWith('degree,'))
        .join('\n')
        .replace(/^(degree|statistic),/gm, ''),
    );
    expect(degree.mean).toEqual(Array.from(lib.moments.degree.mean));
    expect(degree.std).toEqual(Array.from(lib.moments.degree.std));

    const out = join(dir, 'npy-sub');
    const n = await runCli([...args, '--format', 'npy', '-o', out]);
    expect(n.error).toBeUndefined();
    const std = parseNpy(readFileSync(join(out, 'realisations', 'edgeLength_std.npy')));
    expect(std.dtype).toBe('<f8');
    const values = new Float64Array(Uint8Array.from(std.data).buffer);
    expect(Array.from(values)).toEqual(Array.from(lib.moments.edgeLength.std));
  });

  it('a periodic box: the jittered realisations stay in it (the library wraps them) and json says so', async () => {
    const box = uniform({ n: 200, dim: 2, seed: 4 });
    const file = writePointsCsv(join(dir, 'box.csv'), box, 2);
    const r = await runCli(['stats', file, '--periodic', '1', '--jitter', '0.3', '--realisations', '2', ...cpu]);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.out);
    const lib = await realisationStats(box, {
      dim: 2,
      backend: 'cpu',
      box: [1, 1],
      jitter: 0.3,
      realisations: 2,
    });
    expect(j.box).toEqual([1, 1]);
    expect(j.resampling.histograms.edgeLength.mean).toEqual(asJson(lib.moments.edgeLength.mean));
  });

  it('--plot draws the realisations’ mean and bands, labelled by the method', async () => {
    const svg = join(dir, 'jitter.svg');
    const r = await runCli(['stats', csv, '--jitter', '0.05', '--realisations', '3', '--plot', svg, ...cpu]);
    expect(r.error).toBeUndefined();
    const text = readFileSync(svg, 'utf8');
    expect(text).toContain('jittered (mean of 3)');
    expect(text).toContain('band-1sigma');
    expect(text).toContain('ratio-edgeLength');
  });

  it('option errors name the option and the value', async () => {
    const cases: [string[], RegExp][] = [
      [['--jitter', '-1', '--realisations', '2'], /--jitter: expected σ or σx,σy\[,σz\].*got '-1'/],
      [['--jitter', 'abc', '--realisations', '2'], /--jitter: .*got 'abc'/],
      [['--subsample', '0', '--realisations', '2'], /--subsample: expected a fraction in \(0, 1\], got '0'/],
      [['--subsample', '1.5', '--realisations', '2'], /--subsample: .*got '1\.5'/],
      [['--jitter', '0.1', '--realisations', '0'], /--realisations: expected an integer ≥ 1, got '0'/],
      [['--jitter', '0.1', '--realisations', '2.5'], /--realisations: expected an integer ≥ 1, got '2\.5'/],
      [['--jitter', '0.1', '--realisations', '2', '--seed', '-3'], /--seed: expected an integer ≥ 0, got '-3'/],
      [['--jitter', '0.1'], /--jitter needs --realisations <k>/],
      [['--realisations', '3'], /--realisations 3 counts --jitter or --subsample realisations/],
      [['--seed', '3'], /--seed 3 seeds --jitter or --subsample/],
      [['--jitter', '0.1', '--subsample', '0.5', '--realisations', '2'], /give one of them/],
      [['--jitter', '0.1', '--realisations', '2', '--compare', csv], /--jitter and --compare both give/],
      [['--jitter', '0.1,0.1,0.1', '--realisations', '2'], /options\.sigma to have dim=2 entries, got 3/],
      [
        ['--jitter', '0.1', '--realisations', '2', '--coords', 'radec', '--columns', '0,1'],
        /--jitter .* --coords radec .* not supported/,
      ],
    ];
    for (const [extra, message] of cases) expectInputError(await runCli(['stats', csv, ...extra, ...cpu]), message);
  });
});
