/**
 * `treeline emst` through buildProgram(io): every --format, --min-samples, column selection, headerless binary,
 * --timings, and bad input (missing file, bad column, NaN row, bad option values) mapped to the input exit code.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { exitCodeFor, EXIT } from '../../src/cli/program.js';
import { blobs } from '../../src/datasets/generate.js';
import { emst } from '../../src/emst/emst.js';
import { InputError } from '../../src/errors.js';
import { parseNpy, writeNpy } from '../../src/io/npy.js';
import { parseCsvColumns, runCli, tempDir, writePointsCsv } from '../helpers/cli.js';

const dir = tempDir();
const n = 240;
const points = blobs({ n, dim: 2, seed: 3, clusters: 3 });
const csv = writePointsCsv(join(dir, 'points.csv'), points, 2);
const cpu = ['--backend', 'cpu'];

function expectInputError(r: { error?: unknown }, message: RegExp): void {
  expect(r.error).toBeInstanceOf(InputError);
  expect(exitCodeFor(r.error)).toBe(EXIT.input);
  expect((r.error as Error).message).toMatch(message);
}

describe('treeline emst', () => {
  it('csv on stdout: source,target,weight in canonical order, the library’s tree', async () => {
    const r = await runCli(['emst', csv, ...cpu]);
    expect(r.error).toBeUndefined();
    const cols = parseCsvColumns(r.out);
    expect(Object.keys(cols)).toEqual(['source', 'target', 'weight']);
    const lib = await emst(points, { dim: 2, backend: 'cpu' });
    expect(cols.source).toEqual(Array.from(lib.sources));
    expect(cols.target).toEqual(Array.from(lib.targets));
    // Weights are printed in the fewest digits that read back to the same float32.
    expect(cols.weight.map(Math.fround)).toEqual(Array.from(lib.weights));
    expect(r.log).toMatch(/240 points × 2 → EMST of 239 edges/);
  });

  it('--threads 2 gives the tree of --threads 1', async () => {
    const one = await runCli(['emst', csv, '--threads', '1', ...cpu]);
    const two = await runCli(['emst', csv, '--threads', '2', ...cpu]);
    expect(one.error).toBeUndefined();
    expect(two.error).toBeUndefined();
    expect(two.out).toBe(one.out);
  });

  it('--min-samples 5 gives the mutual-reachability MST; json inferred from -o, with --timings', async () => {
    const out = join(dir, 'mr.json');
    const r = await runCli(['emst', csv, '--min-samples', '5', '-o', out, '--timings', ...cpu]);
    expect(r.error).toBeUndefined();
    expect(r.out).toBe('');
    const j = JSON.parse(readFileSync(out, 'utf8'));
    const lib = await emst(points, { dim: 2, minSamples: 5, backend: 'cpu' });
    expect(j.numEdges).toBe(n - 1);
    expect(j.minSamples).toBe(5);
    expect(j.weights).toEqual(Array.from(lib.weights));
    expect(j.totalWeight).toBeCloseTo(
      lib.weights.reduce((s, w) => s + w, 0),
      6,
    );
    expect(j.timings['emst::total']).toBeGreaterThanOrEqual(0);
    expect(r.log).toMatch(/emst::total/);
  });

  it('--format npy writes sources, targets and weights into the -o directory', async () => {
    const out = join(dir, 'tree');
    const r = await runCli(['emst', csv, '--format', 'npy', '-o', out, ...cpu]);
    expect(r.error).toBeUndefined();
    for (const [name, dtype] of [
      ['sources', '<u4'],
      ['targets', '<u4'],
      ['weights', '<f4'],
    ]) {
      const a = parseNpy(readFileSync(join(out, `${name}.npy`)));
      expect(a.dtype).toBe(dtype);
      expect(a.shape).toEqual([n - 1]);
    }
    expectInputError(await runCli(['emst', csv, '--format', 'npy', ...cpu]), /give a directory with -o/);
  });

  it('--columns by name and by index; .npy input; headerless .f32 with --dim', async () => {
    const wide = new Float32Array(3 * n);
    for (let i = 0; i < n; i++) wide.set([i, points[2 * i], points[2 * i + 1]], 3 * i);
    const file = writePointsCsv(join(dir, 'wide.csv'), wide, 3, ['id', 'x', 'y']);
    const base = (await runCli(['emst', csv, ...cpu])).out;
    expect((await runCli(['emst', file, '--columns', 'x,y', ...cpu])).out).toBe(base);
    expect((await runCli(['emst', file, '--columns', '1,2', ...cpu])).out).toBe(base);
    const npy = join(dir, 'points.npy');
    writeFileSync(npy, writeNpy(points, [n, 2]));
    expect((await runCli(['emst', npy, ...cpu])).out).toBe(base);
    const raw = join(dir, 'points.f32');
    writeFileSync(raw, new Uint8Array(points.buffer, points.byteOffset, points.byteLength));
    expect((await runCli(['emst', raw, '--dim', '2', ...cpu])).out).toBe(base);
    expectInputError(await runCli(['emst', raw, ...cpu]), /needs --dim/);
    expectInputError(
      await runCli(['emst', raw, '--dim', '7', ...cpu]),
      /1920 bytes is not a whole number of rows of 7/,
    );
    expectInputError(await runCli(['emst', csv, '--dim', '3', ...cpu]), /--dim 3 given, but the file has 2 columns/);
  });

  it('bad input: missing file, bad column, NaN row, bad option values — all exit with the input code', async () => {
    expectInputError(await runCli(['emst', join(dir, 'nope.csv'), ...cpu]), /nope\.csv: no such file/);
    expectInputError(await runCli(['emst', csv, '--columns', 'x0,z', ...cpu]), /no column 'z'/);
    const bad = join(dir, 'nan.csv');
    writeFileSync(bad, 'x,y\n1,2\n3,NaN\n5,6\n');
    expectInputError(await runCli(['emst', bad, ...cpu]), /nan\.csv:3: column 'y' is not a number: 'NaN'/);
    const nanNpy = join(dir, 'nan.npy');
    writeFileSync(nanNpy, writeNpy(new Float32Array([0, 0, 1, NaN]), [2, 2]));
    expectInputError(
      await runCli(['emst', nanNpy, ...cpu]),
      /nan\.npy: row 1 \(0-based\), column '1' is NaN; expected a finite number\./,
    );
    expectInputError(
      await runCli(['emst', csv, '--min-samples', '0', ...cpu]),
      /--min-samples: expected an integer ≥ 1, got '0'/,
    );
    expectInputError(await runCli(['emst', csv, '--alpha', '-1', ...cpu]), /--alpha/);
    expectInputError(
      await runCli(['emst', csv, '--backend', 'tpu']),
      /--backend: expected one of auto, gpu, cpu, got 'tpu'/,
    );
    expectInputError(await runCli(['emst', csv, '--format', 'xml', ...cpu]), /--format/);
    expectInputError(
      await runCli(['emst', csv, '--threads', '0', ...cpu]),
      /--threads: expected an integer ≥ 1, got '0'/,
    );
    expectInputError(
      await runCli(['hdbscan', csv, '--min-cluster-size', '5', '--threads', '1.5', ...cpu]),
      /--threads/,
    );
    expectInputError(await runCli(['stats', csv, '--threads', 'x', ...cpu]), /--threads/);
    expect(existsSync(join(dir, 'nope.csv'))).toBe(false);
  });

  it('emst on a headerless .f32 with an Infinity names the file, row, column and value', async () => {
    const f32 = join(dir, 'inf.f32');
    writeFileSync(f32, new Uint8Array(new Float32Array([0, 0, 1, 1, 2, Infinity]).buffer));
    expectInputError(
      await runCli(['emst', f32, '--dim', '2', ...cpu]),
      /inf\.f32: row 2 \(0-based\), column '1' is Infinity/,
    );
  });

  it('--periodic and --min-edge-length: the library’s periodic tree and scale-cut forest', async () => {
    const r = await runCli(['emst', csv, '--periodic', '20', ...cpu]);
    expect(r.error).toBeUndefined();
    const lib = await emst(points, { dim: 2, box: [20, 20], backend: 'cpu' });
    expect(parseCsvColumns(r.out).target).toEqual(Array.from(lib.targets));
    const cut = await runCli(['emst', csv, '--min-edge-length', '0.5', '--format', 'json', ...cpu]);
    const forest = await emst(points, { dim: 2, minEdgeLength: 0.5, backend: 'cpu' });
    expect(JSON.parse(cut.out).numEdges).toBe(forest.sources.length);
    expectInputError(
      await runCli(['emst', csv, '--periodic', '1,2,3', ...cpu]),
      /--periodic: 3 side lengths given for 2-dimensional points/,
    );
    expectInputError(
      await runCli(['emst', csv, '--periodic', '0', ...cpu]),
      /--periodic: expected L or Lx,Ly\[,Lz\] with finite side lengths > 0, got '0'/,
    );
  });

  it('emst on an ArborX .bin given --dim refuses to read its header as a point', async () => {
    const bin = join(dir, 'arborx.bin');
    const body = new Float32Array([0, 0, 1, 1, 2, 2]);
    const bytes = new Uint8Array(8 + body.byteLength);
    new DataView(bytes.buffer).setInt32(0, 3, true);
    new DataView(bytes.buffer).setInt32(4, 2, true);
    bytes.set(new Uint8Array(body.buffer), 8);
    writeFileSync(bin, bytes);
    expectInputError(
      await runCli(['emst', bin, '--dim', '2', ...cpu]),
      /arborx\.bin: this looks like ArborX's binary format \(n=3, d=2 header\); drop --dim/,
    );
    const ok = await runCli(['emst', bin, ...cpu]);
    expect(ok.error).toBeUndefined();
  });

  it('emst with a missing argument or an unknown option exits with the input code, not commander’s 1', async () => {
    for (const args of [['emst'], ['emst', csv, '--no-such-option']]) {
      const r = await runCli(args);
      expect(r.error).toBeInstanceOf(CommanderError);
      expect(exitCodeFor(r.error)).toBe(EXIT.input);
    }
    const help = await runCli(['emst', '--help']);
    expect(exitCodeFor(help.error)).toBe(EXIT.ok);
  });

  it('--help has examples', async () => {
    const r = await runCli(['emst', '--help']);
    expect(r.out).toMatch(/Examples:/);
    expect(r.out).toMatch(/--min-samples/);
  });
});
