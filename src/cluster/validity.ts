/**
 * hdbscan's `relative_validity_`: a fast approximation of DBCV (Moulavi, Jaskowiak, Campello, Zimek & Sander 2014,
 * "Density-Based Clustering Validation", SDM) computed on the mutual-reachability MST instead of all-points core
 * distances. A cluster's density sparseness is its longest internal MST edge; its density separation is its
 * shortest MST edge to another cluster (clusters with no such edge get 2 × the longest MST edge, or with one cluster
 * 2 × the shortest edge to noise); the score is Σ |C| · (sep − sparse) / max(sep, sparse) / n. Only useful to
 * compare clusterings of the same data. O(n).
 */
import type { MstEdges } from './types.js';

/** The relative validity of `labels` (−1 noise) given the mutual-reachability MST they came from. */
export function relativeValidity(mst: MstEdges, labels: Int32Array): number {
  let numClusters = 0;
  for (let i = 0; i < labels.length; i++) if (labels[i] + 1 > numClusters) numClusters = labels[i] + 1;
  const clusterSize = new Float64Array(numClusters);
  for (let i = 0; i < labels.length; i++) if (labels[i] >= 0) clusterSize[labels[i]]++;
  const total = labels.length;
  const sparseness = new Float64Array(numClusters);
  const separation = new Float64Array(numClusters).fill(Infinity);
  let maxDistance = 0;
  let minOutlierSeparation = Infinity;
  const { sources, targets, weights } = mst;
  for (let e = 0; e < weights.length; e++) {
    const a = labels[sources[e]];
    const b = labels[targets[e]];
    const length = weights[e];
    if (length > maxDistance) maxDistance = length;
    if (a === -1 && b === -1) continue;
    if (a === -1 || b === -1) {
      if (length < minOutlierSeparation) minOutlierSeparation = length;
      continue;
    }
    if (a === b) {
      if (length > sparseness[a]) sparseness[a] = length;
    } else {
      if (length < separation[a]) separation[a] = length;
      if (length < separation[b]) separation[b] = length;
    }
  }
  if (minOutlierSeparation === Infinity) minOutlierSeparation = maxDistance;
  const correction = 2 * (numClusters > 1 ? maxDistance : minOutlierSeparation);
  let score = 0;
  for (let c = 0; c < numClusters; c++) {
    const sep = separation[c] === Infinity ? correction : separation[c];
    const v = (sep - sparseness[c]) / Math.max(sep, sparseness[c]);
    score += (clusterSize[c] * v) / total;
  }
  return score;
}
