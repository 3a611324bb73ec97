/**
 * Point labels from the selected clusters, as hdbscan's `do_labelling`: a point belongs to the nearest selected
 * cluster above the cluster it falls out of; points under no selected cluster are noise (−1). hdbscan finds that
 * cluster with a union-find over all rows; one top-down pass over the clusters gives the same owner, and one
 * sequential pass over the points (their rows gathered by `pointRows`) the labels: O(n).
 *
 * The root rule (allowSingleCluster with the root as the only selected cluster): a point that leaves the root is
 * labelled only if it leaves at λ ≥ 1/ε when ε ≠ 0, else at λ ≥ the root's largest λ (hdbscan 0.8.4x): points that
 * fall out before the root's end are noise.
 *
 * Different from hdbscan: where the root is a point's owner but is not the single selected cluster, hdbscan looks
 * the root up in its label map (a KeyError when allowSingleCluster is on and exactly one other cluster is selected,
 * which maxClusterSize or epsilon can cause); such points are noise here.
 */
import type { ClusterTreeInfo, PointRows } from './clusterTree.js';
import type { ResolvedClusterOptions } from './types.js';

/** Labels of the n points; label k is the cluster `selected[k]`. O(n). */
export function labelPoints(
  rows: PointRows,
  info: ClusterTreeInfo,
  selected: Int32Array,
  options: ResolvedClusterOptions,
): Int32Array {
  const n = info.numPoints;
  const k = info.numClusters;
  const labels = new Int32Array(n).fill(-1);
  if (k === 0 || selected.length === 0) return labels;
  const labelOf = new Int32Array(k).fill(-1);
  for (let j = 0; j < selected.length; j++) labelOf[selected[j]] = j;
  // owner[c]: the label of the nearest selected cluster at or above c (−1 when there is none).
  const owner = new Int32Array(k);
  owner[0] = labelOf[0];
  for (let c = 1; c < k; c++) owner[c] = labelOf[c] >= 0 ? labelOf[c] : owner[info.parent[c]];

  const rootOnly = selected.length === 1 && selected[0] === 0 && options.allowSingleCluster;
  const epsilon = options.clusterSelectionEpsilon;
  const rootThreshold = epsilon !== 0 ? 1 / epsilon : info.maxLambda[0];
  for (let x = 0; x < n; x++) {
    const c = rows.cluster[x];
    if (c < 0) continue;
    if (rootOnly) {
      // Every point's owner is the root; the root rule decides.
      labels[x] = rows.lambda[x] >= rootThreshold ? 0 : -1;
    } else {
      const o = owner[c];
      // The root as one of several selected clusters labels nothing (hdbscan: noise).
      if (o >= 0 && selected[o] !== 0) labels[x] = o;
    }
  }
  return labels;
}
