/**
 * Batches on one machine (issue 20 §3), through buildProgram(io): `treeline stats --jitter/--subsample
 * --realisations` (json, csv and npy equal to realisationStats; --plot bands; option errors naming the option and
 * the value) and `treeline hdbscan a b … -o outdir/` (each output equal to its single-file run, naming, errors).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor, EXIT } from '../../src/cli/program.js';
import { computeStats, measureCompareFile, type StatsCliOptions } from '../../src/cli/stats.js';
import { hdbscanBatch, hdbscanFile } from '../../src/cli/hdbscan.batch.js';
import type { HdbscanCliOptions } from '../../src/cli/hdbscan.js';
import { blobs, uniform } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';
import { parseNpy, writeNpy } from '../../src/io/npy.js';
import { binsOf } from '../../src/stats/histogram.js';
import { measureRealisation, realisationPoints, realisationStats } from '../../src/stats/realisations.js';
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

describe('computeStats runners: the seam a transport replaces', () => {
  const base = { coords: 'xyz', backend: 'cpu', threads: 1 } as StatsCliOptions;
  const mocks = [1, 2, 3, 4].map((seed) =>
    writePointsCsv(join(dir, `mock${seed}.csv`), blobs({ n: 200, dim: 2, seed: 40 + seed, clusters: 3 }), 2),
  );

  it('--compare through a runner finishing out of order, 3 at once: the comparison of the local run', async () => {
    const o = { ...base, compare: mocks };
    const local = await computeStats(csv, o);
    const order: number[] = [];
    const remote = await computeStats(csv, o, undefined, undefined, {
      concurrency: 3,
      compare: async (file, i, bins) => {
        await new Promise((resolve) => setTimeout(resolve, 5 * (4 - i)));
        const r = await measureCompareFile(file, o, { file: csv, dim: 2 }, bins);
        order.push(i);
        return r;
      },
    });
    expect(order).not.toEqual([0, 1, 2, 3]);
    expect(remote.realisations.map((r) => r.file)).toEqual(mocks);
    for (const name of STAT_NAMES) {
      expect(Array.from(remote.comparison![name].mean)).toEqual(Array.from(local.comparison![name].mean));
      expect(Array.from(remote.comparison![name].std)).toEqual(Array.from(local.comparison![name].std));
    }
  });

  it('--jitter through a runner that rebuilds each realisation from its task: the local moments', async () => {
    const o = { ...base, jitter: [0.05], realisations: 3, seed: 2 };
    const local = await computeStats(csv, o);
    const remote = await computeStats(csv, o, undefined, undefined, {
      concurrency: 2,
      realisation: (_r, _points, task) =>
        measureRealisation(realisationPoints(points, task), {
          dim: 2,
          backend: 'cpu',
          bins: binsOf(local.stats.histograms),
        }),
    });
    for (const name of STAT_NAMES) {
      expect(Array.from(remote.resampled!.moments[name].mean)).toEqual(Array.from(local.resampled!.moments[name].mean));
      expect(Array.from(remote.resampled!.moments[name].std)).toEqual(Array.from(local.resampled!.moments[name].std));
    }
  });

  it('a compare file of another dimension is an input error naming both files', async () => {
    const three = writePointsCsv(join(dir, 'three.csv'), uniform({ n: 20, dim: 3, seed: 1 }), 3);
    await expect(computeStats(csv, { ...base, compare: [mocks[0], three] })).rejects.toThrow(
      /three\.csv: 3 columns, but .*points\.csv has 2/,
    );
  });
});

describe('treeline hdbscan a b … -o outdir/', () => {
  const inputs = join(dir, 'inputs');
  mkdirSync(join(inputs, 'more'), { recursive: true });
  const a = writePointsCsv(join(inputs, 'a.csv'), blobs({ n: 240, dim: 2, seed: 1, clusters: 3 }), 2);
  const b = writePointsCsv(join(inputs, 'more', 'b.csv'), blobs({ n: 180, dim: 2, seed: 2, clusters: 2 }), 2);
  const c = join(inputs, 'c.npy');
  writeFileSync(c, writeNpy(blobs({ n: 150, dim: 3, seed: 3, clusters: 2 }), [150, 3]));
  const opts = ['--min-cluster-size', '10', ...cpu];

  /** The single-file command's output for `input` with `extra`, as bytes per file written. */
  async function single(input: string, extra: string[], out: string): Promise<void> {
    const r = await runCli(['hdbscan', input, ...opts, ...extra, '-o', out]);
    expect(r.error).toBeUndefined();
  }

  it('csv (default): each output equals the single-file run, named after its input', async () => {
    const out = join(dir, 'batch-csv');
    const r = await runCli(['hdbscan', a, b, c, ...opts, '-o', out]);
    expect(r.error).toBeUndefined();
    expect(readdirSync(out).sort()).toEqual(['a.csv', 'b.csv', 'c.csv']);
    for (const [input, name] of [
      [a, 'a'],
      [b, 'b'],
      [c, 'c'],
    ]) {
      const ref = join(dir, `single-${name}.csv`);
      await single(input, [], ref);
      expect(readFileSync(join(out, `${name}.csv`), 'utf8')).toBe(readFileSync(ref, 'utf8'));
    }
    expect(r.log).toMatch(/hdbscan: .*a\.csv \(file 1 of 3\):\nhdbscan: 240 points × 2, minClusterSize 10/);
    expect(r.log).toMatch(/hdbscan: 150 points × 3/);
    expect(r.log).toMatch(/hdbscan: 3 files clustered → /);
    expect(r.out).toBe('');
  });

  it('--format json and npy: the same files as one input gives, npy in a folder per input', async () => {
    const json = join(dir, 'batch-json');
    expect((await runCli(['hdbscan', a, c, ...opts, '--format', 'json', '-o', json])).error).toBeUndefined();
    const ref = join(dir, 'single-c.json');
    await single(c, ['--format', 'json'], ref);
    expect(readFileSync(join(json, 'c.json'), 'utf8')).toBe(readFileSync(ref, 'utf8'));
    expect(JSON.parse(readFileSync(join(json, 'a.json'), 'utf8')).n).toBe(240);

    const npy = join(dir, 'batch-npy');
    expect((await runCli(['hdbscan', a, b, ...opts, '--format', 'npy', '-o', npy])).error).toBeUndefined();
    const refDir = join(dir, 'single-b-npy');
    await single(b, ['--format', 'npy'], refDir);
    expect(readdirSync(join(npy, 'b')).sort()).toEqual(readdirSync(refDir).sort());
    for (const f of readdirSync(refDir)) expect(readFileSync(join(npy, 'b', f))).toEqual(readFileSync(join(refDir, f)));
    expect(existsSync(join(npy, 'a', 'labels.npy'))).toBe(true);
  });

  it('a failing input stops the batch, keeping the outputs finished before it', async () => {
    const out = join(dir, 'batch-fail');
    const bad = join(inputs, 'bad.csv');
    writeFileSync(bad, 'x,y\n1,2\n3,oops\n');
    const r = await runCli(['hdbscan', a, bad, b, ...opts, '-o', out]);
    expect(r.error).toBeInstanceOf(InputError);
    expect((r.error as Error).message).toMatch(/bad\.csv/);
    expect(readdirSync(out)).toEqual(['a.csv']);
  });

  it('errors before any work: no -o, -o a file, two inputs of one name, options naming one file', async () => {
    const file = join(dir, 'not-a-folder.csv');
    writeFileSync(file, 'x\n');
    const bb = writePointsCsv(join(inputs, 'b.csv'), blobs({ n: 50, dim: 2, seed: 9 }), 2);
    const cases: [string[], RegExp][] = [
      [[a, b], /2 input files writes one output per file: give a folder with -o <dir>\//],
      [[a, b, '-o', file], /-o .*not-a-folder\.csv: with 2 input files -o names a folder .* but it is a file/],
      [
        [a, b, bb, '-o', join(dir, 'x')],
        /more\/b\.csv and .*inputs\/b\.csv would both write b\.csv in .*x: give inputs with distinct names/,
      ],
      [[a, a, '-o', join(dir, 'x')], /would both write a\.csv/],
      [
        [a, b, '--format', 'npy', '-o', join(dir, 'x'), '--save-model', join(dir, 'm.json')],
        /--save-model names one file, but 2 input files were given/,
      ],
      [[a, b, '-o', join(dir, 'x'), '--plot', join(dir, 'p.svg')], /--plot names one file/],
      [
        [a, b, '-o', join(dir, 'x'), '--centers', 'centroid', '--centers-output', join(dir, 'c.csv')],
        /--centers-output names one file/,
      ],
    ];
    cases.push([[a, join(inputs, 'missing.csv'), '-o', join(dir, 'x')], /missing\.csv: no such file/]);
    cases.push([[a, inputs, '-o', join(dir, 'x')], /inputs: not a file/]);
    for (const [args, message] of cases) expectInputError(await runCli(['hdbscan', ...args, ...opts]), message);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });

  it('a runner (the transport seam) finishing out of order, 2 at once: the default batch’s files', async () => {
    const ref = join(dir, 'batch-ref');
    expect((await runCli(['hdbscan', a, b, c, ...opts, '-o', ref])).error).toBeUndefined();
    const out = join(dir, 'batch-runner');
    const o = {
      minClusterSize: [10],
      method: 'eom',
      epsilon: 0,
      maxClusterSize: 0,
      alpha: 1,
      backend: 'cpu',
      output: out,
    };
    let log = '';
    const io = { out: () => {}, log: (s: string) => void (log += s + '\n') };
    const order: string[] = [];
    await hdbscanBatch(io, [a, b, c], o as HdbscanCliOptions, {
      concurrency: 2,
      file: async (item, each, env) => {
        await new Promise((resolve) => setTimeout(resolve, item.input === a ? 40 : 0));
        const { run } = await hdbscanFile(io, item, each, env);
        order.push(item.input);
        return [`remote: ${run.table.n} points`];
      },
    });
    expect(order[0]).not.toBe(a);
    for (const name of ['a.csv', 'b.csv', 'c.csv'])
      expect(readFileSync(join(out, name), 'utf8')).toBe(readFileSync(join(ref, name), 'utf8'));
    expect(log).toMatch(/more\/b\.csv \(file 2 of 3\):\nremote: 180 points/);
  });

  it('one input keeps the single-file command: -o names the output file itself', async () => {
    const out = join(dir, 'one.csv');
    const r = await runCli(['hdbscan', a, ...opts, '-o', out]);
    expect(r.error).toBeUndefined();
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe('label,probability,outlier_score');
    expect(r.log).not.toMatch(/file 1 of/);
  });
});
