/**
 * Membership probabilities, as hdbscan's `get_probabilities`: a clustered point's λ (where it leaves the tree),
 * capped at its selected cluster's largest λ and divided by it. The largest λ is over the rows leaving that cluster
 * itself (hdbscan's `max_lambdas`), not its subtree. 1 where that maximum is 0 or the point's λ is ∞
 * (duplicates); 0 for noise. O(n), sequential over the points.
 */
import type { ClusterTreeInfo, PointRows } from './clusterTree.js';

/** Probability of each point in its cluster (float64). */
export function membershipProbabilities(
  rows: PointRows,
  info: ClusterTreeInfo,
  selected: Int32Array,
  labels: Int32Array,
): Float64Array {
  const n = info.numPoints;
  const out = new Float64Array(n);
  for (let x = 0; x < n; x++) {
    const label = labels[x];
    if (label < 0) continue;
    const maxLambda = info.maxLambda[selected[label]];
    const lam = rows.lambda[x];
    if (maxLambda === 0 || !Number.isFinite(lam)) out[x] = 1;
    else out[x] = Math.min(lam, maxLambda) / maxLambda;
  }
  return out;
}
