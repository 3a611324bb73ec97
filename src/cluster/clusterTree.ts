/**
 * Per-cluster facts of a condensed tree, gathered in one pass over its rows so that selection, labelling,
 * probabilities, GLOSH and prediction never rescan the tree per cluster (hdbscan's Python does: `tree['parent'] ==
 * c` masks). Clusters are indexed k = id − n: the root is 0, and a parent's index is always below its children's.
 */
import type { CondensedTree } from './types.js';

export interface ClusterTreeInfo {
  /** n. */
  numPoints: number;
  /** Clusters including the root. */
  numClusters: number;
  /** Parent cluster index of cluster k; −1 for the root. */
  parent: Int32Array;
  /** λ at which cluster k splits off its parent (its row's λ); 0 for the root. */
  birth: Float64Array;
  /** Points of cluster k (its row's childSize); n for the root. */
  size: Uint32Array;
  /** Index of k's first child cluster (the second is firstChild + 1: a split makes two); −1 for a leaf. */
  firstChild: Int32Array;
  /** Largest λ among the rows whose parent is cluster k (hdbscan's `max_lambdas`, the cluster's "death"); 0 if none. */
  maxLambda: Float64Array;
}

/** Gathers the per-cluster facts. O(rows). */
export function clusterTreeInfo(tree: CondensedTree): ClusterTreeInfo {
  const n = tree.numPoints;
  const k = tree.numClusters;
  const parent = new Int32Array(k).fill(-1);
  const birth = new Float64Array(k);
  const size = new Uint32Array(k);
  const firstChild = new Int32Array(k).fill(-1);
  const maxLambda = new Float64Array(k);
  if (k > 0) size[0] = n;
  const rows = tree.parent.length;
  for (let r = 0; r < rows; r++) {
    const p = tree.parent[r] - n;
    const c = tree.child[r];
    const lam = tree.lambda[r];
    if (lam > maxLambda[p]) maxLambda[p] = lam;
    if (c >= n) {
      const ck = c - n;
      parent[ck] = p;
      birth[ck] = lam;
      size[ck] = tree.childSize[r];
      if (firstChild[p] < 0 || ck < firstChild[p]) firstChild[p] = ck;
    }
  }
  return { numPoints: n, numClusters: k, parent, birth, size, firstChild, maxLambda };
}

/** For every point: the cluster index it leaves and the λ at which it does (its one row in the tree). */
export interface PointRows {
  /** Cluster index (id − n) each point falls out of. */
  cluster: Int32Array;
  /** λ at which it falls out. */
  lambda: Float64Array;
}

/** Each point's row. O(rows). Points absent from the tree (n < 2) get cluster −1 and λ 0. */
export function pointRows(tree: CondensedTree): PointRows {
  const n = tree.numPoints;
  const cluster = new Int32Array(n).fill(-1);
  const lambda = new Float64Array(n);
  for (let r = 0; r < tree.parent.length; r++) {
    const c = tree.child[r];
    if (c < n) {
      cluster[c] = tree.parent[r] - n;
      lambda[c] = tree.lambda[r];
    }
  }
  return { cluster, lambda };
}
