/**
 * hdbscan() end to end on the CPU backend: points → emst() → clusterFromMst, against every golden case of
 * scikit-learn-contrib hdbscan 0.8.43 (test/golden/hdbscan), plus defaults, progress, abort, validation,
 * degenerate inputs, re-clustering from the result and the fitted model (hdbscanModel → approximatePredict).
 */
import { describe, expect, it } from 'vitest';
import { hdbscan, hdbscanModel, type HdbscanOptions } from '../../src/hdbscan.js';
import {
  approximatePredict,
  clusterFromMst,
  clusterFromSingleLinkage,
  loadModel,
  saveModel,
} from '../../src/cluster/index.js';
import { AbortError, InputError } from '../../src/errors.js';
import type { ClusterResult } from '../../src/cluster/types.js';
import {
  expectGoldenResult,
  worstAbs,
  goldenCase,
  goldenIndex,
  goldenPoints,
  goldenPredict,
  type GoldenCase,
} from '../helpers/golden.js';
import { mulberry32 } from '../helpers/random.js';

const cpu = { backend: 'cpu' } as const;

function optionsOf(c: GoldenCase, dim: number): HdbscanOptions {
  return {
    dim,
    minClusterSize: c.params.min_cluster_size,
    minSamples: c.params.min_samples,
    clusterSelectionMethod: c.params.cluster_selection_method,
    clusterSelectionEpsilon: c.params.cluster_selection_epsilon,
    allowSingleCluster: c.params.allow_single_cluster,
    maxClusterSize: c.params.max_cluster_size,
    ...cpu,
  };
}

describe('hdbscan(points) reproduces hdbscan 0.8.43 on every golden case (CPU backend)', () => {
  const index = goldenIndex();
  expect(index.length).toBeGreaterThanOrEqual(16);
  for (const entry of index) {
    const c = goldenCase(entry.case, entry.params);
    it(`${entry.case}/${entry.params}: ${c.canonical.near_ties ? 'ARI ≥ 0.999, same cluster count' : 'identical labels, MST and tree'}`, async () => {
      const { points, dim, n } = goldenPoints(entry.case);
      const r = await hdbscan(points, { ...optionsOf(c, dim), keep: { mst: true, singleLinkage: true } });
      expect(r.backend).toBe('cpu');
      expect(r.labels.length).toBe(n);
      expect(r.mst!.sources.length).toBe(n - 1);
      expect(r.selectedClusters.length).toBe(c.canonical.n_clusters);
      expect(r.exemplars.length).toBe(c.canonical.n_clusters);
      expectGoldenResult({ ...r, mst: r.mst! }, c);
    });
  }
});

/** Seeded 2D blobs around the given centres (float32). */
function blobs(n: number, seed: number, centres: number[][], spread = 0.3): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const [cx, cy] = centres[i % centres.length];
    const r = spread * Math.sqrt(-2 * Math.log(1 - rand()));
    const t = 2 * Math.PI * rand();
    out[2 * i] = cx + r * Math.cos(t);
    out[2 * i + 1] = cy + r * Math.sin(t);
  }
  return out;
}

const three = blobs(300, 11, [
  [0, 0],
  [5, 0],
  [0, 5],
]);

