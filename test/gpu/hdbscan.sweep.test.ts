/**
 * Issue 17 §3: a minClusterSize sweep (hdbscanSweep, `treeline hdbscan --min-cluster-size 5,10,20`) condenses the
 * one GPU-resident dendrogram once per value (src/cluster/resident.ts) and gives, per value, exactly what a separate
 * hdbscan() call with that minClusterSize and the same minSamples gives — labels, probabilities, outlier scores,
 * condensed tree, stabilities, selection, exemplars — on points with ties and duplicates, with a value above n and
 * one whose row keys do not fit 64 bits (re-clustered on the host from the single linkage read back for it); the
 * CPU backend's sweep (host re-clustering) gives the same.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { blobs } from '../../src/datasets/generate.js';
import { hdbscan, hdbscanSweep, type HdbscanOptions } from '../../src/hdbscan.js';
import type { ClusterResult } from '../../src/cluster/types.js';
import { condenseRowsFits } from '../../src/cluster/condense.rows.cpu.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

function expectSame(
  got: { result: Omit<ClusterResult, 'timings' | 'mst' | 'singleLinkage'>; exemplars: Uint32Array[] },
  want: { result: Omit<ClusterResult, 'timings' | 'mst' | 'singleLinkage'>; exemplars: Uint32Array[] },
  tag: string,
): void {
  const [g, w] = [got.result, want.result];
  expect(g.labels, tag).toEqual(w.labels);
  expect(g.probabilities, tag).toEqual(w.probabilities);
  expect(g.outlierScores, tag).toEqual(w.outlierScores);
  for (const k of ['parent', 'child', 'lambda', 'childSize'] as const) {
    expect(g.condensedTree[k], `${tag} ${k}`).toEqual(w.condensedTree[k]);
  }
  expect(g.stability, tag).toEqual(w.stability);
  expect(g.selectedClusters, tag).toEqual(w.selectedClusters);
  expect(g.clusterPersistence, tag).toEqual(w.clusterPersistence);
  expect(got.exemplars, tag).toEqual(want.exemplars);
}

for (const { name, ctx } of variants) {
  describe(`hdbscanSweep() on the GPU-resident tree (${name})`, () => {
    it('issue 17: each minClusterSize equals a separate hdbscan() call (ties, mcs > n, keys over 64 bits)', async () => {
      const n = 2500;
      // Rounded coordinates: duplicate points (λ = ∞) and tied weights.
      const points = blobs({ n, dim: 2, seed: 7, clusters: 5, noise: 0.2 }).map((x) => Math.round(x * 4) / 4);
      const tooWide = 2 ** 27;
      expect(condenseRowsFits(n, tooWide)).toBe(false);
      const more = [5, 20, 2, n + 500, tooWide, 5];
      const options: HdbscanOptions = { dim: 2, minClusterSize: 10, minSamples: 4, backend: 'gpu', gpu: ctx };
      const sweep = await hdbscanSweep(points, options, more);
      expect(sweep.fit.timings['cluster::gpu'], 'the fit on the GPU-resident path').toBeGreaterThan(0);
      expect(sweep.fit.singleLinkage, 'not kept unless asked').toBeUndefined();
      const alone = await hdbscan(points, options);
      expectSame(
        { result: sweep.fit, exemplars: sweep.fit.exemplars },
        { result: alone, exemplars: alone.exemplars },
        'fit',
      );
      expect(sweep.more.map((c) => c.minClusterSize)).toEqual(more);
      for (const [i, c] of sweep.more.entries()) {
        const tag = `minClusterSize ${c.minClusterSize} (#${i})`;
        expect(c.onGpu, `${tag}: condensed on the GPU`).toBe(c.minClusterSize !== tooWide);
        expect(sweep.fit.timings[`cluster::recluster(${c.minClusterSize})`], tag).toBeGreaterThan(0);
        const want = await hdbscan(points, { ...options, minClusterSize: c.minClusterSize });
        expectSame(c, { result: want, exemplars: want.exemplars }, tag);
        if (c.minClusterSize > n)
          expect(
            c.result.labels.every((l) => l === -1),
            tag,
          ).toBe(true);
      }
    });

    it('issue 17: the same sweep on the CPU backend and with keep gives the same clusterings', async () => {
      const n = 1500;
      const points = blobs({ n, dim: 3, seed: 9, clusters: 4, noise: 0.1 });
      const options: HdbscanOptions = { dim: 3, minClusterSize: 8, backend: 'gpu', gpu: ctx };
      const more = [15, 3];
      const gpu = await hdbscanSweep(points, { ...options, keep: { mst: true, singleLinkage: true } }, more);
      const cpu = await hdbscanSweep(points, { ...options, backend: 'cpu', gpu: undefined }, more);
      expect(gpu.fit.singleLinkage!.left.length, 'kept').toBe(n - 1);
      for (const [i, c] of gpu.more.entries()) {
        expect(c.onGpu, 'condensed on the GPU').toBe(true);
        expect(cpu.more[i].onGpu, 'the CPU backend re-clusters on the host').toBe(false);
        expectSame(c, cpu.more[i], `minClusterSize ${c.minClusterSize} vs cpu`);
      }
    });
  });
}
