/**
 * issue 15 §4.6 and §4.10: approximatePredict, createModel, loadModel and `treeline predict` check new points and
 * models at the door as hdbscan() checks its input (one-line InputError naming the value, row and column; exit 2
 * in the CLI), and a Float64Array of new points predicts exactly as its float32 rounding.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approximatePredict, createModel, loadModel, saveModel, type HdbscanModel } from '../../src/cluster/index.js';
import { blobs } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';
import { hdbscan, hdbscanModel } from '../../src/hdbscan.js';
import { runCliProcess } from '../helpers/cli.process.js';

const dim = 2;
const points = blobs({ n: 300, dim, seed: 8, clusters: 3 });
const fit = await hdbscan(points, { dim, minClusterSize: 15, minSamples: 5, backend: 'cpu' });
const model = await hdbscanModel(points, dim, fit);
const clusterResult = { ...fit, timings: { sort: 0, linkage: 0, condense: 0, select: 0, label: 0, total: 0 } };
const fresh = blobs({ n: 40, dim, seed: 9, clusters: 3 });

/** The saved model with one field of the JSON changed. */
function edited(change: (doc: Record<string, any>) => void): string {
  const doc = JSON.parse(saveModel(model));
  change(doc);
  return JSON.stringify(doc);
}

/** The model's points as base64 float32 with one coordinate replaced. */
function pointsWith(index: number, value: number): Record<string, unknown> {
  const xs = new Float32Array(model.points);
  xs[index] = value;
  return { dtype: 'float32', length: xs.length, base64: Buffer.from(xs.buffer).toString('base64') };
}

function expectInputError(f: () => unknown, message: RegExp): void {
  let error: unknown;
  try {
    f();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InputError);
  expect((error as Error).message).toMatch(message);
}

describe('issue 15: approximatePredict validates its new points', () => {
  it('approximatePredict(model, points) rejects NaN, ±Infinity and out-of-range coordinates, naming row and column', () => {
    // Before: a NaN point got label 2 with probability 1.
    expectInputError(
      () => approximatePredict(model, Float32Array.of(0, 0, 1, NaN)),
      /newPoints: .*NaN at row 1, column 1/,
    );
    expectInputError(() => approximatePredict(model, Float64Array.of(Infinity, 0)), /Infinity at row 0, column 0/);
    expectInputError(() => approximatePredict(model, Float64Array.of(0, -2e38)), /-2e\+38 at row 0, column 1/);
  });

  it('approximatePredict(model, Float64Array) rounds to float32 first: equal to the float32 points, to the bit', () => {
    const f32 = fresh;
    const f64 = Float64Array.from(f32, (x) => {
      // At most a quarter of float32's spacing away (the step measured is 1 or 2 spacings): rounds back to x, yet
      // changes every float64 distance.
      const step = Math.abs(Math.fround(x * (1 + 2 ** -23)) - x) || 2 ** -149;
      return x + step / 8;
    });
    expect(f64.some((x, i) => x !== f32[i])).toBe(true);
    expect(Float32Array.from(f64)).toEqual(f32);
    const a = approximatePredict(model, f32);
    const b = approximatePredict(model, f64);
    expect(Array.from(b.labels)).toEqual(Array.from(a.labels));
    expect(Array.from(b.probabilities)).toEqual(Array.from(a.probabilities));
    // The probabilities are not all 0 or 1, so unrounded float64 distances would have shown.
    expect(Array.from(a.probabilities).some((p) => p > 0 && p < 1)).toBe(true);
  });
});