describe('hdbscan(points, options)', () => {
  it('minSamples defaults to minClusterSize; the result carries the MST, exemplars, timings and backend', async () => {
    const a = await hdbscan(three, { keep: { mst: true, singleLinkage: true }, dim: 2, minClusterSize: 10, ...cpu });
    const b = await hdbscan(three, {
      keep: { mst: true, singleLinkage: true },
      dim: 2,
      minClusterSize: 10,
      minSamples: 10,
      ...cpu,
    });
    const c = await hdbscan(three, {
      keep: { mst: true, singleLinkage: true },
      dim: 2,
      minClusterSize: 10,
      minSamples: 3,
      ...cpu,
    });
    expect(a.minSamples).toBe(10);
    expect(Array.from(a.mst!.weights)).toEqual(Array.from(b.mst!.weights));
    expect(Array.from(a.mst!.weights)).not.toEqual(Array.from(c.mst!.weights));
    expect(a.selectedClusters.length).toBe(3);
    expect(a.exemplars.map((e) => e.length > 0)).toEqual([true, true, true]);
    a.exemplars.forEach((ex, label) => ex.forEach((i) => expect(a.labels[i]).toBe(label)));
    for (const k of ['emst::total', 'cluster::linkage', 'cluster::condense', 'cluster::exemplars', 'hdbscan::total']) {
      expect(a.timings[k], k).toBeGreaterThanOrEqual(0);
    }
    // condense's parts add up to it (the layout runs inside it here).
    const parts = ['layout', 'sweep', 'runts'].map((p) => a.timings[`cluster::condense.${p}`]);
    for (const v of parts) expect(v).toBeGreaterThanOrEqual(0);
    expect(Math.abs(parts[0] + parts[1] + parts[2] - a.timings['cluster::condense'])).toBeLessThan(1);
    expect(a.backend).toBe('cpu');
  });

  it('minSamples 1 clusters the Euclidean MST (single linkage)', async () => {
    const r = await hdbscan(three, {
      keep: { mst: true, singleLinkage: true },
      dim: 2,
      minClusterSize: 10,
      minSamples: 1,
      ...cpu,
    });
    const { emst } = await import('../../src/emst/emst.js');
    const e = await emst(three, { dim: 2, ...cpu });
    expect(Array.from(r.mst!.weights)).toEqual(Array.from(e.weights));
    expect(Array.from(r.labels)).toEqual(Array.from(clusterFromMst(e, 300, { minClusterSize: 10 }).labels));
  });

  it('re-clustering the result with clusterFromSingleLinkage equals a fresh run', async () => {
    const r = await hdbscan(three, {
      keep: { mst: true, singleLinkage: true },
      dim: 2,
      minClusterSize: 10,
      minSamples: 5,
      ...cpu,
    });
    for (const minClusterSize of [5, 20, 60]) {
      const again = clusterFromSingleLinkage(r.singleLinkage!, 300, { minClusterSize }, r.mst!);
      const fresh = await hdbscan(three, {
        keep: { mst: true, singleLinkage: true },
        dim: 2,
        minClusterSize,
        minSamples: 5,
        ...cpu,
      });
      expect(Array.from(again.labels)).toEqual(Array.from(fresh.labels));
    }
  });

  it('reports progress ending at 1 and accepts Float64Array points', async () => {
    const seen: number[] = [];
    const r = await hdbscan(Float64Array.from(three), {
      dim: 2,
      minClusterSize: 10,
      onProgress: (f) => seen.push(f),
      ...cpu,
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[seen.length - 1]).toBe(1);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
    expect(r.selectedClusters.length).toBe(3);
  });

  it('rejects with AbortError on an aborted signal', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(
      hdbscan(three, {
        keep: { mst: true, singleLinkage: true },
        dim: 2,
        minClusterSize: 10,
        signal: ac.signal,
        ...cpu,
      }),
    ).rejects.toBeInstanceOf(AbortError);
  });

  it('validates at the door, naming the value', async () => {
    await expect(
      hdbscan(three, { keep: { mst: true, singleLinkage: true }, dim: 2, minClusterSize: 1, ...cpu }),
    ).rejects.toThrow(/minClusterSize.*got 1/);
    await expect(
      hdbscan(three, { keep: { mst: true, singleLinkage: true }, dim: 2, minClusterSize: 5, minSamples: 0, ...cpu }),
    ).rejects.toThrow(/minSamples.*got 0/);
    await expect(
      hdbscan(three, { keep: { mst: true, singleLinkage: true }, dim: 7, minClusterSize: 5, ...cpu }),
    ).rejects.toThrow(/multiple of dim=7/);
    await expect(
      hdbscan(three, {
        keep: { mst: true, singleLinkage: true },
        dim: 2,
        minClusterSize: 5,
        clusterSelectionMethod: 'x' as 'eom',
        ...cpu,
      }),
    ).rejects.toBeInstanceOf(InputError);
    const nan = three.slice();
    nan[7] = NaN;
    await expect(
      hdbscan(nan, { keep: { mst: true, singleLinkage: true }, dim: 2, minClusterSize: 5, ...cpu }),
    ).rejects.toThrow(/NaN at row 3, column 1/);
  });

  it('degenerate inputs: 0, 1 and fewer than minClusterSize points are all noise', async () => {
    for (const n of [0, 1, 2, 9]) {
      const r = await hdbscan(
        new Float32Array(2 * n).map((_, i) => i),
        { dim: 2, minClusterSize: 10, keep: { mst: true }, ...cpu },
      );
      expect(r.labels.length).toBe(n);
      expect(Array.from(r.labels).every((l) => l === -1)).toBe(true);
      expect(r.mst!.sources.length).toBe(Math.max(0, n - 1));
    }
  });

  it('duplicates: all points identical form one cluster only with allowSingleCluster', async () => {
    const same = new Float32Array(2 * 50).fill(0.5);
    const r = await hdbscan(same, { keep: { mst: true, singleLinkage: true }, dim: 2, minClusterSize: 5, ...cpu });
    expect(r.selectedClusters.length).toBe(0);
    const s = await hdbscan(same, {
      keep: { mst: true, singleLinkage: true },
      dim: 2,
      minClusterSize: 5,
      allowSingleCluster: true,
      ...cpu,
    });
    expect(s.selectedClusters.length).toBe(1);
    expect(Array.from(s.labels).every((l) => l === 0)).toBe(true);
  });
});

