/**
 * clusterCenters and hdbscan(…, { centers }) (scikit-learn's `store_centers`): centroids within 1e-6 and medoids
 * equal to scikit-learn's `_weighted_cluster_center` on every case of test/golden/hdbscan-extra; against a plain
 * n_c × n_c oracle across tile boundaries, first index on ties, weights, noise and bad input.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterCenters } from '../../src/cluster/centers.js';
import { blobs } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';
import { hdbscan } from '../../src/hdbscan.js';
import { GOLDEN_DIR, parseGoldenJson, readGoldenText, readPointsCsv, worstAbs } from '../helpers/golden.js';
import { mulberry32 } from '../helpers/random.js';

const EXTRA = join(GOLDEN_DIR, 'hdbscan-extra');

interface ExtraCase {
  params: { min_cluster_size: number; min_samples: number; allow_single_cluster: boolean };
  n: number;
  n_clusters: number;
  canonical: { labels: number[]; probabilities: number[] };
  centroids: number[][];
  medoids: number[][];
  medoid_rows: number[];
}

const index = parseGoldenJson<{ case: string; params: string; input: string }[]>(
  readGoldenText(join(EXTRA, 'index.json')),
);

/** The oracle: scikit-learn's lines with the full matrix (exact distances), argmin's first index. */
function medoidRowsOracle(points: ArrayLike<number>, dim: number, labels: Int32Array, p: ArrayLike<number>): number[] {
  const k = Math.max(-1, ...labels) + 1;
  return Array.from({ length: k }, (_, c) => {
    const idx = [...labels.keys()].filter((i) => labels[i] === c);
    const sums = idx.map((i) =>
      idx.reduce((s, j) => {
        let d2 = 0;
        for (let d = 0; d < dim; d++) d2 += (points[i * dim + d] - points[j * dim + d]) ** 2;
        return s + Math.sqrt(d2) * p[j];
      }, 0),
    );
    return idx[sums.indexOf(Math.min(...sums))];
  });
}

const rowsOf = (a: Float64Array | undefined, dim: number): number[][] =>
  Array.from({ length: (a?.length ?? 0) / dim }, (_, c) => Array.from(a!.subarray(c * dim, (c + 1) * dim)));

describe('centres reproduce scikit-learn store_centers on test/golden/hdbscan-extra', () => {
  it('has at least 6 cases', () => expect(index.length).toBeGreaterThanOrEqual(6));

  for (const entry of index) {
    const c = parseGoldenJson<ExtraCase>(readGoldenText(join(EXTRA, entry.case, `${entry.params}.json`)));
    const { points, dim } = readPointsCsv(join(EXTRA, entry.case, entry.input));
    const name = `${entry.case}/${entry.params}`;

    it(`${name}: clusterCenters on the golden labels and probabilities`, () => {
      const r = clusterCenters(points, {
        dim,
        labels: Int32Array.from(c.canonical.labels),
        probabilities: Float64Array.from(c.canonical.probabilities),
        centers: 'both',
      });
      expect(r.centroids!.length).toBe(c.n_clusters * dim);
      expect(worstAbs(r.centroids!, c.centroids.flat())).toBeLessThanOrEqual(1e-6);
      expect(rowsOf(r.medoids, dim)).toEqual(c.medoids);
      expect(c.medoid_rows.map((i) => Array.from(points.subarray(i * dim, (i + 1) * dim)))).toEqual(c.medoids);
    });

    it(`${name}: hdbscan(…, { centers: 'both' }) end to end`, async () => {
      const r = await hdbscan(points, {
        dim,
        minClusterSize: c.params.min_cluster_size,
        minSamples: c.params.min_samples,
        allowSingleCluster: c.params.allow_single_cluster,
        backend: 'cpu',
        centers: 'both',
      });
      expect(Array.from(r.labels)).toEqual(c.canonical.labels);
      expect(worstAbs(r.centroids!, c.centroids.flat())).toBeLessThanOrEqual(1e-6);
      expect(rowsOf(r.medoids, dim)).toEqual(c.medoids);
    });
  }
});

