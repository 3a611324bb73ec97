/**
 * Prediction, exemplars, relative validity and model files against hdbscan 0.8.43's prediction API on
 * blobs2d-1000 (predict-mcs15-ms1.json), plus the brute-force k-NN and the model round trip.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import {
  approximatePredict,
  bruteForceKnn,
  clusterFromMst,
  createModel,
  exemplars,
  loadModel,
  predictionCoreDistances,
  relativeValidity,
  saveModel,
} from '../../src/cluster/index.js';
import { goldenPoints, goldenPredict } from '../helpers/golden.js';
import { bruteCoreDistances, distance, primMst } from '../helpers/prim.js';
import { mulberry32 } from '../helpers/random.js';

const golden = goldenPredict('blobs2d-1000', 'mcs15-ms1');
const { points, dim, n } = goldenPoints('blobs2d-1000');
const queries = goldenPoints('blobs2d-1000', 'predict-points.csv');
const mst = primMst(points, dim, { minSamples: golden.params.min_samples });
const fit = clusterFromMst(mst, n, { minClusterSize: golden.params.min_cluster_size });
const model = createModel({ points, dim, result: fit, minSamples: golden.params.min_samples });

describe('prediction API against hdbscan 0.8.43 (blobs2d-1000, mcs15-ms1)', () => {
  it('the fit itself matches labels_fit', () => {
    expect(Array.from(fit.labels)).toEqual(golden.labels_fit);
  });

  it('approximatePredict: identical labels, probabilities within 1e-5', () => {
    const p = approximatePredict(model, queries.points);
    expect(Array.from(p.labels)).toEqual(golden.approximate_predict.labels);
    const expected = golden.approximate_predict.probabilities;
    for (let i = 0; i < expected.length; i++)
      expect(Math.abs(p.probabilities[i] - expected[i])).toBeLessThanOrEqual(1e-5);
  });

  it('exemplars: the same points per cluster (as sets: within a leaf hdbscan lists them in its own row order)', () => {
    const ex = exemplars(fit.condensedTree, fit.selectedClusters);
    const sorted = (a: ArrayLike<number>) => Array.from(a).sort((x, y) => x - y);
    expect(ex.map(sorted)).toEqual(golden.exemplars.map(sorted));
    // Each exemplar is a point of its cluster leaving at its leaf's largest λ.
    ex.forEach((points, label) => points.forEach((i) => expect(fit.labels[i]).toBe(label)));
  });

  it('relativeValidity on the mutual-reachability MST: within 1e-5 of relative_validity_', () => {
    expect(Math.abs(relativeValidity(mst, fit.labels) - golden.relative_validity)).toBeLessThanOrEqual(1e-5);
    // Float32 weights (what the GPU delivers) give the same score to 1e-5.
    const f32 = { ...mst, weights: Float32Array.from(mst.weights) };
    expect(Math.abs(relativeValidity(f32, fit.labels) - golden.relative_validity)).toBeLessThanOrEqual(1e-5);
  });

  it('training points predict (mostly) their own labels', () => {
    const p = approximatePredict(model, points.subarray(0, 200 * dim));
    let same = 0;
    for (let i = 0; i < 200; i++) same += p.labels[i] === fit.labels[i] ? 1 : 0;
    expect(same).toBeGreaterThanOrEqual(190);
  });
});

describe('relativeValidity edge cases', () => {
  const m = {
    sources: new Uint32Array([0, 1, 2]),
    targets: new Uint32Array([1, 2, 3]),
    weights: new Float32Array([1, 5, 1]),
  };
  it('all noise scores 0', () => {
    expect(relativeValidity(m, new Int32Array([-1, -1, -1, -1]))).toBe(0);
  });
  it('two tight clusters far apart score high; one cluster uses the noise separation', () => {
    expect(relativeValidity(m, new Int32Array([0, 0, 1, 1]))).toBeCloseTo(0.8, 12);
    // One cluster: no other cluster to separate from, so 2 × the shortest edge to noise (5): (10 − 1) / 10 · 2/4.
    expect(relativeValidity(m, new Int32Array([0, 0, -1, -1]))).toBeCloseTo(0.45, 12);
  });
});

describe('bruteForceKnn and predictionCoreDistances', () => {
  it('finds the k nearest by (distance, index) like a full sort', () => {
    const rand = mulberry32(5);
    const pts = Float32Array.from({ length: 300 * 3 }, () => Math.round(rand() * 8) / 4); // many ties
    const qs = Float32Array.from({ length: 20 * 3 }, () => rand() * 2);
    const { indices, distances, k } = bruteForceKnn(pts, 3, qs, 7);
    expect(k).toBe(7);
    for (let q = 0; q < 20; q++) {
      const all = Array.from({ length: 300 }, (_, i) => {
        let s = 0;
        for (let j = 0; j < 3; j++) s += (qs[q * 3 + j] - pts[i * 3 + j]) ** 2;
        return [Math.sqrt(s), i] as const;
      }).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      expect(Array.from(indices.subarray(q * 7, q * 7 + 7))).toEqual(all.slice(0, 7).map((x) => x[1]));
      expect(Array.from(distances.subarray(q * 7, q * 7 + 7))).toEqual(all.slice(0, 7).map((x) => x[0]));
    }
  });

  it('clamps k to the number of points', () => {
    const r = bruteForceKnn(new Float32Array([0, 1, 2]), 1, new Float32Array([0.4]), 10);
    expect(r.k).toBe(3);
    expect(Array.from(r.indices)).toEqual([0, 1, 2]);
  });

  it("prediction core distances count the point itself: minSamples m ↔ the fit's m − 1", () => {
    expect(Array.from(predictionCoreDistances(points, dim, 1)).every((d) => d === 0)).toBe(true);
    const fitCore = bruteCoreDistances(points, dim, 4);
    expect(Array.from(predictionCoreDistances(points, dim, 5))).toEqual(Array.from(fitCore));
    expect(distance(points, dim, 0, 0)).toBe(0);
  });
});

describe('saveModel / loadModel', () => {
  it('round-trips exactly and predicts the same', () => {
    const json = saveModel(model);
    expect(typeof json).toBe('string');
    const back = loadModel(json);
    expect(back.dim).toBe(dim);
    expect(back.minSamples).toBe(1);
    expect(back.options).toEqual(fit.options);
    expect(Array.from(back.points)).toEqual(Array.from(points));
    expect(Array.from(back.condensedTree.lambda)).toEqual(Array.from(fit.condensedTree.lambda));
    expect(Array.from(back.condensedTree.parent)).toEqual(Array.from(fit.condensedTree.parent));
    expect(Array.from(back.selectedClusters)).toEqual(Array.from(fit.selectedClusters));
    expect(Array.from(back.labels)).toEqual(Array.from(fit.labels));
    expect(Array.from(back.probabilities)).toEqual(Array.from(fit.probabilities));
    expect(Array.from(back.outlierScores)).toEqual(Array.from(fit.outlierScores));
    const a = approximatePredict(model, queries.points);
    const b = approximatePredict(back, queries.points);
    expect(Array.from(b.labels)).toEqual(Array.from(a.labels));
    expect(Array.from(b.probabilities)).toEqual(Array.from(a.probabilities));
  });

  it('keeps λ = ∞ and epsilon/allowSingleCluster options through the round trip', () => {
    const pts = new Float32Array(2 * 12).fill(1);
    const m = primMst(pts, 2, { minSamples: 2 });
    const r = clusterFromMst(m, 12, { minClusterSize: 3, allowSingleCluster: true, clusterSelectionEpsilon: 0.5 });
    const back = loadModel(saveModel(createModel({ points: pts, dim: 2, result: r, minSamples: 2 })));
    expect(Array.from(back.condensedTree.lambda).every((l) => l === Infinity)).toBe(true);
    expect(back.options.allowSingleCluster).toBe(true);
    expect(back.options.clusterSelectionEpsilon).toBe(0.5);
    expect(Array.from(back.labels)).toEqual(Array.from(r.labels));
  });

  it('throws InputError on malformed models', () => {
    const json = saveModel(model);
    const doc = JSON.parse(json);
    expect(() => loadModel('{not json')).toThrow(InputError);
    expect(() => loadModel(JSON.stringify({ ...doc, format: 'other' }))).toThrow(/treeline-hdbscan-model/);
    const short = { ...doc, arrays: { ...doc.arrays, points: { ...doc.arrays.points, length: 5 } } };
    expect(() => loadModel(JSON.stringify(short))).toThrow(/points to be float32\[1998\], got float32\[5\]/);
    const bad = { ...doc, arrays: { ...doc.arrays, lambda: { ...doc.arrays.lambda, base64: 'A' } } };
    expect(() => loadModel(JSON.stringify(bad))).toThrow(InputError);
  });

  it('approximatePredict validates the dimension', () => {
    expect(() => approximatePredict(model, new Float32Array(3))).toThrow(/multiple of the model's dim=2, got 3/);
  });

  it('a model without clusters predicts noise', () => {
    const r = clusterFromMst(mst, n, { minClusterSize: 2000 });
    const empty = createModel({ points, dim, result: r, minSamples: 1 });
    const p = approximatePredict(empty, queries.points);
    expect(Array.from(p.labels).every((l) => l === -1)).toBe(true);
    expect(Array.from(p.probabilities).every((x) => x === 0)).toBe(true);
  });
});
