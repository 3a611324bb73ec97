/**
 * The data shapes of the clustering layer: everything after the MST, as flat typed arrays (DESIGN.md, "Data at the
 * boundary"). Node ids follow scipy and hdbscan: points are 0 … n − 1; single-linkage merges are n … 2n − 2;
 * condensed-tree clusters are n (the root) … n + numClusters − 1.
 */

/** A spanning tree of n points: n − 1 edges as parallel arrays. Any edge order; endpoints in either order. */
export interface MstEdges {
  /** One endpoint of each edge (< n). */
  sources: Uint32Array;
  /** The other endpoint of each edge (< n, ≠ the source). */
  targets: Uint32Array;
  /**
   * Edge weights (Euclidean or mutual-reachability distances), ≥ 0, +∞ allowed. Float32Array is what the GPU
   * produces; Float64Array is accepted too (exact oracles, the golden files).
   */
  weights: Float32Array | Float64Array;
}

/**
 * The single-linkage dendrogram in scipy's linkage layout, as parallel arrays: row i merges `left[i]` and
 * `right[i]` at `distance[i]` into the new node n + i holding `size[i]` points. Rows follow the canonical edge
 * order (weight, min endpoint, max endpoint); `left[i]` is the node holding the edge's smaller endpoint.
 * scipy's `Z[i] = [left[i], right[i], distance[i], size[i]]`.
 */
export interface SingleLinkageTree {
  /** n − 1 node ids (points < n, merges ≥ n): the component of the edge's smaller endpoint. */
  left: Uint32Array;
  /** n − 1 node ids: the component of the edge's larger endpoint. */
  right: Uint32Array;
  /** n − 1 merge distances (the MST weights, ascending). */
  distance: Float64Array;
  /** n − 1 sizes: points under node n + i. */
  size: Uint32Array;
}

/**
 * hdbscan's condensed tree as parallel arrays, rows in hdbscan's order (breadth-first from the root). A row is a
 * point leaving cluster `parent` at `lambda` (childSize 1) or a cluster `child` splitting off `parent`
 * (childSize ≥ minClusterSize). Cluster ids run from n (the root) to n + numClusters − 1 and increase away from
 * the root, so a descending id order is a bottom-up order. λ = 1/distance, +∞ for distance 0.
 */
export interface CondensedTree {
  /** Cluster id (≥ n) of each row's parent. */
  parent: Uint32Array;
  /** A point id (< n) or a cluster id (> n). */
  child: Uint32Array;
  /** λ = 1/d at which the child leaves the parent; +∞ where d = 0 (duplicate points). */
  lambda: Float64Array;
  /** 1 for a point; the number of points of a child cluster. */
  childSize: Uint32Array;
  /** n: the number of points, and the id of the root cluster. */
  numPoints: number;
  /** The number of clusters, root included (ids n … n + numClusters − 1). */
  numClusters: number;
}

/** How flat clusters are extracted from the condensed tree (hdbscan's parameters of the same names). */
export interface ClusterOptions {
  /**
   * Smallest cluster, ≥ 2: smaller splits are runts whose points fall out of their parent (hdbscan). Default 5, as
   * hdbscan's and scikit-learn's `min_cluster_size`.
   */
  minClusterSize?: number;
  /** `'eom'` (excess of mass, default) or `'leaf'`. */
  clusterSelectionMethod?: 'eom' | 'leaf';
  /** Distance below which clusters are not split further (hdbscan's `cluster_selection_epsilon`); default 0. */
  clusterSelectionEpsilon?: number;
  /** Whether the root may be the one selected cluster; default false. */
  allowSingleCluster?: boolean;
  /** EOM never selects a cluster larger than this; 0 (default) or +∞ means no limit. Ignored by 'leaf'. */
  maxClusterSize?: number;
}

/** The options with defaults filled in and checked. */
export interface ResolvedClusterOptions {
  minClusterSize: number;
  clusterSelectionMethod: 'eom' | 'leaf';
  clusterSelectionEpsilon: number;
  allowSingleCluster: boolean;
  /** 0 means no limit. */
  maxClusterSize: number;
}

/** Milliseconds spent in each phase of `clusterFromMst` (wall time on the CPU). */
export interface ClusterTimings {
  sort: number;
  linkage: number;
  condense: number;
  select: number;
  label: number;
  total: number;
  /** Parts of `condense` where measured (hdbscan()'s threaded path): its layout, level sweep and runts' points. */
  condenseParts?: { layout: number; sweep: number; runts: number };
}

/** Everything `clusterFromMst` computes. Named fields, never tuples. */
export interface ClusterResult {
  /** Cluster label of each point, −1 for noise; labels number the selected clusters in condensed-tree id order. */
  labels: Int32Array;
  /** hdbscan's membership strength of each point in its cluster (0 for noise), in float64. */
  probabilities: Float64Array;
  /** GLOSH outlier score of each point (hdbscan ≥ 0.8.42: max λ over the parent's whole subtree), float64. */
  outlierScores: Float64Array;
  /** The MST in the canonical order (weight, min, max) with sources < targets. May share the input's arrays. */
  mst: MstEdges;
  /** The single-linkage dendrogram (scipy layout). */
  singleLinkage: SingleLinkageTree;
  /** The condensed tree. */
  condensedTree: CondensedTree;
  /** Condensed-tree id (≥ n) of the cluster behind each label: `selectedClusters[label]`. */
  selectedClusters: Uint32Array;
  /** hdbscan's `cluster_persistence_` for each label: stability / (size · max λ), or 1 where that is undefined. */
  clusterPersistence: Float64Array;
  /** Excess-of-mass stability of every condensed-tree cluster, index id − n, before selection. */
  stability: Float64Array;
  /** The options used, defaults filled in. */
  options: ResolvedClusterOptions;
  /** Phase timings. */
  timings: ClusterTimings;
}
