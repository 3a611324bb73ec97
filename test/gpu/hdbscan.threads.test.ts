/**
 * hdbscan() from 2^19 points in Node (issue 5's host side on threads): the clustering's buffers allocated before the
 * MST and touched by worker threads while the GPU computes it, the MST read back straight into them (the GPU splits its pairs)
 * (equal to emst()'s own read-back), the labelling and runts on threads, and with 6 threads single linkage and
 * condensing's layout on them too — equal, array by array, to the one-thread
 * clustering of the same MST (`clusterFromMstWithExemplars`, itself checked against the
 * oracles and goldens). The worker script is bundled from the sources (test/helpers/workers.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { clusterFromMstWithExemplars } from '../../src/cluster/clusterFromMst.js';
import { layoutThreadStats } from '../../src/cluster/condense.threads.js';
import { linkageThreadStats } from '../../src/cluster/linkage.threads.js';
import { pointThreadStats } from '../../src/cluster/pointResults.threads.js';
import { generate } from '../../src/datasets/generate.js';
import { emst } from '../../src/emst/emst.js';
import { readbackStats } from '../../src/emst/readback.threads.js';
import { hdbscan } from '../../src/hdbscan.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-hdbscan-threads-');
// One device is enough: the GPU's part is the MST, which the other GPU suites cover on both.
const all = await gpuVariants();
const variants = all.slice(0, 1);
afterAll(() => destroyVariants(all));

describe.skipIf(variants.length === 0).each(variants)('hdbscan() with its host side on threads ($name)', ({ ctx }) => {
  it.each([3, 6])(
    '2^19 blobs, %i threads: buffers ahead, the host side on threads, the same arrays as one thread on the same MST',
    async (threads) => {
      const n = 1 << 19;
      const points = generate('blobs', { n, dim: 2, seed: 5, clusters: 6, noise: 0.1 });
      const runs = pointThreadStats.runs;
      const reads = readbackStats.direct;
      const links = linkageThreadStats.runs;
      const layouts = layoutThreadStats.runs;
      // The host path after a GPU MST (issue 17 keeps the tree on the GPU by default: hdbscan.resident.test.ts).
      process.env.TREELINE_RESIDENT = '0';
      const r = await hdbscan(points, {
        keep: { mst: true, singleLinkage: true },
        dim: 2,
        minClusterSize: 15,
        minSamples: 4,
        backend: 'gpu',
        gpu: ctx,
        threads,
      }).finally(() => delete process.env.TREELINE_RESIDENT);
      expect(pointThreadStats.runs, 'the labelling ran on threads').toBe(runs + 1);
      expect(readbackStats.direct, "the MST's read-back went straight into the shared arrays").toBe(reads + 1);
      // From 6 threads single linkage and condensing's layout run on them too.
      expect(linkageThreadStats.runs, 'single linkage on threads').toBe(links + (threads >= 6 ? 1 : 0));
      expect(layoutThreadStats.runs, "condensing's layout on threads").toBe(layouts + (threads >= 6 ? 1 : 0));
      expect(r.mst!.sources.buffer).toBeInstanceOf(SharedArrayBuffer);
      // The same MST as emst() reads back on one thread into its own arrays.
      const plain = await emst(points, { dim: 2, minSamples: 4, backend: 'gpu', gpu: ctx });
      expect(plain.sources.buffer).toBeInstanceOf(ArrayBuffer);
      for (const key of ['sources', 'targets', 'weights'] as const) {
        expect(Array.from(r.mst![key]), `mst.${key}`).toEqual(Array.from(plain[key]));
      }
      expect(r.labels.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(r.singleLinkage!.left.buffer).toBeInstanceOf(SharedArrayBuffer);
      const one = clusterFromMstWithExemplars(r.mst!, n, { minClusterSize: 15 });
      expect(one.result.selectedClusters.length).toBeGreaterThan(1);
      for (const key of [
        'labels',
        'probabilities',
        'outlierScores',
        'clusterPersistence',
        'selectedClusters',
      ] as const) {
        expect(Array.from(r[key]), key).toEqual(Array.from(one.result[key]));
      }
      for (const key of ['left', 'right', 'distance', 'size'] as const) {
        expect(Array.from(r.singleLinkage![key]), `singleLinkage.${key}`).toEqual(
          Array.from(one.result.singleLinkage[key]),
        );
      }
      for (const key of ['parent', 'child', 'lambda', 'childSize'] as const) {
        expect(Array.from(r.condensedTree[key]), `condensedTree.${key}`).toEqual(
          Array.from(one.result.condensedTree[key]),
        );
      }
      expect(r.exemplars.map((e) => Array.from(e))).toEqual(one.exemplars.map((e) => Array.from(e)));
    },
    120_000,
  );
});
