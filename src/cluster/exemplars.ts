/**
 * Exemplars, as hdbscan's `PredictionData` builds them (`prediction.py`): for each selected cluster, its leaf
 * clusters in depth-first order (first child first), and in each leaf the points that leave it at its largest λ —
 * the cluster's densest core — in condensed-tree row order. hdbscan's own run lists the same points per cluster,
 * but within a leaf in its tree's row order, which follows its MST's endpoint order rather than the canonical
 * one; compare exemplars as sets. O(rows): the rows are bucketed by parent once, instead
 * of hdbscan's boolean mask over the whole tree per leaf.
 */
import { clusterTreeInfo } from './clusterTree.js';
import type { CondensedTree } from './types.js';

/** Exemplar point indices of each selected cluster (`selectedClusters[k]`: condensed-tree ids), in label order. */
export function exemplars(tree: CondensedTree, selectedClusters: Uint32Array): Uint32Array[] {
  const n = tree.numPoints;
  const info = clusterTreeInfo(tree);
  const k = info.numClusters;
  // Point rows bucketed by their cluster, stable (row order kept).
  const start = new Uint32Array(k + 1);
  for (let r = 0; r < tree.parent.length; r++) if (tree.child[r] < n) start[tree.parent[r] - n + 1]++;
  for (let c = 0; c < k; c++) start[c + 1] += start[c];
  const fill = start.slice(0, k);
  const rowsOf = new Uint32Array(start[k]);
  for (let r = 0; r < tree.parent.length; r++) if (tree.child[r] < n) rowsOf[fill[tree.parent[r] - n]++] = r;

  const out: Uint32Array[] = [];
  const stack: number[] = [];
  for (const id of selectedClusters) {
    const found: number[] = [];
    stack.push(id - n);
    while (stack.length > 0) {
      const c = stack.pop()!;
      const f = info.firstChild[c];
      if (f >= 0) {
        stack.push(f + 1, f); // first child popped first: depth-first, left to right
        continue;
      }
      const maxLambda = info.maxLambda[c];
      for (let i = start[c]; i < start[c + 1]; i++) {
        const r = rowsOf[i];
        if (tree.lambda[r] === maxLambda) found.push(tree.child[r]);
      }
    }
    out.push(Uint32Array.from(found));
  }
  return out;
}
