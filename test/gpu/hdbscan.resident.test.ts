/**
 * Issue 17: hdbscan() on the GPU with the tree kept there (canonical order, dendrogram and condensed tree on the
 * GPU, src/cluster/resident.ts) gives the host path's results exactly — labels, probabilities, outlier scores,
 * condensed tree, stabilities' selection, exemplars, MST and single linkage — against the same GPU MST clustered on
 * the host (TREELINE_RESIDENT=0) and against the CPU backend, on blobs with ties, duplicates, extreme scales and
 * every selection option; `keep` leaves the MST and the dendrogram on the GPU.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { finishThreadStats, stabilityThreadStats } from '../../src/cluster/condense.threads.js';
import { blobs } from '../../src/datasets/generate.js';
import { hdbscan, type HdbscanOptions, type HdbscanResult } from '../../src/hdbscan.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-hdbscan-resident-');

const variants = await gpuVariants();
const ALL = { mst: true, singleLinkage: true };
afterAll(() => destroyVariants(variants));

async function onHost(points: Float32Array, options: HdbscanOptions): Promise<HdbscanResult> {
  process.env.TREELINE_RESIDENT = '0';
  try {
    return await hdbscan(points, options);
  } finally {
    delete process.env.TREELINE_RESIDENT;
  }
}

function expectSame(got: HdbscanResult, want: HdbscanResult, tag: string): void {
  expect(got.labels, tag).toEqual(want.labels);
  expect(got.probabilities, tag).toEqual(want.probabilities);
  expect(got.outlierScores, tag).toEqual(want.outlierScores);
  expect(got.condensedTree.parent, tag).toEqual(want.condensedTree.parent);
  expect(got.condensedTree.child, tag).toEqual(want.condensedTree.child);
  expect(got.condensedTree.lambda, tag).toEqual(want.condensedTree.lambda);
  expect(got.condensedTree.childSize, tag).toEqual(want.condensedTree.childSize);
  expect(got.stability, tag).toEqual(want.stability);
  expect(got.selectedClusters, tag).toEqual(want.selectedClusters);
  expect(got.clusterPersistence, tag).toEqual(want.clusterPersistence);
  expect(got.exemplars, tag).toEqual(want.exemplars);
}

for (const { name, ctx } of variants) {
  describe(`hdbscan() with the tree on the GPU (${name})`, () => {
    it('issue 17: equals the host path on the same GPU MST and the CPU backend (blobs, 2D/3D, several options)', async () => {
      const cases: { n: number; dim: number; o: Partial<HdbscanOptions>; round?: number; scale?: number }[] = [
        { n: 3000, dim: 2, o: { minClusterSize: 15 } },
        { n: 3000, dim: 3, o: { minClusterSize: 5, minSamples: 3 } },
        { n: 2000, dim: 2, o: { minClusterSize: 10, clusterSelectionMethod: 'leaf' } },
        { n: 2000, dim: 2, o: { minClusterSize: 10, clusterSelectionEpsilon: 0.5, allowSingleCluster: true } },
        { n: 2000, dim: 2, o: { minClusterSize: 8, maxClusterSize: 300, minSamples: 1 } },
        // Rounded coordinates: duplicates (λ = ∞) and tied weights.
        { n: 2500, dim: 2, o: { minClusterSize: 12 }, round: 4 },
        // Tiny coordinates: the power-of-two rescaling undone on the condensed tree's λ.
        { n: 1500, dim: 3, o: { minClusterSize: 10 }, scale: 1e-30 },
        { n: 2, dim: 2, o: { minClusterSize: 2 } },
        { n: 3, dim: 2, o: { minClusterSize: 2 } },
      ];
      let seed = 3;
      for (const c of cases) {
        let points = blobs({ n: c.n, dim: c.dim, seed: seed++, clusters: 5, noise: 0.2 });
        if (c.round) points = points.map((x) => Math.round(x * c.round!) / c.round!);
        if (c.scale) points = points.map((x) => x * c.scale!);
        const options: HdbscanOptions = { dim: c.dim, ...c.o, backend: 'gpu', gpu: ctx, keep: ALL };
        const tag = JSON.stringify({ n: c.n, dim: c.dim, ...c.o, round: c.round, scale: c.scale });
        const got = await hdbscan(points, options);
        const host = await onHost(points, options);
        expectSame(got, host, tag);
        expect(got.mst!.sources, tag).toEqual(host.mst!.sources);
        expect(got.mst!.targets, tag).toEqual(host.mst!.targets);
        expect(got.mst!.weights, tag).toEqual(host.mst!.weights);
        expect(got.singleLinkage, tag).toEqual(host.singleLinkage);
        const cpu = await hdbscan(points, { ...options, backend: 'cpu', gpu: undefined });
        expectSame(got, cpu, `${tag} vs cpu`);
        if (c.n >= 2000) expect(got.timings['cluster::gpu'], tag).toBeGreaterThan(0);
      }
    });

    it('issue 17: keep: { mst: false, singleLinkage: false } returns the same clustering without them', async () => {
      const points = blobs({ n: 4000, dim: 2, seed: 11, clusters: 6, noise: 0.1 });
      const options: HdbscanOptions = { dim: 2, minClusterSize: 20, backend: 'gpu', gpu: ctx, keep: ALL };
      const all = await hdbscan(points, options);
      const lean = await hdbscan(points, { ...options, keep: { mst: false, singleLinkage: false } });
      expectSame(lean, all, 'lean');
      expect(lean.mst).toBeUndefined();
      expect(lean.singleLinkage).toBeUndefined();
      expect(all.mst!.sources.length).toBe(3999);
    });
  });
}

// One device for the large case: the GPU's part is what the cases above cover on both.
for (const { name, ctx } of variants.slice(0, 1)) {
  describe(`hdbscan() with the tree on the GPU, host side on threads (${name})`, () => {
    it("issue 17: 2^19 points with 3 threads: host arrays touched ahead, labelling on threads, the host path's results", async () => {
      const n = 1 << 19;
      const points = blobs({ n, dim: 2, seed: 5, clusters: 6, noise: 0.1 });
      const options: HdbscanOptions = {
        dim: 2,
        minClusterSize: 15,
        minSamples: 4,
        backend: 'gpu',
        gpu: ctx,
        threads: 3,
        keep: ALL,
      };
      const unpacked = finishThreadStats.runs;
      const summed = stabilityThreadStats.runs;
      const got = await hdbscan(points, options);
      expect(got.timings['cluster::gpu']).toBeGreaterThan(0);
      expect(finishThreadStats.runs, 'λ from the rows on threads').toBe(unpacked + 1);
      expect(stabilityThreadStats.runs, 'stabilities by cluster on threads').toBe(summed + 1);
      expect(got.labels.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(got.condensedTree.lambda.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(got.mst!.sources.buffer).toBeInstanceOf(SharedArrayBuffer);
      const host = await onHost(points, options);
      expectSame(got, host, '2^19');
      for (const key of ['sources', 'targets', 'weights'] as const) expect(got.mst![key], key).toEqual(host.mst![key]);
      expect(got.singleLinkage, '2^19 linkage').toEqual(host.singleLinkage);
    }, 180_000);
  });
}
