/**
 * Soft clustering (membershipVector, allPointsMembershipVectors) against hdbscan 0.8.43's own
 * all_points_membership_vectors and membership_vector on the canonical MST (test/golden/hdbscan-extra, 7 cases:
 * 2D, 3D, 10D, duplicates, noise-heavy, a single cluster), within 1e-6; then invariants of hdbscan's definitions on
 * golden fits, input checks, and degenerate models.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { clusterFromMst, createModel, exemplars, type HdbscanModel } from '../../src/cluster/index.js';
import { allPointsMembershipVectors, membershipVector } from '../../src/cluster/membership.js';
import { goldenCase, goldenMst, goldenPoints, worstAbs, type GoldenCase } from '../helpers/golden.js';
import { mulberry32 } from '../helpers/random.js';
import { THRESHOLDS } from '../../src/host/thresholds.js';
import {
  exemplarDistanceTable,
  nearestExemplarDistances,
  NO_EXEMPLAR,
  packExemplars,
} from '../../src/cluster/exemplars.distance.cpu.js';
import { extraModel, readExtra, type ExtraCase, type ExtraEntry } from '../helpers/softGolden.js';

/** The model of a golden case, fitted on hdbscan's canonical MST. */
function goldenModel(caseName: string, params: string): { model: HdbscanModel; c: GoldenCase } {
  const c = goldenCase(caseName, params);
  const { points, dim, n } = goldenPoints(caseName);
  const fit = clusterFromMst(goldenMst(c), n, {
    minClusterSize: c.params.min_cluster_size,
    clusterSelectionMethod: c.params.cluster_selection_method,
    clusterSelectionEpsilon: c.params.cluster_selection_epsilon,
    allowSingleCluster: c.params.allow_single_cluster,
    maxClusterSize: c.params.max_cluster_size,
  });
  return { model: createModel({ points, dim, result: fit, minSamples: c.min_samples_effective }), c };
}

describe('soft clustering against hdbscan 0.8.43 (test/golden/hdbscan-extra)', () => {
  const index = readExtra<ExtraEntry[]>('index.json');

  it('covers 2D, 3D, 10D, duplicates, a noise-heavy case and a single cluster', () => {
    expect(index.length).toBeGreaterThanOrEqual(6);
    expect(new Set(index.map((e) => e.d))).toEqual(new Set([2, 3, 10]));
    expect(index.some((e) => e.n_clusters === 1)).toBe(true);
  });

  for (const e of index) {
    describe(`${e.case}/${e.params}`, () => {
      const g = readExtra<ExtraCase>(e.case, `${e.params}.json`);

      it("exemplars of hdbscan's prediction clusters: the same count per cluster", () => {
        const model = extraModel(e, g, false);
        const ex = exemplars(model.condensedTree, Uint32Array.from(g.selected_clusters));
        expect(ex.map((x) => x.length)).toEqual(g.exemplar_counts);
      });

      for (const f32 of [false, true]) {
        const weights = f32 ? 'float32 MST weights' : 'float64 MST weights';
        it(`allPointsMembershipVectors within 1e-6 of all_points_membership_vectors (${weights})`, () => {
          const model = extraModel(e, g, f32);
          const k = g.n_clusters;
          const v = allPointsMembershipVectors(model);
          expect(v.length).toBe(e.n * k);
          expect(worstAbs(v, g.all_points_membership.flat())).toBeLessThanOrEqual(1e-6);
        });

        it(`membershipVector within 1e-6 of membership_vector on 60 new points (${weights})`, () => {
          const model = extraModel(e, g, f32);
          const queries = Float32Array.from(g.membership_new.points.flat());
          const v = membershipVector(model, queries);
          expect(v.length).toBe(g.membership_new.vectors.length * g.n_clusters);
          expect(worstAbs(v, g.membership_new.vectors.flat())).toBeLessThanOrEqual(1e-6);
        });
      }
    });
  }
});

