/**
 * GLOSH outlier scores: Campello, Moulavi, Zimek & Sander 2015, "Hierarchical density estimates for data
 * clustering, visualization, and outlier detection" (ACM TKDD 10(1)), eq. 8: score(x) = 1 − λ(x) / λ_max(x), where
 * λ(x) is where x leaves its cluster C and λ_max(x) the largest λ at which C *or any of its subclusters* still
 * exists. hdbscan before 0.8.42 took only C's own rows; 0.8.42 (PR #697, issue #628) propagates the maximum up the
 * subtree, and so do we: one bottom-up pass over the clusters (descending index is bottom-up), then one
 * sequential pass over the points. O(n).
 *
 * Infinities, explicitly: λ(x) = ∞ (a duplicate leaving at distance 0) scores 0, as does λ_max = 0. Where
 * λ_max = ∞ but λ(x) is finite, (∞ − λ)/∞ would be NaN in hdbscan's arithmetic; we return the limit, 1.
 */
import type { ClusterTreeInfo, PointRows } from './clusterTree.js';

/** Largest λ over each cluster's whole subtree. */
export function subtreeMaxLambda(info: ClusterTreeInfo): Float64Array {
  const deaths = Float64Array.from(info.maxLambda);
  for (let c = info.numClusters - 1; c >= 1; c--) {
    const p = info.parent[c];
    if (deaths[c] > deaths[p]) deaths[p] = deaths[c];
  }
  return deaths;
}

/** GLOSH score of each point (float64, in [0, 1]). */
export function outlierScores(rows: PointRows, info: ClusterTreeInfo): Float64Array {
  const n = info.numPoints;
  const out = new Float64Array(n);
  const deaths = subtreeMaxLambda(info);
  for (let x = 0; x < n; x++) {
    const c = rows.cluster[x];
    if (c < 0) continue;
    const lamMax = deaths[c];
    const lam = rows.lambda[x];
    if (lamMax === 0 || !Number.isFinite(lam)) out[x] = 0;
    else if (lamMax === Infinity) out[x] = 1;
    else out[x] = (lamMax - lam) / lamMax;
  }
  return out;
}