describe('hdbscanModel(points, dim, result) against hdbscan 0.8.43 prediction (blobs2d-1000, mcs15-ms1)', () => {
  it('approximatePredict labels identical, probabilities within 1e-5; exemplars as sets; survives save/load', async () => {
    const golden = goldenPredict('blobs2d-1000', 'mcs15-ms1');
    const { points, dim } = goldenPoints('blobs2d-1000');
    const queries = goldenPoints('blobs2d-1000', 'predict-points.csv');
    const r = await hdbscan(points, {
      keep: { mst: true, singleLinkage: true },
      dim,
      minClusterSize: 15,
      minSamples: 1,
      ...cpu,
    });
    expect(Array.from(r.labels)).toEqual(golden.labels_fit);
    const sorted = (a: ArrayLike<number>) => Array.from(a).sort((x, y) => x - y);
    expect(r.exemplars.map(sorted)).toEqual(golden.exemplars.map(sorted));
    const model = await hdbscanModel(points, dim, r);
    for (const m of [model, loadModel(saveModel(model))]) {
      const p = approximatePredict(m, queries.points);
      expect(Array.from(p.labels)).toEqual(golden.approximate_predict.labels);
      expect(worstAbs(p.probabilities, golden.approximate_predict.probabilities)).toBeLessThanOrEqual(1e-5);
    }
  });

  it('prediction core distances from the k-NN equal the brute-force ones (minSamples 5)', async () => {
    const r = await hdbscan(three, {
      keep: { mst: true, singleLinkage: true },
      dim: 2,
      minClusterSize: 10,
      minSamples: 5,
      ...cpu,
    });
    const { createModel } = await import('../../src/cluster/index.js');
    const fast = await hdbscanModel(three, 2, r);
    const brute = createModel({ points: three, dim: 2, result: r as unknown as ClusterResult, minSamples: 5 });
    expect(worstAbs(fast.predictionCoreDistances, Array.from(brute.predictionCoreDistances))).toBeLessThanOrEqual(1e-6);
    await expect(hdbscanModel(three, 3, r)).rejects.toBeInstanceOf(InputError);
  });
});