/** Every entry in [0, 1] and every row summing to at most 1 (hdbscan: prob_in_some_cluster ≤ 1). */
function expectProbabilityRows(v: Float64Array, k: number): Float64Array {
  const sums = new Float64Array(v.length / k);
  for (let i = 0; i < v.length; i++) {
    expect(v[i]).toBeGreaterThanOrEqual(0);
    expect(v[i]).toBeLessThanOrEqual(1);
    sums[Math.floor(i / k)] += v[i];
  }
  for (const s of sums) expect(s).toBeLessThanOrEqual(1 + 1e-12);
  return sums;
}

const argmax = (row: ArrayLike<number>): number => {
  let best = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
  return best;
};

describe('allPointsMembershipVectors(model)', () => {
  const { model } = goldenModel('blobs2d-1000', 'mcs15-ms5');
  const n = model.condensedTree.numPoints;
  const k = model.selectedClusters.length;
  const v = allPointsMembershipVectors(model);

  it('returns n × k probabilities, rows summing to at most 1', () => {
    expect(k).toBe(5);
    expect(v.length).toBe(n * k);
    expectProbabilityRows(v, k);
  });

  it("a clustered point's largest membership is (almost always) its own cluster, and it is in some cluster", () => {
    let same = 0;
    let clustered = 0;
    let inSome = 0;
    let noiseSome = 0;
    let noise = 0;
    for (let x = 0; x < n; x++) {
      const row = v.subarray(x * k, (x + 1) * k);
      const sum = row.reduce((s, p) => s + p, 0);
      if (model.labels[x] >= 0) {
        clustered++;
        same += argmax(row) === model.labels[x] ? 1 : 0;
        inSome += sum;
      } else {
        noise++;
        noiseSome += sum;
      }
    }
    expect(same / clustered).toBeGreaterThanOrEqual(0.95);
    // Noise points are, on average, less likely to be in some cluster than clustered points.
    expect(noiseSome / noise).toBeLessThan(inSome / clustered);
  });

  it('is a pure function of the model (a second call gives the same bits)', () => {
    expect(allPointsMembershipVectors(model)).toEqual(v);
  });
});

