/**
 * Labels, membership probabilities, GLOSH scores and cluster persistence in one sequential pass over the condensed
 * tree's rows: the same results as `labelPoints`, `membershipProbabilities`, `outlierScores` and
 * `clusterPersistence` (labels.ts, probabilities.ts, glosh.ts, persistence.ts: the semantics are documented there),
 * without gathering every point's row first. Each point has exactly one row (n ≥ 2), so its three outputs are
 * written once, where its row is read; the per-cluster tables the pass looks up are small and stay in cache. O(n).
 *
 * `test/cpu/cluster.condense.test.ts` checks it against those four functions.
 */
import type { ClusterTreeInfo } from './clusterTree.js';
import type { ExemplarCollector } from './exemplars.js';
import { subtreeMaxLambda } from './glosh.js';
import type { CondensedTree, ResolvedClusterOptions } from './types.js';

export interface PointResults {
  labels: Int32Array;
  probabilities: Float64Array;
  outlierScores: Float64Array;
  /** One per label. */
  persistence: Float64Array;
}

/**
 * Everything per point for the selected clusters (`selected`: cluster indices, ascending; `stability`: as EOM left
 * it, which persistence divides). Point rows are also offered to `exemplars` when given (same pass).
 */
export function pointResults(
  tree: CondensedTree,
  info: ClusterTreeInfo,
  selected: Int32Array,
  stability: Float64Array,
  options: ResolvedClusterOptions,
  exemplars?: ExemplarCollector,
): PointResults {
  const n = info.numPoints;
  const k = info.numClusters;
  const labels = new Int32Array(n);
  const probabilities = new Float64Array(n);
  const outlierScores = new Float64Array(n);
  const counts = new Float64Array(selected.length);
  const rows = tree.parent.length;
  if (rows === 0) labels.fill(-1); // n < 2: no point has a row

  // owner[c]: the label of the nearest selected cluster at or above c, −1 for none (labels.ts), with the root
  // as one of several selected clusters labelling nothing; then the label's largest λ (probabilities.ts).
  const labelOf = new Int32Array(k).fill(-1);
  for (let j = 0; j < selected.length; j++) labelOf[selected[j]] = j;
  const owner = new Int32Array(k);
  if (k > 0) owner[0] = labelOf[0];
  for (let c = 1; c < k; c++) owner[c] = labelOf[c] >= 0 ? labelOf[c] : owner[info.parent[c]];
  const rootOnly = selected.length === 1 && selected[0] === 0 && options.allowSingleCluster;
  if (!rootOnly) for (let c = 0; c < k; c++) if (owner[c] >= 0 && selected[owner[c]] === 0) owner[c] = -1;
  const labelMaxLambda = new Float64Array(selected.length);
  for (let j = 0; j < selected.length; j++) labelMaxLambda[j] = info.maxLambda[selected[j]];
  const epsilon = options.clusterSelectionEpsilon;
  const rootThreshold = epsilon !== 0 ? 1 / epsilon : k > 0 ? info.maxLambda[0] : 0;
  const deaths = subtreeMaxLambda(info);

  const { parent, child, lambda } = tree;
  const wanted = exemplars?.rankOf;
  for (let r = 0; r < rows; r++) {
    const x = child[r];
    if (x >= n) continue;
    const c = parent[r] - n;
    const lam = lambda[r];
    // Label: the root rule when the root is the single cluster, else the owner.
    const label = rootOnly ? (lam >= rootThreshold ? 0 : -1) : owner[c];
    labels[x] = label;
    if (label >= 0) {
      counts[label]++;
      const maxL = labelMaxLambda[label];
      probabilities[x] = maxL === 0 || !Number.isFinite(lam) ? 1 : Math.min(lam, maxL) / maxL;
    }
    // GLOSH against the largest λ in the cluster's whole subtree.
    const lamMax = deaths[c];
    if (lamMax === 0 || !Number.isFinite(lam)) outlierScores[x] = 0;
    else if (lamMax === Infinity) outlierScores[x] = 1;
    else outlierScores[x] = (lamMax - lam) / lamMax;
    // An exemplar: a point leaving a wanted leaf at the leaf's largest λ (the collector was built on info.maxLambda).
    if (wanted !== undefined && wanted[c] >= 0 && lam === info.maxLambda[c]) exemplars!.offer(c, x, lam);
  }

  // Persistence: the largest λ in the whole tree is the largest per-cluster one (every row has a parent cluster).
  let treeMaxLambda = -Infinity;
  if (rows > 0) for (let c = 0; c < k; c++) if (info.maxLambda[c] > treeMaxLambda) treeMaxLambda = info.maxLambda[c];
  const persistence = new Float64Array(selected.length);
  for (let j = 0; j < selected.length; j++) {
    const size = counts[j];
    if (treeMaxLambda === Infinity || treeMaxLambda === 0 || size === 0) persistence[j] = 1;
    else persistence[j] = stability[selected[j]] / (size * treeMaxLambda);
  }
  return { labels, probabilities, outlierScores, persistence };
}
