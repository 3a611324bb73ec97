/**
 * DBSCAN* from the single-linkage tree: the flat clustering of a horizontal cut at `cutDistance` (Campello, Moulavi
 * & Sander 2013, §3: DBSCAN* is DBSCAN without border points, and its clusters at ε are the single-linkage
 * components of the mutual-reachability graph below ε). Reproduces hdbscan 0.8.43's `labelling_at_cut`
 * (hdbscan/_hdbscan_tree.pyx, behind `HDBSCAN.dbscan_clustering` and `single_linkage_tree_.get_clusters`), which
 * scikit-learn's `HDBSCAN.dbscan_clustering` shares (sklearn/cluster/_hdbscan/_tree.pyx):
 *
 *   for each row i (node n + i) with distance < cut:  union(left, n + i); union(right, n + i)
 *   each point's cluster = its union-find root; components smaller than minClusterSize are noise (−1)
 *   labels 0, 1, … go to the remaining components in ascending order of their root's id (np.unique)
 *
 * Important! the root of a component, and so the numbering, is whatever hdbscan's union-by-rank picks (ties: the
 * first argument's root wins and gains a rank), not the component's top node; `union` below is that rule exactly.
 * Path compression does not move roots, so ours (path halving) may differ from hdbscan's recursion. O(n α(n)).
 */
import { InputError } from '../errors.js';
import { DEFAULT_MIN_CLUSTER_SIZE, checkLinkageShape } from './options.js';
import type { SingleLinkageTree } from './types.js';

export interface DbscanOptions {
  /** Merges strictly below this distance join (hdbscan's `cut_distance`): a finite number ≥ 0. */
  cutDistance: number;
  /** Smaller components are noise (hdbscan's `min_cluster_size` of `dbscan_clustering`): an integer ≥ 1, default 5. */
  minClusterSize?: number;
}

/**
 * DBSCAN* labels of the n points under `singleLinkage` (scipy rows, as `hdbscan()` and `clusterFromMst` return it)
 * cut at `cutDistance`: −1 for noise, else 0 … k − 1 numbered as hdbscan's `dbscan_clustering` numbers them.
 *
 * @throws InputError for a malformed tree or options, naming the value.
 */
export function dbscanClustering(singleLinkage: SingleLinkageTree, n: number, options: DbscanOptions): Int32Array {
  checkLinkageShape(singleLinkage, n);
  if (options === null || typeof options !== 'object') {
    throw new InputError(`Expected an options object with { cutDistance }, got ${String(options)}.`);
  }
  const { cutDistance: cut, minClusterSize: mcs = DEFAULT_MIN_CLUSTER_SIZE } = options;
  if (typeof cut !== 'number' || !Number.isFinite(cut) || cut < 0) {
    throw new InputError(`Expected cutDistance to be a finite number ≥ 0, got ${String(cut)}.`);
  }
  if (typeof mcs !== 'number' || !Number.isInteger(mcs) || mcs < 1) {
    throw new InputError(`Expected minClusterSize to be an integer ≥ 1, got ${String(mcs)}.`);
  }
  if (n === 0) return new Int32Array(0);
  const { left, right, distance } = singleLinkage;
  const nodes = 2 * n - 1;
  // hdbscan's TreeUnionFind over points and merge nodes: parent and rank.
  const parent = new Int32Array(nodes);
  for (let x = 0; x < nodes; x++) parent[x] = x;
  const rank = new Uint8Array(nodes); // ≤ log2(nodes) < 32
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  const union = (x: number, y: number): void => {
    const xr = find(x);
    const yr = find(y);
    if (rank[xr] < rank[yr]) parent[xr] = yr;
    else if (rank[xr] > rank[yr]) parent[yr] = xr;
    else {
      parent[yr] = xr;
      rank[xr]++;
    }
  };
  for (let i = 0; i < n - 1; i++) {
    const node = n + i;
    if (left[i] >= node || right[i] >= node) {
      throw new InputError(
        `Expected row ${i} of the single-linkage tree to merge nodes below ${node}, got (${left[i]}, ${right[i]}).`,
      );
    }
    // Rows are in ascending distance, but the test is per row, as hdbscan's (NaN never joins).
    if (distance[i] < cut) {
      union(left[i], node);
      union(right[i], node);
    }
  }
  const labels = new Int32Array(n);
  const size = new Int32Array(nodes);
  for (let p = 0; p < n; p++) {
    const r = find(p);
    labels[p] = r;
    size[r]++;
  }
  // Labels in ascending root id (np.unique of the roots); a component below minClusterSize is noise.
  const label = new Int32Array(nodes).fill(-1);
  let next = 0;
  for (let r = 0; r < nodes; r++) if (size[r] >= mcs) label[r] = next++;
  for (let p = 0; p < n; p++) labels[p] = label[labels[p]];
  return labels;
}
