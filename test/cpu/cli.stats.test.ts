/**
 * `treeline stats` through buildProgram(io): JSON (default, --json, --raw, --timings), the CSV histogram table, NPY
 * folders, RA/Dec columns, periodic boxes, --plot, --compare against realisations (χ² only where N > bins + 2), and bad
 * input mapped to the input exit code; and issue 7's example on an HDF5 snapshot the test writes with h5wasm.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as h5wasm from 'h5wasm/node';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chi2Statistics } from '../../src/cli/stats.js';
import { exitCodeFor, EXIT } from '../../src/cli/program.js';
import { blobs, uniform } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';
import { parseNpy } from '../../src/io/npy.js';
import { mstStats } from '../../src/stats/mstStats.js';
import { parseCsvColumns, runCli, tempDir, writePointsCsv } from '../helpers/cli.js';

const dir = tempDir('stats-cli-');
const n = 300;
const points = blobs({ n, dim: 2, seed: 5, clusters: 3 });
const csv = writePointsCsv(join(dir, 'points.csv'), points, 2);
const cpu = ['--backend', 'cpu'];

function expectInputError(r: { error?: unknown }, message: RegExp): void {
  expect(r.error).toBeInstanceOf(InputError);
  expect(exitCodeFor(r.error)).toBe(EXIT.input);
  expect((r.error as Error).message).toMatch(message);
}

describe('treeline stats', () => {
  it('json on stdout by default: summaries and histograms equal to the library’s', async () => {
    const r = await runCli(['stats', csv, ...cpu]);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.out);
    const lib = await mstStats(points, { dim: 2, backend: 'cpu' });
    expect(j.n).toBe(n);
    expect(j.numEdges).toBe(n - 1);
    expect(j.numBranches).toBe(lib.branchLengths.length);
    expect(j.coords).toBe('cartesian');
    expect(j.summary.degree.count).toBe(n);
    expect(j.summary.degree.mean).toBeCloseTo((2 * (n - 1)) / n, 12);
    expect(j.summary.degree.counts.reduce((s: number, c: number) => s + c, 0)).toBe(n);
    for (const name of ['degree', 'edgeLength', 'branchLength', 'branchShape'] as const) {
      expect(j.histograms[name].y).toEqual(Array.from(lib.histograms[name].y));
      expect(j.histograms[name].x).toEqual(Array.from(lib.histograms[name].x));
    }
    expect(j.raw).toBeUndefined();
    expect(r.log).toMatch(/300 points × 2 → 299 edges, \d+ branches; mean d 1\.993/);
  });

  it('--json --raw --timings: the per-node, per-edge and per-branch arrays and the phase times', async () => {
    const out = join(dir, 'raw.json');
    const r = await runCli(['stats', csv, '--json', '--raw', '--timings', '-o', out, ...cpu]);
    expect(r.error).toBeUndefined();
    expect(r.out).toBe('');
    const j = JSON.parse(readFileSync(out, 'utf8'));
    const lib = await mstStats(points, { dim: 2, backend: 'cpu' });
    expect(j.raw.degree).toEqual(Array.from(lib.degree));
    expect(j.raw.edgeLengths).toEqual(Array.from(lib.edgeLengths));
    expect(j.raw.branchEnds.length).toBe(2 * lib.branchLengths.length);
    expect(j.timings['stats::total']).toBeGreaterThanOrEqual(0);
    expect(r.log).toMatch(/stats::branches/);
  });

  it('--format csv: one row per bin (statistic,lo,hi,x,count,y), 6 + 100 + 100 + 50 rows', async () => {
    const r = await runCli(['stats', csv, '--format', 'csv', '--counts', ...cpu]);
    expect(r.error).toBeUndefined();
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toBe('statistic,lo,hi,x,count,y');
    expect(lines.length).toBe(1 + 256);
    expect(lines[1]).toMatch(/^degree,0\.5,1\.5,1,\d+,\d+$/);
    const cols = parseCsvColumns(
      lines
        .filter((l) => !l.startsWith('degree'))
        .join('\n')
        .replace(/^[a-zA-Z]+,/gm, ''),
    );
    expect(cols.count).toEqual(cols.y); // --counts: y is the raw count
  });

  it('--format npy writes every array, histograms in hist/', async () => {
    const out = join(dir, 'npy');
    const r = await runCli(['stats', csv, '--format', 'npy', '-o', out, ...cpu]);
    expect(r.error).toBeUndefined();
    expect(parseNpy(readFileSync(join(out, 'degree.npy'))).shape).toEqual([n]);
    expect(parseNpy(readFileSync(join(out, 'edge_lengths.npy'))).dtype).toBe('<f8');
    const ends = parseNpy(readFileSync(join(out, 'branch_ends.npy')));
    const k = parseNpy(readFileSync(join(out, 'branch_lengths.npy'))).shape[0];
    expect(ends.shape).toEqual([k, 2]);
    expect(parseNpy(readFileSync(join(out, 'hist', 'edgeLength_y.npy'))).shape).toEqual([100]);
    expect(parseNpy(readFileSync(join(out, 'hist', 'branchShape_edges.npy'))).shape).toEqual([51]);
  });

  it('--coords radec with --columns: unit-sphere chords, as the library', async () => {
    const sky = uniform({ n: 200, dim: 2, seed: 9 });
    const radec = new Float32Array(3 * 200);
    for (let i = 0; i < 200; i++) radec.set([i, 360 * sky[2 * i], 40 * sky[2 * i + 1] - 20], 3 * i);
    const file = writePointsCsv(join(dir, 'sky.csv'), radec, 3, ['id', 'ra', 'dec']);
    const r = await runCli(['stats', file, '--coords', 'radec', '--columns', 'ra,dec', '--raw', ...cpu]);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.out);
    const pts = new Float32Array(400);
    for (let i = 0; i < 200; i++) pts.set([radec[3 * i + 1], radec[3 * i + 2]], 2 * i);
    const lib = await mstStats(pts, { dim: 2, coords: 'radec', backend: 'cpu' });
    expect(j.coords).toBe('radec');
    expect(j.raw.edgeLengths).toEqual(Array.from(lib.edgeLengths));
    expect(Math.max(...j.raw.edgeLengths)).toBeLessThan(2);
  });

  it('--periodic L is a cube; Lx,Ly per axis; the count must match the columns', async () => {
    const box = uniform({ n: 200, dim: 2, seed: 4 }).map((v) => 10 * v);
    const file = writePointsCsv(join(dir, 'box.csv'), box, 2);
    const cube = await runCli(['stats', file, '--periodic', '10', '--raw', ...cpu]);
    expect(cube.error).toBeUndefined();
    const axes = await runCli(['stats', file, '--periodic', '10,10', '--raw', ...cpu]);
    const jc = JSON.parse(cube.out);
    expect(jc.box).toEqual([10, 10]);
    expect(JSON.parse(axes.out).raw).toEqual(jc.raw);
    const lib = await mstStats(box, { dim: 2, box: [10, 10], backend: 'cpu' });
    expect(jc.raw.edgeLengths).toEqual(Array.from(lib.edgeLengths));
    const open = JSON.parse((await runCli(['stats', file, '--raw', ...cpu])).out);
    expect(jc.summary.edgeLength.sum).toBeLessThan(open.summary.edgeLength.sum); // the torus joins across faces
    expectInputError(
      await runCli(['stats', file, '--periodic', '10,10,10', ...cpu]),
      /3 side lengths given for 2-dimensional/,
    );
    expectInputError(await runCli(['stats', file, '--periodic', '0', ...cpu]), /--periodic: expected .* got '0'/);
  });

  it('--min-edge-length: the scale cut reaches the EMST', async () => {
    const r = await runCli(['stats', csv, '--min-edge-length', '0.5', '--raw', ...cpu]);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.out);
    const lib = await mstStats(points, { dim: 2, minEdgeLength: 0.5, backend: 'cpu' });
    expect(j.minEdgeLength).toBe(0.5);
    expect(j.raw.edgeLengths).toEqual(Array.from(lib.edgeLengths));
    expect(Math.min(...j.raw.edgeLengths)).toBeGreaterThanOrEqual(0.5 - 1e-6);
    expectInputError(
      await runCli(['stats', csv, '--min-edge-length', '-1', ...cpu]),
      /--min-edge-length: expected a finite number ≥ 0, got '-1'/,
    );
  });

  it('--plot writes the 4-panel SVG', async () => {
    const svg = join(dir, 'mst.svg');
    const r = await runCli(['stats', csv, '--plot', svg, ...cpu]);
    expect(r.error).toBeUndefined();
    const text = readFileSync(svg, 'utf8');
    expect(text).toMatch(/<svg/);
    for (const name of ['degree', 'edgeLength', 'branchLength', 'branchShape']) expect(text).toContain(`panel-${name}`);
    expect(r.log).toMatch(/figure written to/);
  });

  it('--compare: realisations on the catalogue’s bins; χ² only for the statistics N supports', async () => {
    const files = Array.from({ length: 10 }, (_, i) =>
      writePointsCsv(join(dir, `mock${i}.csv`), blobs({ n, dim: 2, seed: 100 + i, clusters: 3 }), 2),
    );
    const svg = join(dir, 'compare.svg');
    const r = await runCli(['stats', csv, '--compare', ...files, '--plot', svg, ...cpu]);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.out);
    expect(j.realisations.length).toBe(10);
    expect(j.realisations[0].file).toBe(files[0]);
    expect(j.comparison.realisations).toBe(10);
    expect(j.chi2Statistics).toEqual(['degree']); // 10 > 6 + 2, but not > 100 + 2 or 50 + 2
    expect(j.comparison.degree.chi2.chi2).toBeGreaterThanOrEqual(0);
    expect(j.comparison.edgeLength.chi2).toBeNull();
    expect(j.comparison.edgeLength.edges).toEqual(j.histograms.edgeLength.edges);
    expect(r.log).toMatch(/against 10 realisations: degree χ² /);
    expect(readFileSync(svg, 'utf8')).toContain('ratio-degree');
  });

  it('chi2Statistics adds statistics while N > Σ bins + 2', () => {
    const h = (k: number) => ({ x: new Float64Array(k) });
    const hist = { degree: h(6), edgeLength: h(100), branchLength: h(100), branchShape: h(50) } as never;
    expect(chi2Statistics(hist, 8)).toEqual([]);
    expect(chi2Statistics(hist, 9)).toEqual(['degree']);
    expect(chi2Statistics(hist, 60)).toEqual(['degree', 'branchShape']);
    expect(chi2Statistics(hist, 259)).toEqual(['degree', 'edgeLength', 'branchLength', 'branchShape']);
  });

  it('issue 7: treeline stats cat.h5 --dataset PartType1/Coordinates --periodic 100 --plot mst.svg --json', async () => {
    await h5wasm.ready;
    const coords = uniform({ n: 400, dim: 3, seed: 12 }).map((v) => 100 * v);
    const file = join(dir, 'cat.h5');
    const f = new h5wasm.File(file, 'w');
    try {
      f.create_group('PartType1').create_dataset({ name: 'Coordinates', data: coords, shape: [400, 3], dtype: '<f' });
    } finally {
      f.close();
    }
    const svg = join(dir, 'snap.svg');
    const r = await runCli([
      'stats',
      file,
      '--dataset',
      'PartType1/Coordinates',
      '--periodic',
      '100',
      '--plot',
      svg,
      '--json',
      ...cpu,
    ]);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.out);
    const lib = await mstStats(coords, { dim: 3, box: [100, 100, 100], backend: 'cpu' });
    expect(j.box).toEqual([100, 100, 100]);
    expect(j.numEdges).toBe(399);
    expect(j.histograms.branchLength.y).toEqual(Array.from(lib.histograms.branchLength.y));
    expect(readFileSync(svg, 'utf8')).toContain('panel-branchShape');
  });

  it('bad input: missing file, --json with --format csv, bad --coords, radec with 4 columns', async () => {
    expectInputError(await runCli(['stats', join(dir, 'nope.csv'), ...cpu]), /no such file/);
    expectInputError(
      await runCli(['stats', csv, '--json', '--format', 'csv', ...cpu]),
      /--json conflicts with --format csv/,
    );
    expectInputError(
      await runCli(['stats', csv, '--coords', 'polar', ...cpu]),
      /--coords: expected one of xyz, radec, got 'polar'/,
    );
    const wide = writePointsCsv(join(dir, 'wide.csv'), new Float32Array(12), 4);
    expectInputError(
      await runCli(['stats', wide, '--coords', 'radec', ...cpu]),
      /2 columns \(RA, Dec in degrees\) or 3/,
    );
    expect(existsSync(join(dir, 'nope.csv'))).toBe(false);
  });
});
