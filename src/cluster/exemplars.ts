/**
 * Exemplars, as hdbscan's `PredictionData` builds them (`prediction.py`): for each selected cluster, its leaf
 * clusters in depth-first order (first child first), and in each leaf the points that leave it at its largest λ —
 * the cluster's densest core — in condensed-tree row order. hdbscan's own run lists the same points per cluster,
 * but within a leaf in its tree's row order, which follows its MST's endpoint order rather than the canonical
 * one; compare exemplars as sets. O(rows): two sequential passes over the rows (each cluster's largest λ and
 * first child; then the point rows of the wanted leaves at that λ), instead of hdbscan's boolean mask over the
 * whole tree per leaf.
 */
import type { CondensedTree } from './types.js';

/** Exemplar point indices of each selected cluster (`selectedClusters[k]`: condensed-tree ids), in label order. */
export function exemplars(tree: CondensedTree, selectedClusters: Uint32Array): Uint32Array[] {
  const n = tree.numPoints;
  const k = tree.numClusters;
  const { parent, child, lambda } = tree;
  const rows = parent.length;
  // Pass 1: each cluster's largest λ over its own rows (hdbscan's max_lambdas) and its first child cluster.
  const maxLambda = new Float64Array(k);
  const firstChild = new Int32Array(k).fill(-1);
  for (let r = 0; r < rows; r++) {
    const p = parent[r] - n;
    const lam = lambda[r];
    if (lam > maxLambda[p]) maxLambda[p] = lam;
    const c = child[r] - n;
    if (c >= 0 && (firstChild[p] < 0 || c < firstChild[p])) firstChild[p] = c;
  }
  // The leaves under each selected cluster, depth-first, first child first. A leaf gets a rank the first time
  // it is met (selected clusters may nest after epsilon, so a leaf can belong to several).
  const rankOf = new Int32Array(k).fill(-1);
  let ranks = 0;
  const leavesOfLabel: number[][] = [];
  const stack: number[] = [];
  for (const id of selectedClusters) {
    const leaves: number[] = [];
    stack.push(id - n);
    while (stack.length > 0) {
      const c = stack.pop()!;
      const f = firstChild[c];
      if (f >= 0) {
        stack.push(f + 1, f); // first child popped first: depth-first, left to right
        continue;
      }
      if (rankOf[c] < 0) rankOf[c] = ranks++;
      leaves.push(rankOf[c]);
    }
    leavesOfLabel.push(leaves);
  }
  // Pass 2: the point rows of the wanted leaves at their largest λ, in row order, with a count per leaf. The hit
  // arrays are sized for the worst case; only the pages actually written are ever touched.
  const hitPoint = new Uint32Array(n);
  const hitRank = new Uint32Array(n);
  const start = new Uint32Array(ranks + 1);
  let hits = 0;
  for (let r = 0; r < rows; r++) {
    const x = child[r];
    if (x >= n) continue;
    const p = parent[r] - n;
    const rank = rankOf[p];
    if (rank >= 0 && lambda[r] === maxLambda[p]) {
      hitPoint[hits] = x;
      hitRank[hits++] = rank;
      start[rank + 1]++;
    }
  }
  // Grouped by leaf, stable (row order kept within a leaf).
  for (let j = 0; j < ranks; j++) start[j + 1] += start[j];
  const fill = start.slice(0, ranks);
  const byLeaf = new Uint32Array(hits);
  for (let h = 0; h < hits; h++) byLeaf[fill[hitRank[h]]++] = hitPoint[h];
  return leavesOfLabel.map((leaves) => {
    let count = 0;
    for (const rank of leaves) count += start[rank + 1] - start[rank];
    const found = new Uint32Array(count);
    let j = 0;
    for (const rank of leaves) {
      found.set(byLeaf.subarray(start[rank], start[rank + 1]), j);
      j += start[rank + 1] - start[rank];
    }
    return found;
  });
}