describe('membershipVector(model, newPoints)', () => {
  const { model } = goldenModel('blobs2d-1000', 'mcs15-ms5');
  const { dim } = model;
  const k = model.selectedClusters.length;
  const rnd = mulberry32(21);
  const m = 50;
  const queries = new Float32Array(m * dim);
  for (let i = 0; i < queries.length; i++) queries[i] = model.points[(i * 131) % model.points.length] + rnd() - 0.5;

  it('returns m × k probabilities, rows summing to at most 1', () => {
    const v = membershipVector(model, queries);
    expect(v.length).toBe(m * k);
    expectProbabilityRows(v, k);
  });

  it('a point at an exemplar belongs (softly) to that exemplar’s cluster alone', () => {
    const ex = exemplars(model.condensedTree, model.selectedClusters);
    ex.forEach((points, label) => {
      const p = points[0];
      const row = membershipVector(model, model.points.slice(p * dim, (p + 1) * dim));
      const sum = row.reduce((s, x) => s + x, 0);
      // Distance 0 to its own exemplar weighs Number.MAX_VALUE / k: every other column is negligible.
      expect(argmax(row)).toBe(label);
      expect(row[label]).toBeGreaterThan(0);
      expect(row[label] / sum).toBeGreaterThan(1 - 1e-9);
    });
  });

  it('a Float64Array of new points gives the same as its float32 rounding', () => {
    const f64 = Float64Array.from(queries, (x) => x + 1e-12);
    expect(membershipVector(model, f64)).toEqual(membershipVector(model, queries));
  });

  it('an empty set of new points gives an empty result', () => {
    expect(membershipVector(model, new Float32Array(0)).length).toBe(0);
  });

  it('rejects a NaN point, naming row and column, and a ragged or untyped array', () => {
    const bad = queries.slice(0, 3 * dim);
    bad[2 * dim + 1] = NaN;
    expect(() => membershipVector(model, bad)).toThrow(InputError);
    expect(() => membershipVector(model, bad)).toThrow(/row 2, column 1/);
    expect(() => membershipVector(model, queries.slice(0, dim + 1))).toThrow(/multiple of the model's dim=2/);
    expect(() => membershipVector(model, [0, 0] as unknown as Float32Array)).toThrow(InputError);
  });

  it('rejects a corrupt model as approximatePredict does', () => {
    const corrupt = { ...model, minSamples: 0 };
    expect(() => membershipVector(corrupt, queries)).toThrow(InputError);
    expect(() => allPointsMembershipVectors({ ...model, minSamples: 0 })).toThrow(InputError);
  });
});

describe('soft clustering of degenerate models', () => {
  it('no clusters: n × 0 and m × 0 (empty)', () => {
    const { model } = goldenModel('blobs2d-1000', 'mcs40-ms5-max150');
    expect(model.selectedClusters.length).toBe(0);
    expect(allPointsMembershipVectors(model).length).toBe(0);
    expect(membershipVector(model, model.points.slice(0, 4)).length).toBe(0);
  });

  it('one cluster (allowSingleCluster): one column, each row its probability of being in the cluster', () => {
    const { model } = goldenModel('single-blob-600', 'mcs50-ms5-single');
    expect(model.selectedClusters.length).toBe(1);
    const all = allPointsMembershipVectors(model);
    expect(all.length).toBe(model.condensedTree.numPoints);
    expectProbabilityRows(all, 1);
    expectProbabilityRows(membershipVector(model, model.points.slice(0, 20)), 1);
  });
});

describe('allPointsMembershipVectors backends (issue 21: the GPU path and its CPU twin)', () => {
  it("backend 'cpu', and 'auto' below THRESHOLDS.membershipGpuMinPoints, resolve to the synchronous result", async () => {
    const { model } = goldenModel('blobs2d-1000', 'mcs15-ms5');
    expect(model.condensedTree.numPoints).toBeLessThan(THRESHOLDS.membershipGpuMinPoints);
    const want = allPointsMembershipVectors(model);
    expect(Array.from(await allPointsMembershipVectors(model, { backend: 'cpu' }))).toEqual(Array.from(want));
    expect(Array.from(await allPointsMembershipVectors(model, {}))).toEqual(Array.from(want));
  });

  it('exemplarDistanceTable (the kernel’s f32 twin) is the squared float64 distance within 1e-6 relative', () => {
    const random = mulberry32(7);
    const dim = 4;
    const points = Float32Array.from({ length: 200 * dim }, () => random() * 100 - 50);
    const cols = [3, 1, 12].map((m) => Float32Array.from({ length: m * dim }, () => random() * 100 - 50));
    const table = exemplarDistanceTable(points, dim, packExemplars(cols, dim));
    const dist = new Float64Array(cols.length);
    for (let x = 0; x < 200; x++) {
      nearestExemplarDistances(
        cols.map((c) => Float64Array.from(c)),
        points,
        x * dim,
        dim,
        dist,
      );
      for (let j = 0; j < cols.length; j++) {
        expect(Math.abs(Math.sqrt(table[x * cols.length + j]) - dist[j])).toBeLessThanOrEqual(1e-6 * dist[j]);
      }
    }
  });

  it('a column without exemplars reads NO_EXEMPLAR in the table and Number.MAX_VALUE in float64', () => {
    const points = Float32Array.of(0, 0, 1, 1);
    const sets = packExemplars([Float32Array.of(3, 4), new Float32Array(0)], 2);
    expect(Array.from(exemplarDistanceTable(points, 2, sets))).toEqual([25, NO_EXEMPLAR, 13, NO_EXEMPLAR]);
    const dist = new Float64Array(2);
    nearestExemplarDistances([Float64Array.of(3, 4), new Float64Array(0)], points, 0, 2, dist);
    expect(Array.from(dist)).toEqual([5, Number.MAX_VALUE]);
  });
});
