/**
 * Membership probabilities, as hdbscan's `get_probabilities`: a clustered point's λ (where it leaves the tree),
 * capped at its selected cluster's largest λ and divided by it. The largest λ is over the rows leaving that cluster
 * itself (hdbscan's `max_lambdas`), not its subtree. 1 where that maximum is 0 or the point's λ is ∞
 * (duplicates); 0 for noise. O(rows).
 */
import type { ClusterTreeInfo } from './clusterTree.js';
import type { CondensedTree } from './types.js';

/** Probability of each point in its cluster (float64). */
export function membershipProbabilities(
  tree: CondensedTree,
  info: ClusterTreeInfo,
  selected: Int32Array,
  labels: Int32Array,
): Float64Array {
  const n = tree.numPoints;
  const out = new Float64Array(n);
  for (let r = 0; r < tree.parent.length; r++) {
    const x = tree.child[r];
    if (x >= n) continue;
    const label = labels[x];
    if (label < 0) continue;
    const maxLambda = info.maxLambda[selected[label]];
    const lam = tree.lambda[r];
    if (maxLambda === 0 || !Number.isFinite(lam)) out[x] = 1;
    else out[x] = Math.min(lam, maxLambda) / maxLambda;
  }
  return out;
}
