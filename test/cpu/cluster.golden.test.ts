/**
 * Golden tests of clusterFromMst against scikit-learn-contrib hdbscan 0.8.43 (test/golden/hdbscan): every
 * case, from the golden canonical MST (float64 and rounded to float32 as the GPU delivers it) and from the MST our
 * Prim oracle computes on points.csv (the stand-in for the EMST backends until they exist).
 */
import { describe, expect, it } from 'vitest';
import { clusterFromMst } from '../../src/cluster/clusterFromMst.js';
import type { ClusterOptions, ClusterResult } from '../../src/cluster/types.js';
import {
  adjustedRandIndex,
  goldenCase,
  goldenIndex,
  goldenMst,
  goldenPoints,
  worstAbs,
  type GoldenCase,
} from '../helpers/golden.js';
import { primMst } from '../helpers/prim.js';

function optionsOf(c: GoldenCase): ClusterOptions {
  return {
    minClusterSize: c.params.min_cluster_size,
    clusterSelectionMethod: c.params.cluster_selection_method,
    clusterSelectionEpsilon: c.params.cluster_selection_epsilon,
    allowSingleCluster: c.params.allow_single_cluster,
    maxClusterSize: c.params.max_cluster_size,
  };
}

function closeRel(a: number, b: number, tol: number): boolean {
  if (a === b) return true; // covers ±∞
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b), 1e-300);
}

/** The full comparison: labels, condensed tree, probabilities and outlier scores. */
function expectExact(result: ClusterResult, c: GoldenCase): void {
  const g = c.canonical;
  expect(Array.from(result.labels)).toEqual(g.labels);
  const t = result.condensedTree;
  expect(Array.from(t.parent)).toEqual(g.condensed_tree.parent);
  expect(Array.from(t.child)).toEqual(g.condensed_tree.child);
  expect(Array.from(t.childSize)).toEqual(g.condensed_tree.child_size);
  let badLambda = -1;
  for (let r = 0; r < g.condensed_tree.lambda.length && badLambda < 0; r++) {
    if (!closeRel(t.lambda[r], g.condensed_tree.lambda[r], 1e-5)) badLambda = r;
  }
  expect(badLambda, `condensed-tree λ differs at row ${badLambda}`).toBe(-1);
  expect(worstAbs(result.probabilities, g.probabilities)).toBeLessThanOrEqual(1e-5);
  expect(worstAbs(result.outlierScores, g.outlier_scores)).toBeLessThanOrEqual(1e-5);
}

/** The near-tie comparison: ARI ≥ 0.999 and the same number of clusters. */
function expectClose(result: ClusterResult, c: GoldenCase): void {
  expect(result.selectedClusters.length).toBe(c.canonical.n_clusters);
  expect(adjustedRandIndex(result.labels, c.canonical.labels)).toBeGreaterThanOrEqual(0.999);
}

const index = goldenIndex();

describe('clusterFromMst reproduces hdbscan 0.8.43 on the golden cases', () => {
  expect(index.length).toBeGreaterThanOrEqual(16);

  for (const entry of index) {
    const name = `${entry.case}/${entry.params}`;
    const c = goldenCase(entry.case, entry.params);
    const options = optionsOf(c);

    it(`${name}: from canonical.mst_edges (float64) — labels, tree, probabilities, scores`, () => {
      const result = clusterFromMst(goldenMst(c), c.n, options);
      expectExact(result, c);
      expect(result.selectedClusters.length).toBe(c.canonical.n_clusters);
      // The single-linkage rows are those of the canonical run.
      const sl = result.singleLinkage;
      const rows = c.canonical.single_linkage_tree;
      expect(Array.from(sl.left)).toEqual(rows.map((r) => r[0]));
      expect(Array.from(sl.right)).toEqual(rows.map((r) => r[1]));
      expect(Array.from(sl.size)).toEqual(rows.map((r) => r[3]));
      expect(Array.from(sl.distance)).toEqual(rows.map((r) => r[2]));
    });

    it(`${name}: from the canonical MST in float32, shuffled (the GPU's precision, any order)`, () => {
      const mst = goldenMst(c);
      const m = mst.weights.length;
      // Reverse the edge order and swap endpoints: clusterFromMst must restore the canonical order itself.
      const sources = new Uint32Array(m);
      const targets = new Uint32Array(m);
      const weights = new Float32Array(m);
      for (let i = 0; i < m; i++) {
        sources[i] = mst.targets[m - 1 - i];
        targets[i] = mst.sources[m - 1 - i];
        weights[i] = mst.weights[m - 1 - i];
      }
      const result = clusterFromMst({ sources, targets, weights }, c.n, options);
      if (entry.near_ties) expectClose(result, c);
      else expectExact(result, c);
    });

    it(`${name}: from the Prim oracle's MST on points.csv`, () => {
      const { points, dim, n } = goldenPoints(entry.case);
      expect(n).toBe(c.n);
      const mst = primMst(points, dim, { minSamples: c.min_samples_effective });
      // The oracle finds the golden canonical MST exactly (same edges, same float64 weights).
      const golden = goldenMst(c);
      expect(Array.from(mst.sources)).toEqual(Array.from(golden.sources));
      expect(Array.from(mst.targets)).toEqual(Array.from(golden.targets));
      expect(Array.from(mst.weights)).toEqual(Array.from(golden.weights));
      expectExact(clusterFromMst(mst, n, options), c);
    });

    if (!c.canonical.exact_ties && c.canonical.ari_vs_reference === 1) {
      it(`${name}: cluster persistence equals hdbscan's cluster_persistence_ (tie-free case)`, () => {
        const result = clusterFromMst(goldenMst(c), c.n, options);
        // Same partition as hdbscan's own run, but its numbering follows its own MST's endpoint order: match
        // labels through the points before comparing per-cluster values.
        expect(adjustedRandIndex(result.labels, c.labels)).toBe(1);
        expect(result.clusterPersistence.length).toBe(c.cluster_persistence.length);
        const toReference = new Map<number, number>();
        result.labels.forEach((l, i) => toReference.set(l, c.labels[i]));
        const reordered = Array.from(result.clusterPersistence, (_, k) => c.cluster_persistence[toReference.get(k)!]);
        expect(worstAbs(result.clusterPersistence, reordered)).toBeLessThanOrEqual(1e-5);
      });
    }
  }
});
