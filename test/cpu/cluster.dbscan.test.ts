/**
 * dbscanClustering (hdbscan's `dbscan_clustering` / `labelling_at_cut`): DBSCAN* labels equal hdbscan 0.8.43's on
 * every case of test/golden/hdbscan-extra (from the golden canonical MST, and end to end from hdbscan() on the
 * points), its clusters are the components of the MST below the cut, numbered by hdbscan's union-by-rank roots;
 * bad input names the value.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dbscanClustering } from '../../src/cluster/dbscan.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import type { SingleLinkageTree } from '../../src/cluster/types.js';
import { blobs } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';
import { hdbscan } from '../../src/hdbscan.js';
import { GOLDEN_DIR, goldenMst, parseGoldenJson, readGoldenText, readPointsCsv } from '../helpers/golden.js';

const EXTRA = join(GOLDEN_DIR, 'hdbscan-extra');

interface ExtraCase {
  params: { min_cluster_size: number; min_samples: number; allow_single_cluster: boolean };
  n: number;
  canonical: { labels: number[]; mst_edges: number[][] };
  dbscan: { min_cluster_size: number; cuts: { cut_distance: number; labels: number[]; n_clusters: number }[] };
}

const index = parseGoldenJson<{ case: string; params: string; input: string }[]>(
  readGoldenText(join(EXTRA, 'index.json')),
);

/** scipy rows as the four arrays. */
function tree(rows: number[][]): SingleLinkageTree {
  return {
    left: Uint32Array.from(rows, (r) => r[0]),
    right: Uint32Array.from(rows, (r) => r[1]),
    distance: Float64Array.from(rows, (r) => r[2]),
    size: Uint32Array.from(rows, (r) => r[3]),
  };
}

/** Components of the MST edges lighter than `cut` (an independent union-find), as a canonical partition string. */
function partitionBelow(
  mst: { sources: Uint32Array; targets: Uint32Array; weights: ArrayLike<number> },
  n: number,
  cut: number,
) {
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x])));
  for (let i = 0; i < mst.sources.length; i++) {
    if (mst.weights[i] < cut) parent[find(mst.sources[i])] = find(mst.targets[i]);
  }
  return Array.from({ length: n }, (_, p) => find(p));
}

/** Whether two labelings induce the same partition of the clustered points and the same noise. */
function samePartition(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  const ab = new Map<number, number>();
  const ba = new Map<number, number>();
  for (let i = 0; i < a.length; i++) {
    if (a[i] < 0 !== b[i] < 0) return false;
    if (a[i] < 0) continue;
    if ((ab.get(a[i]) ?? b[i]) !== b[i] || (ba.get(b[i]) ?? a[i]) !== a[i]) return false;
    ab.set(a[i], b[i]);
    ba.set(b[i], a[i]);
  }
  return true;
}

describe('dbscanClustering reproduces hdbscan 0.8.43 dbscan_clustering on test/golden/hdbscan-extra', () => {
  it('has at least 6 cases with 3 cuts each', () => {
    expect(index.length).toBeGreaterThanOrEqual(6);
  });

  for (const entry of index) {
    const c = parseGoldenJson<ExtraCase>(readGoldenText(join(EXTRA, entry.case, `${entry.params}.json`)));
    const name = `${entry.case}/${entry.params}`;

    it(`${name}: labels equal at every cut, from the canonical MST`, () => {
      const linkage = singleLinkage(goldenMst(c as never), c.n);
      for (const cut of c.dbscan.cuts) {
        const labels = dbscanClustering(linkage, c.n, {
          cutDistance: cut.cut_distance,
          minClusterSize: c.dbscan.min_cluster_size,
        });
        expect(Array.from(labels), `cut ${cut.cut_distance}`).toEqual(cut.labels);
      }
    });

    it(`${name}: labels equal at every cut, end to end from hdbscan() on the points`, async () => {
      const { points, dim } = readPointsCsv(join(EXTRA, entry.case, entry.input));
      const r = await hdbscan(points, {
        keep: { mst: true, singleLinkage: true },
        dim,
        minClusterSize: c.params.min_cluster_size,
        minSamples: c.params.min_samples,
        allowSingleCluster: c.params.allow_single_cluster,
        backend: 'cpu',
      });
      for (const cut of c.dbscan.cuts) {
        const labels = dbscanClustering(r.singleLinkage!, c.n, {
          cutDistance: cut.cut_distance,
          minClusterSize: c.dbscan.min_cluster_size,
        });
        expect(Array.from(labels), `cut ${cut.cut_distance}`).toEqual(cut.labels);
      }
    });
  }
});