describe('issue 15: models are validated by loadModel, createModel and approximatePredict', () => {
  it('loadModel(json) rejects a NaN training point, naming row and column', () => {
    const json = edited((doc) => (doc.arrays.points = pointsWith(7 * dim + 1, NaN)));
    expectInputError(() => loadModel(json), /Model points: Expected finite coordinates, got NaN at row 7, column 1/);
  });

  it('loadModel(json) rejects minSamples 0, negative, fractional or absurd', () => {
    for (const v of [0, -3, 2.5, 1e300, 'five']) {
      const json = edited((doc) => (doc.minSamples = v));
      expectInputError(
        () => loadModel(json),
        new RegExp(`minSamples to be an integer in \\[1, 2\\^32 − 1\\], got ${String(v).replace(/[+.]/g, '\\$&')}\\.$`),
      );
    }
  });

  it('loadModel(json) rejects NaN or negative prediction core distances and NaN λ', () => {
    const core = new Float64Array(model.predictionCoreDistances);
    core[4] = NaN;
    const coreJson = edited(
      (doc) =>
        (doc.arrays.predictionCoreDistances = {
          dtype: 'float64',
          length: core.length,
          base64: Buffer.from(core.buffer).toString('base64'),
        }),
    );
    expectInputError(() => loadModel(coreJson), /core distances ≥ 0, got NaN at point 4/);
    const lambda = new Float64Array(model.condensedTree.lambda);
    lambda[2] = NaN;
    const lambdaJson = edited(
      (doc) =>
        (doc.arrays.lambda = {
          dtype: 'float64',
          length: lambda.length,
          base64: Buffer.from(lambda.buffer).toString('base64'),
        }),
    );
    expectInputError(() => loadModel(lambdaJson), /λ ≥ 0 \(∞ allowed\), got NaN at row 2/);
    // The untouched model still loads and predicts as before.
    const p = approximatePredict(loadModel(saveModel(model)), fresh);
    expect(Array.from(p.labels)).toEqual(Array.from(approximatePredict(model, fresh).labels));
  });

  it('createModel({ points, minSamples }) rejects NaN points and minSamples 0', () => {
    const bad = new Float32Array(points);
    bad[3] = NaN;
    expectInputError(
      () => createModel({ points: bad, dim, result: clusterResult, minSamples: 5 }),
      /NaN at row 1, column 1/,
    );
    expectInputError(() => createModel({ points, dim, result: clusterResult, minSamples: 0 }), /minSamples .* got 0/);
  });

  it('approximatePredict(model) rejects a hand-edited model object (NaN point, minSamples 0)', () => {
    const xs = new Float32Array(model.points);
    xs[0] = NaN;
    expectInputError(
      () => approximatePredict({ ...model, points: xs }, fresh),
      /Model points: .*NaN at row 0, column 0/,
    );
    const zero: HdbscanModel = { ...model, minSamples: 0 };
    expectInputError(() => approximatePredict(zero, fresh), /minSamples .* got 0/);
  });
});

describe('issue 15: treeline predict (child process) exits 2 on a bad model or bad points', () => {
  const dir = mkdtempSync(join(tmpdir(), 'treeline-predict-validate-'));
  const queries = join(dir, 'new.csv');
  writeFileSync(
    queries,
    'x,y\n' + Array.from({ length: 40 }, (_, i) => `${fresh[2 * i]},${fresh[2 * i + 1]}`).join('\n') + '\n',
  );

  it('treeline predict <model with a NaN point> names the file, row and column', async () => {
    const file = join(dir, 'nan.json');
    writeFileSync(
      file,
      edited((doc) => (doc.arrays.points = pointsWith(5 * dim, NaN))),
    );
    const r = await runCliProcess(['predict', file, queries]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nan\.json: Model points: Expected finite coordinates, got NaN at row 5, column 0/);
    expect(r.stdout).toBe('');
  });

  it('treeline predict <model with minSamples 0> is an input error', async () => {
    const file = join(dir, 'zero.json');
    writeFileSync(
      file,
      edited((doc) => (doc.minSamples = 0)),
    );
    const r = await runCliProcess(['predict', file, queries]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/zero\.json: .*minSamples .* got 0/);
  });

  it('treeline predict <model> <points beyond ±1e38> names the points file, row and column', async () => {
    const file = join(dir, 'model.json');
    writeFileSync(file, saveModel(model));
    const far = join(dir, 'far.csv');
    writeFileSync(far, 'x,y\n0,0\n1,3e38\n');
    const r = await runCliProcess(['predict', file, far]);
    expect(r.code).toBe(2);
    // The reader or approximatePredict, whichever checks first: the file, the row, the column and the value.
    expect(r.stderr).toMatch(/far\.csv: .*row 1.*column (1|'y')/);
    expect(r.stderr).toMatch(/3(\.0\d*)?e\+38/);
    const ok = await runCliProcess(['predict', file, queries]);
    expect(ok.code).toBe(0);
    expect(ok.stdout.split('\n')[0]).toBe('label,probability');
  });
});
