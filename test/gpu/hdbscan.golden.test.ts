/**
 * hdbscan() on the GPU backend against every golden case of scikit-learn-contrib hdbscan 0.8.43
 * (test/golden/hdbscan; the CPU backend's twin of this test is test/cpu/hdbscan.test.ts): identical MST, labels
 * and condensed tree, probabilities and GLOSH scores within 1e-5, where the case has no near-ties; ARI ≥ 0.999 and the
 * same cluster count where it has.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { hdbscan } from '../../src/hdbscan.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { expectGoldenResult, goldenCase, goldenIndex, goldenPoints } from '../helpers/golden.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

describe.skipIf(variants.length === 0).each(variants)(
  'hdbscan(points) on the GPU reproduces hdbscan 0.8.43 ($name)',
  ({ ctx }) => {
    for (const entry of goldenIndex()) {
      const c = goldenCase(entry.case, entry.params);
      it(`${entry.case}/${entry.params}`, async () => {
        const { points, dim, n } = goldenPoints(entry.case);
        const r = await hdbscan(points, {
          keep: { mst: true, singleLinkage: true },
          dim,
          minClusterSize: c.params.min_cluster_size,
          minSamples: c.params.min_samples,
          clusterSelectionMethod: c.params.cluster_selection_method,
          clusterSelectionEpsilon: c.params.cluster_selection_epsilon,
          allowSingleCluster: c.params.allow_single_cluster,
          maxClusterSize: c.params.max_cluster_size,
          backend: 'gpu',
          gpu: ctx,
        });
        expect(r.backend).toBe('gpu');
        expect(r.labels.length).toBe(n);
        expect(r.selectedClusters.length).toBe(c.canonical.n_clusters);
        expectGoldenResult({ ...r, mst: r.mst! }, c);
      });
    }
  },
);