describe('dbscanClustering', () => {
  const n = 400;
  const points = blobs({ n, dim: 2, seed: 21, clusters: 4, noise: 0.1 });
  const fit = hdbscan(points, { keep: { mst: true, singleLinkage: true }, dim: 2, minClusterSize: 10, backend: 'cpu' });

  it('gives the components of the MST below the cut, noise where smaller than minClusterSize, labels 0 … k − 1', async () => {
    const r = await fit;
    const weights = Array.from(r.mst!.weights).sort((a, b) => a - b);
    for (const q of [0, 0.3, 0.6, 0.9, 0.99]) {
      const cut = weights[Math.floor(q * (n - 2))] * 1.0001;
      for (const minClusterSize of [1, 2, 10, 50]) {
        const labels = dbscanClustering(r.singleLinkage!, n, { cutDistance: cut, minClusterSize });
        const comp = partitionBelow(r.mst!, n, cut);
        const size = new Map<number, number>();
        for (const x of comp) size.set(x, (size.get(x) ?? 0) + 1);
        const expected = comp.map((x) => ((size.get(x) ?? 0) >= minClusterSize ? x : -1));
        expect(samePartition(labels, expected), `cut ${cut}, mcs ${minClusterSize}`).toBe(true);
        const k = [...size.values()].filter((s) => s >= minClusterSize).length;
        expect(new Set(Array.from(labels).filter((l) => l >= 0))).toEqual(
          new Set(Array.from({ length: k }, (_, i) => i)),
        );
        if (minClusterSize === 1) expect(labels.includes(-1)).toBe(false);
      }
    }
  });

  it('cut 0 leaves every point alone; a cut above the largest weight gives one cluster; minClusterSize > n all noise', async () => {
    const r = await fit;
    const max = r.mst!.weights.reduce((m, w) => Math.max(m, w), 0);
    expect(Array.from(dbscanClustering(r.singleLinkage!, n, { cutDistance: 0, minClusterSize: 1 }))).toEqual(
      Array.from({ length: n }, (_, i) => i),
    );
    expect(dbscanClustering(r.singleLinkage!, n, { cutDistance: 0 }).every((l) => l === -1)).toBe(true);
    expect(dbscanClustering(r.singleLinkage!, n, { cutDistance: max * 2 }).every((l) => l === 0)).toBe(true);
    expect(
      dbscanClustering(r.singleLinkage!, n, { cutDistance: max * 2, minClusterSize: n + 1 }).every((l) => l === -1),
    ).toBe(true);
    // A merge exactly at the cut does not join (hdbscan: distance < cut).
    expect(dbscanClustering(r.singleLinkage!, n, { cutDistance: max, minClusterSize: 1 }).includes(1)).toBe(true);
  });

  it('issue 21: numbers clusters by hdbscan’s union-by-rank roots, not by their smallest point', () => {
    // 7 points: {5, 6} merge first (root 5), then 0 joins them (ranks tie: root 5 stays), {1, 2} (root 1);
    // 3 and 4 join only above the cut. hdbscan 0.8.43's labelling_at_cut gives these labels.
    const z = tree([
      [5, 6, 1, 2],
      [1, 2, 1, 2],
      [0, 7, 1.5, 3],
      [3, 4, 3, 2],
      [8, 9, 4, 5],
      [10, 11, 5, 7],
    ]);
    expect(Array.from(dbscanClustering(z, 7, { cutDistance: 2, minClusterSize: 2 }))).toEqual([1, 0, 0, -1, -1, 1, 1]);
    expect(Array.from(dbscanClustering(z, 7, { cutDistance: 2, minClusterSize: 1 }))).toEqual([3, 0, 0, 1, 2, 3, 3]);
    expect(Array.from(dbscanClustering(z, 7, { cutDistance: 4.5, minClusterSize: 1 }))).toEqual([1, 1, 1, 0, 0, 1, 1]);
  });

  it('0 and 1 points; minClusterSize defaults to 5 (hdbscan’s)', () => {
    const empty = tree([]);
    expect(dbscanClustering(empty, 0, { cutDistance: 1 })).toEqual(new Int32Array(0));
    expect(Array.from(dbscanClustering(empty, 1, { cutDistance: 1, minClusterSize: 1 }))).toEqual([0]);
    expect(Array.from(dbscanClustering(empty, 1, { cutDistance: 1 }))).toEqual([-1]);
    const four = tree([
      [0, 1, 1, 2],
      [2, 4, 1, 3],
      [3, 5, 1, 4],
    ]);
    expect(Array.from(dbscanClustering(four, 4, { cutDistance: 2 }))).toEqual([-1, -1, -1, -1]);
    expect(Array.from(dbscanClustering(four, 4, { cutDistance: 2, minClusterSize: 4 }))).toEqual([0, 0, 0, 0]);
  });

  it('throws InputError naming a bad cutDistance, minClusterSize or tree', () => {
    const z = tree([[0, 1, 1, 2]]);
    for (const cutDistance of [NaN, -1, Infinity, '1' as unknown as number, undefined as unknown as number]) {
      expect(() => dbscanClustering(z, 2, { cutDistance })).toThrow(
        new InputError(`Expected cutDistance to be a finite number ≥ 0, got ${String(cutDistance)}.`),
      );
    }
    for (const minClusterSize of [0, 1.5, -2, NaN]) {
      expect(() => dbscanClustering(z, 2, { cutDistance: 1, minClusterSize })).toThrow(
        new InputError(`Expected minClusterSize to be an integer ≥ 1, got ${minClusterSize}.`),
      );
    }
    expect(() => dbscanClustering(z, 2, null as never)).toThrow(InputError);
    expect(() => dbscanClustering(z, 3, { cutDistance: 1 })).toThrow(/n=3 points to have 2 rows, got left 1/);
    expect(() => dbscanClustering(tree([[0, 2, 1, 2]]), 2, { cutDistance: 1 })).toThrow(
      new InputError('Expected row 0 of the single-linkage tree to merge nodes below 2, got (0, 2).'),
    );
  });
});