describe('clusterCenters', () => {
  it('medoids equal the n_c × n_c oracle across tile boundaries (clusters of 1 … 700 points), in 1D, 3D and 7D', () => {
    const rand = mulberry32(2101);
    for (const dim of [1, 3, 7]) {
      const sizes = [1, 2, 255, 256, 257, 700];
      const n = sizes.reduce((s, x) => s + x, 0) + 20;
      const points = Float64Array.from({ length: n * dim }, () => rand() * 10);
      const labels = new Int32Array(n).fill(-1);
      let i = 0;
      sizes.forEach((s, c) => labels.fill(c, i, (i += s)));
      // Shuffle the labels so clusters interleave, noise included.
      for (let a = n - 1; a > 0; a--) {
        const b = Math.floor(rand() * (a + 1));
        [labels[a], labels[b]] = [labels[b], labels[a]];
      }
      const p = Float64Array.from({ length: n }, () => rand());
      const r = clusterCenters(points, { dim, labels, probabilities: p, centers: 'medoid' });
      expect(r.centroids).toBeUndefined();
      const rows = medoidRowsOracle(points, dim, labels, p);
      expect(rowsOf(r.medoids, dim)).toEqual(rows.map((m) => Array.from(points.subarray(m * dim, (m + 1) * dim))));
    }
  });

  it('centroids are probability-weighted means; without probabilities plain means; noise ignored', () => {
    const points = new Float32Array([0, 0, 2, 0, 10, 10, 0, 4, 99, 99]);
    const labels = new Int32Array([0, 0, 1, 0, -1]);
    const probabilities = new Float64Array([1, 0.5, 1, 0.5, 0]);
    const w = clusterCenters(points, { dim: 2, labels, probabilities, centers: 'centroid' });
    expect(w.medoids).toBeUndefined();
    expect(Array.from(w.centroids!)).toEqual([(0 + 1 + 0) / 2, (0 + 0 + 2) / 2, 10, 10]);
    const plain = clusterCenters(points, { dim: 2, labels, centers: 'centroid' });
    expect(Array.from(plain.centroids!)).toEqual([2 / 3, 4 / 3, 10, 10]);
  });

  it('the medoid weighs distances by the other point’s probability (scikit-learn’s columns)', () => {
    // Points 0, 1, 10 on a line; plain sums pick 1, but with point 10 weighing 1 and the others 0.1 it is 10.
    const points = new Float64Array([0, 1, 10]);
    const labels = new Int32Array([0, 0, 0]);
    expect(Array.from(clusterCenters(points, { dim: 1, labels, centers: 'medoid' }).medoids!)).toEqual([1]);
    const p = new Float64Array([0.1, 0.1, 1]);
    expect(
      Array.from(clusterCenters(points, { dim: 1, labels, probabilities: p, centers: 'medoid' }).medoids!),
    ).toEqual([10]);
  });

  it('ties go to the first point in index order (np.argmin), within and across tiles', () => {
    const pair = clusterCenters(new Float64Array([2, 0]), { dim: 1, labels: new Int32Array(2), centers: 'medoid' });
    expect(Array.from(pair.medoids!)).toEqual([2]);
    // (3, 4) twice between (0, 0) and (6, 8): both copies sum to 10; the first wins, at any position.
    const labels = new Int32Array(4);
    const dup = new Float32Array([0, 0, 3, 4, 3, 4, 6, 8]);
    expect(Array.from(clusterCenters(dup, { dim: 2, labels, centers: 'medoid' }).medoids!)).toEqual([3, 4]);
    // Integer distances sum exactly: in 1D, 0 … 3 and 0 … 599 have two medians whose sums tie; the first listed wins.
    const line = (xs: number[]) =>
      clusterCenters(Float64Array.from(xs), { dim: 1, labels: new Int32Array(xs.length), centers: 'medoid' })
        .medoids![0];
    expect(line([3, 0, 1, 2])).toBe(1);
    expect(line([3, 0, 2, 1])).toBe(2);
    const rand = mulberry32(7);
    const xs = Array.from({ length: 600 }, (_, i) => i);
    for (let a = 599; a > 0; a--) {
      const b = Math.floor(rand() * (a + 1));
      [xs[a], xs[b]] = [xs[b], xs[a]];
    }
    expect(line(xs)).toBe(xs.find((x) => x === 299 || x === 300));
    expect(line([...xs].reverse())).toBe([...xs].reverse().find((x) => x === 299 || x === 300));
  });

  it("'both' equals 'centroid' and 'medoid' apart; hdbscan() adds only what was asked", async () => {
    const points = blobs({ n: 300, dim: 2, seed: 7, clusters: 3, noise: 0.05 });
    const fit = await hdbscan(points, { dim: 2, minClusterSize: 10, backend: 'cpu' });
    expect(fit.centroids).toBeUndefined();
    expect(fit.medoids).toBeUndefined();
    const input = { dim: 2, labels: fit.labels, probabilities: fit.probabilities };
    const both = clusterCenters(points, { ...input, centers: 'both' });
    expect(both.centroids).toEqual(clusterCenters(points, { ...input, centers: 'centroid' }).centroids);
    expect(both.medoids).toEqual(clusterCenters(points, { ...input, centers: 'medoid' }).medoids);
    expect(both.centroids!.length).toBe(fit.selectedClusters.length * 2);
    const withCentroids = await hdbscan(points, { dim: 2, minClusterSize: 10, backend: 'cpu', centers: 'centroid' });
    expect(withCentroids.centroids).toEqual(both.centroids);
    expect(withCentroids.medoids).toBeUndefined();
    // Each medoid is a point of its cluster.
    for (let c = 0; c < fit.selectedClusters.length; c++) {
      const m = both.medoids!.subarray(2 * c, 2 * c + 2);
      const i = fit.labels.findIndex((l, j) => l === c && points[2 * j] === m[0] && points[2 * j + 1] === m[1]);
      expect(i, `cluster ${c}`).toBeGreaterThanOrEqual(0);
    }
  });

  it('no clusters: empty arrays; weights summing to 0: a NaN centroid', () => {
    const points = new Float32Array([0, 1, 2]);
    const none = clusterCenters(points, { dim: 1, labels: new Int32Array([-1, -1, -1]), centers: 'both' });
    expect(none.centroids).toEqual(new Float64Array(0));
    expect(none.medoids).toEqual(new Float64Array(0));
    const zero = clusterCenters(points, {
      dim: 1,
      labels: new Int32Array([0, 0, 0]),
      probabilities: new Float64Array(3),
      centers: 'centroid',
    });
    expect(Number.isNaN(zero.centroids![0])).toBe(true);
  });

  it('throws InputError naming a bad centers, dim, labels, probabilities or coordinate', async () => {
    const points = new Float32Array([0, 1, 2, 3]);
    const labels = new Int32Array([0, 0]);
    const ok = { dim: 2, labels, centers: 'both' as const };
    expect(() => clusterCenters(points, { ...ok, centers: 'mean' as never })).toThrow(
      new InputError("Expected centers to be 'centroid', 'medoid' or 'both', got 'mean'."),
    );
    expect(() => clusterCenters(points, { ...ok, dim: 3 })).toThrow(
      /dim to be an integer ≥ 1 dividing points.length=4, got 3/,
    );
    expect(() => clusterCenters(points, { ...ok, labels: new Int32Array(3) })).toThrow(
      /labels to be an Int32Array of the 2 points, got 3/,
    );
    expect(() => clusterCenters(points, { ...ok, probabilities: new Float64Array(1) })).toThrow(
      /probabilities to be a Float64Array of the 2 points, got 1/,
    );
    expect(() => clusterCenters(new Float32Array([0, 1, NaN, 3]), ok)).toThrow(/got NaN at row 1, column 0/);
    expect(() => clusterCenters([0, 1] as never, ok)).toThrow(InputError);
    // hdbscan() checks it before the MST.
    await expect(hdbscan(points, { dim: 2, minClusterSize: 2, centers: 'medoids' as never })).rejects.toThrow(
      new InputError("Expected centers to be 'centroid', 'medoid' or 'both', got 'medoids'."),
    );
  });
});
