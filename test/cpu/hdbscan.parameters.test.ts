/**
 * issue 15 §5: the README's parameter table against a literal re-implementation of scikit-learn's HDBSCAN core
 * distances (sklearn.cluster._hdbscan, `mutual_reachability_graph`: each row of the distance matrix, the point's own
 * 0 included, partitioned at index min_samples − 1). sklearn's `min_samples = s` is treeline's `minSamples: s − 1`
 * for s ≥ 2, and `min_samples = 1` (core distance 0: plain Euclidean distances) is `minSamples: 1`, not 0 — with
 * the nearest other point as core distance, max(core(a), core(b), d(a, b)) = d(a, b) for every pair.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clusterFromMst } from '../../src/cluster/index.js';
import { blobs } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';
import { hdbscan } from '../../src/hdbscan.js';
import { distance } from '../helpers/prim.js';

/** sklearn's core distances: the (s − 1)-th entry (0-based) of each sorted distance row, self (0) included. */
function sklearnCoreDistances(points: Float32Array, dim: number, s: number): Float64Array {
  const n = points.length / dim;
  const core = new Float64Array(n);
  const row = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) row[j] = distance(points, dim, i, j);
    row.sort();
    core[i] = row[Math.min(s, n) - 1];
  }
  return core;
}

/** Whether edge (w1, a1, b1) precedes (w2, a2, b2), endpoints in either order: DESIGN.md's canonical order. */
function before(w1: number, a1: number, b1: number, w2: number, a2: number, b2: number): boolean {
  if (w1 !== w2) return w1 < w2;
  const [lo1, hi1, lo2, hi2] = [Math.min(a1, b1), Math.max(a1, b1), Math.min(a2, b2), Math.max(a2, b2)];
  return lo1 !== lo2 ? lo1 < lo2 : hi1 < hi2;
}

/**
 * Prim's MST under mutual reachability with the given core distances, ties by (weight, min, max): core distances
 * tie often, and another tie rule picks another tree of the same weight, whose cluster numbering can differ.
 */
function mutualReachabilityMst(points: Float32Array, dim: number, core: Float64Array) {
  const n = points.length / dim;
  const weight = (i: number, j: number) => Math.max(core[i], core[j], distance(points, dim, i, j));
  const inTree = new Uint8Array(n);
  const bestW = new Float64Array(n).fill(Infinity);
  const bestU = new Int32Array(n).fill(0);
  const sources = new Uint32Array(n - 1);
  const targets = new Uint32Array(n - 1);
  const weights = new Float64Array(n - 1);
  inTree[0] = 1;
  for (let j = 1; j < n; j++) bestW[j] = weight(0, j);
  for (let e = 0; e < n - 1; e++) {
    let v = -1;
    for (let j = 0; j < n; j++) {
      if (!inTree[j] && (v < 0 || before(bestW[j], j, bestU[j], bestW[v], v, bestU[v]))) v = j;
    }
    sources[e] = Math.min(v, bestU[v]);
    targets[e] = Math.max(v, bestU[v]);
    weights[e] = bestW[v];
    inTree[v] = 1;
    for (let j = 0; j < n; j++) {
      if (inTree[j]) continue;
      const w = weight(v, j);
      if (before(w, v, j, bestW[j], j, bestU[j])) {
        bestW[j] = w;
        bestU[j] = v;
      }
    }
  }
  return { sources, targets, weights };
}

describe("issue 15: scikit-learn's min_samples against treeline's minSamples (README table)", () => {
  const dim = 2;
  const n = 400;
  const points = blobs({ n, dim, seed: 21, clusters: 4 });
  const minClusterSize = 12;

  for (const [s, ours] of [
    [1, 1],
    [2, 1],
    [3, 2],
    [6, 5],
  ] as const) {
    it(`hdbscan(points, { keep: { mst: true, singleLinkage: true }, minSamples: ${ours} }) labels as sklearn HDBSCAN(min_samples=${s})`, async () => {
      const mst = mutualReachabilityMst(points, dim, sklearnCoreDistances(points, dim, s));
      const expected = clusterFromMst(mst, n, { minClusterSize });
      const got = await hdbscan(points, {
        keep: { mst: true, singleLinkage: true },
        dim,
        minClusterSize,
        minSamples: ours,
        backend: 'cpu',
      });
      expect(expected.selectedClusters.length).toBeGreaterThan(1);
      expect(Array.from(got.labels)).toEqual(Array.from(expected.labels));
      const total = (w: ArrayLike<number>) => Array.from(w).reduce((a, b) => a + b, 0);
      expect(Math.abs(total(got.mst!.weights) - total(mst.weights))).toBeLessThanOrEqual(1e-4 * total(mst.weights));
    });
  }

  it('sklearn min_samples=1 and 2 give the same tree (core 0 vs nearest neighbour): both are minSamples: 1', () => {
    const a = mutualReachabilityMst(points, dim, sklearnCoreDistances(points, dim, 1));
    const b = mutualReachabilityMst(points, dim, sklearnCoreDistances(points, dim, 2));
    expect(Array.from(b.weights)).toEqual(Array.from(a.weights));
  });

  it('minSamples: 0 (a literal translation of min_samples=1 by "s − 1") is an InputError', async () => {
    await expect(
      hdbscan(points, { keep: { mst: true, singleLinkage: true }, dim, minClusterSize, minSamples: 0, backend: 'cpu' }),
    ).rejects.toBeInstanceOf(InputError);
  });

  it('the README says so: min_samples=1 is minSamples: 1, hdbscan matches with approx_min_span_tree=False, ids may be permuted', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('`min_samples=1` is `minSamples: 1`, **not 0**');
    expect(readme).toContain('`approx_min_span_tree=False`');
    expect(readme).toMatch(/cluster ids can be a\s+permutation of treeline's/);
  });
});
