/**
 * hdbscan() on the GPU backend against every golden case of scikit-learn-contrib hdbscan 0.8.43
 * (../shared/golden/hdbscan; the CPU backend's twin of this test is test/cpu/hdbscan.test.ts): identical MST, labels
 * and condensed tree, probabilities and GLOSH scores within 1e-5, where the case has no near-ties; ARI ≥ 0.999 and the
 * same cluster count where it has.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { hdbscan } from '../../src/hdbscan.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { adjustedRandIndex, goldenCase, goldenIndex, goldenMst, goldenPoints } from '../helpers/golden.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

function worstAbs(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] === expected[i]) continue;
    worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
    if (Number.isNaN(worst)) return Infinity;
  }
  return worst;
}

describe.skipIf(variants.length === 0).each(variants)('hdbscan(points) on the GPU reproduces hdbscan 0.8.43 ($name)', ({ ctx }) => {
  for (const entry of goldenIndex()) {
    const c = goldenCase(entry.case, entry.params);
    it(`${entry.case}/${entry.params}`, async () => {
      const { points, dim, n } = goldenPoints(entry.case);
      const r = await hdbscan(points, {
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
      if (c.canonical.near_ties) {
        expect(adjustedRandIndex(r.labels, c.canonical.labels)).toBeGreaterThanOrEqual(0.999);
        return;
      }
      const golden = goldenMst(c);
      expect(Array.from(r.mst.sources)).toEqual(Array.from(golden.sources));
      expect(Array.from(r.mst.targets)).toEqual(Array.from(golden.targets));
      expect(worstAbs(r.mst.weights, Array.from(golden.weights, (w) => Math.fround(w)))).toBeLessThanOrEqual(1e-6);
      expect(Array.from(r.labels)).toEqual(c.canonical.labels);
      expect(Array.from(r.condensedTree.parent)).toEqual(c.canonical.condensed_tree.parent);
      expect(Array.from(r.condensedTree.child)).toEqual(c.canonical.condensed_tree.child);
      expect(worstAbs(r.probabilities, c.canonical.probabilities)).toBeLessThanOrEqual(1e-5);
      expect(worstAbs(r.outlierScores, c.canonical.outlier_scores)).toBeLessThanOrEqual(1e-5);
    });
  }
});
