/**
 * Flat cluster selection from the condensed tree, as hdbscan's `get_clusters` (`_hdbscan_tree.pyx`, 0.8.4x):
 * excess of mass (Campello, Moulavi & Sander 2013, section 3.3; 2015 TKDD, section 5) or leaves, then
 * `cluster_selection_epsilon` (Malzer & Baum 2020, "A hybrid approach to hierarchical density-based cluster
 * selection"), `allow_single_cluster` and `max_cluster_size`.
 *
 * What we keep from hdbscan exactly:
 * - EOM walks clusters by descending id (bottom-up); the root takes part only with allowSingleCluster. A cluster is
 *   dropped when its children's summed stability is strictly greater (ties keep the parent) or it holds more than
 *   maxClusterSize points; then it inherits that sum. Important! hdbscan holds the sum in a C `float`
 *   (`cdef float subtree_stability`), so the sum is rounded to float32 before the comparison and before it is
 *   stored: `Math.fround` below, or near-ties select differently.
 * - Keeping a cluster deselects its whole subtree; here that is one top-down pass at the end (a cluster is selected
 *   iff it was kept and no ancestor was), not a BFS per kept cluster.
 * - epsilon: each candidate born below distance ε climbs to the first ancestor born above ε (stopping under the
 *   root unless allowSingleCluster), memoised so every cluster is climbed once.
 * What we do differently: nothing in the results; hdbscan's Python costs O(clusters²), this is O(clusters).
 */
import type { ClusterTreeInfo } from './clusterTree.js';
import type { ResolvedClusterOptions } from './types.js';

export interface Selection {
  /** Selected cluster indices (id − n), ascending: label k is `selected[k]`. */
  selected: Int32Array;
  /**
   * Stability after EOM's bottom-up pass (dropped clusters hold their children's float32-rounded sum), which is
   * what hdbscan's cluster persistence divides. Equal to the input for 'leaf'.
   */
  stability: Float64Array;
}

/** Excess of mass: which clusters are kept, and the stabilities EOM leaves behind. */
function excessOfMass(
  info: ClusterTreeInfo,
  stability: Float64Array,
  options: ResolvedClusterOptions,
): { chosen: Uint8Array; stability: Float64Array } {
  const k = info.numClusters;
  const { firstChild, size } = info;
  const stab = Float64Array.from(stability);
  const maxSize = options.maxClusterSize > 0 ? options.maxClusterSize : info.numPoints + 1;
  const kept = new Uint8Array(k);
  const last = options.allowSingleCluster ? 0 : 1;
  for (let c = k - 1; c >= last; c--) {
    const f = firstChild[c];
    const subtree = f < 0 ? 0 : Math.fround(stab[f] + stab[f + 1]);
    // hdbscan sizes the root as the sum of its child clusters' sizes (0 when it has none).
    const clusterSize = c === 0 ? (f < 0 ? 0 : size[f] + size[f + 1]) : size[c];
    if (subtree > stab[c] || clusterSize > maxSize) {
      stab[c] = subtree;
    } else {
      kept[c] = 1;
    }
  }
  // Selected = kept with no kept ancestor (a kept cluster deselected its subtree).
  const chosen = new Uint8Array(k);
  const blocked = new Uint8Array(k);
  for (let c = 0; c < k; c++) {
    const p = info.parent[c];
    if (p >= 0) blocked[c] = blocked[p] | kept[p];
    chosen[c] = kept[c] & (blocked[c] ^ 1);
  }
  return { chosen, stability: stab };
}

/** Leaves of the cluster tree (none when the root never splits). */
function leaves(info: ClusterTreeInfo): Uint8Array {
  const chosen = new Uint8Array(info.numClusters);
  if (info.numClusters <= 1) return chosen;
  for (let c = 1; c < info.numClusters; c++) if (info.firstChild[c] < 0) chosen[c] = 1;
  return chosen;
}

/** hdbscan's `epsilon_search` over the candidate set, in place. */
function epsilonSearch(
  info: ClusterTreeInfo,
  candidates: Uint8Array,
  epsilon: number,
  allowSingle: boolean,
): Uint8Array {
  const k = info.numClusters;
  const { parent, birth } = info;
  const out = new Uint8Array(k);
  // climb[c] for a non-root c: the cluster returned when the climb arrives at c as a parent (memoised; −1 unknown).
  const climb = new Int32Array(k).fill(-1);
  const path: number[] = [];
  // traverse_upwards(c): c's parent is the root → root (allowSingle) or c itself; else climbFrom(parent).
  const traverse = (c: number): number => {
    const p = parent[c];
    if (p === 0) return allowSingle ? 0 : c;
    return climbFrom(p);
  };
  const climbFrom = (start: number): number => {
    let c = start;
    let result = -1;
    while (result < 0) {
      if (climb[c] >= 0) {
        result = climb[c];
        break;
      }
      path.push(c);
      if (1 / birth[c] > epsilon) {
        result = c;
      } else if (parent[c] === 0) {
        result = allowSingle ? 0 : c;
      } else {
        c = parent[c];
      }
    }
    while (path.length > 0) climb[path.pop()!] = result;
    return result;
  };
  for (let c = 0; c < k; c++) {
    if (!candidates[c]) continue;
    // A candidate born below ε (1/λ < ε) is merged upwards; the rest stay. (The root is never a candidate here.)
    if (1 / birth[c] < epsilon) out[traverse(c)] = 1;
    else out[c] = 1;
  }
  return out;
}

function toIndices(chosen: Uint8Array): Int32Array {
  let count = 0;
  for (let c = 0; c < chosen.length; c++) count += chosen[c];
  const out = new Int32Array(count);
  let j = 0;
  for (let c = 0; c < chosen.length; c++) if (chosen[c]) out[j++] = c;
  return out;
}

/** Selects the flat clusters. O(clusters). */
export function selectClusters(
  info: ClusterTreeInfo,
  stability: Float64Array,
  options: ResolvedClusterOptions,
): Selection {
  const k = info.numClusters;
  const epsilon = options.clusterSelectionEpsilon;
  const allowSingle = options.allowSingleCluster;
  if (k === 0) return { selected: new Int32Array(0), stability: Float64Array.from(stability) };
  if (options.clusterSelectionMethod === 'eom') {
    const eom = excessOfMass(info, stability, options);
    let chosen = eom.chosen;
    if (epsilon !== 0 && k > 1) {
      const onlyRoot = chosen[0] === 1; // the root can only be chosen alone
      chosen = onlyRoot ? chosen : epsilonSearch(info, chosen, epsilon, allowSingle);
    }
    return { selected: toIndices(chosen), stability: eom.stability };
  }
  let chosen = leaves(info);
  if (epsilon !== 0) chosen = epsilonSearch(info, chosen, epsilon, allowSingle);
  let any = false;
  for (let c = 0; c < k && !any; c++) any = chosen[c] === 1;
  if (!any && allowSingle) {
    chosen = new Uint8Array(k);
    chosen[0] = 1;
  }
  return { selected: toIndices(chosen), stability: Float64Array.from(stability) };
}
