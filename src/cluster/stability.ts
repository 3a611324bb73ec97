/**
 * Cluster stability (excess of mass): Campello, Moulavi & Sander 2013 (PAKDD), eq. 3, as hdbscan's
 * `compute_stability`: S(C) = Σ over the rows leaving C of (λ_row − λ_birth(C)) · childSize, the root born at 0.
 * Summed in row order in float64, like hdbscan, so sums agree bit for bit. With λ = ∞ the terms follow IEEE
 * (∞ − ∞ = NaN), exactly as numpy's do; selection then treats NaN as hdbscan does (no comparison is true).
 */
import type { ClusterTreeInfo } from './clusterTree.js';
import type { CondensedTree } from './types.js';

/** Stability of every cluster, index id − n. O(rows). */
export function computeStability(tree: CondensedTree, info: ClusterTreeInfo): Float64Array {
  const n = tree.numPoints;
  const stability = new Float64Array(info.numClusters);
  const { parent, lambda, childSize } = tree;
  const birth = info.birth;
  for (let r = 0; r < parent.length; r++) {
    const p = parent[r] - n;
    stability[p] += (lambda[r] - birth[p]) * childSize[r];
  }
  return stability;
}
