/**
 * Cluster persistence, hdbscan's `cluster_persistence_` (`get_stability_scores`): for label k, the selected
 * cluster's stability (as EOM left it) divided by (points labelled k · the largest λ in the whole tree); 1 where
 * that largest λ is ∞ or 0 or the cluster labels no point. O(n).
 *
 * A test oracle (issue 16 moved it here from src/cluster/): the library computes persistence in its fused pass,
 * src/cluster/pointResults.ts, which test/cpu/cluster.condense.test.ts checks against this.
 */
import type { CondensedTree } from '../../src/cluster/types.js';

/** One persistence per label. */
export function clusterPersistence(
  tree: CondensedTree,
  selected: Int32Array,
  stability: Float64Array,
  labels: Int32Array,
): Float64Array {
  const counts = new Float64Array(selected.length);
  for (let i = 0; i < labels.length; i++) if (labels[i] >= 0) counts[labels[i]]++;
  let maxLambda = -Infinity;
  for (let r = 0; r < tree.lambda.length; r++) if (tree.lambda[r] > maxLambda) maxLambda = tree.lambda[r];
  const out = new Float64Array(selected.length);
  for (let k = 0; k < selected.length; k++) {
    const size = counts[k];
    if (maxLambda === Infinity || maxLambda === 0 || size === 0) out[k] = 1;
    else out[k] = stability[selected[k]] / (size * maxLambda);
  }
  return out;
}
