/**
 * Test-only oracles for the clustering layer, written from the definitions and independently of src/cluster's
 * algorithms (they share only its data types):
 * - single linkage: Kruskal over the MST edges sorted here by the canonical key (weight, min, max) (DESIGN.md,
 *   "HDBSCAN* semantics"), with a textbook union-find, in scipy's linkage layout;
 * - the condensed tree: top-down on the MST itself, no dendrogram. A cluster's points are split by removing the
 *   largest edge among them (largest in the canonical order, so of tied weights the one that merged last — exactly
 *   the binary split hdbscan's dendrogram makes there) and classified as hdbscan's `condense_tree` does (Campello,
 *   Moulavi & Sander 2013, runts after Stuetzle): both sides ≥ minClusterSize → two new clusters; one side smaller
 *   → its points fall out at that λ and the cluster goes on as the other side; both smaller → all points fall out.
 *   λ = 1/d, +∞ for d = 0 (hdbscan's `INFTY` for `d > 0` false). Rows and cluster ids follow hdbscan's order: the
 *   splits are processed first in, first out from the root (its breadth-first walk of the dendrogram), a runt's
 *   points in the breadth-first order of its own splits;
 * - stability and the per-cluster facts from their definitions, over the oracle's own rows;
 * - exemplars as hdbscan's `PredictionData` defines them (leaf clusters depth-first, first child first; in each,
 *   the points leaving it at its largest λ, in row order).
 * `test/cpu/cluster.oracle.test.ts` checks these against hdbscan 0.8.43's golden outputs; then
 * `test/cpu/cluster.condense.test.ts` checks the fast code against them on seeded random trees.
 * Quadratic in the worst case (paths, stars): meant for n up to a few thousand (single linkage: any n).
 */
import type { CondensedTree, MstEdges, SingleLinkageTree } from '../../src/cluster/types.js';
import { PlainUnionFind } from './unionfind.js';

/**
 * Compares two edges by the canonical key (weight, min endpoint, max endpoint). −0 sorts before +0, as the
 * order-preserving u32 map of DESIGN.md does.
 */
function compareCanonical(wa: number, ua: number, va: number, wb: number, ub: number, vb: number): number {
  if (wa !== wb) return wa < wb ? -1 : 1;
  if (wa === 0 && Object.is(wa, -0) !== Object.is(wb, -0)) return Object.is(wa, -0) ? -1 : 1;
  const a0 = Math.min(ua, va);
  const b0 = Math.min(ub, vb);
  if (a0 !== b0) return a0 - b0;
  return Math.max(ua, va) - Math.max(ub, vb);
}

/** Edge indices of `mst` in canonical order. */
function canonicalOrder(mst: MstEdges): number[] {
  const { sources, targets, weights } = mst;
  const order = Array.from({ length: sources.length }, (_, i) => i);
  order.sort((a, b) => compareCanonical(weights[a], sources[a], targets[a], weights[b], sources[b], targets[b]));
  return order;
}

/**
 * Single linkage in scipy's layout: edges in canonical order; row i joins the component of the edge's smaller
 * endpoint (`left`) and that of its larger one (`right`) at the edge's weight into node n + i of `size` points.
 */
export function oracleSingleLinkage(mst: MstEdges, n: number): SingleLinkageTree {
  const m = n === 0 ? 0 : n - 1;
  if (mst.sources.length !== m) throw new Error(`oracle: expected ${m} edges, got ${mst.sources.length}`);
  const left = new Uint32Array(m);
  const right = new Uint32Array(m);
  const distance = new Float64Array(m);
  const size = new Uint32Array(m);
  // Union-find; a root knows its component's dendrogram node.
  const uf = new PlainUnionFind(n);
  const node = Array.from({ length: n }, (_, i) => i);
  canonicalOrder(mst).forEach((e, i) => {
    const u = Math.min(mst.sources[e], mst.targets[e]);
    const v = Math.max(mst.sources[e], mst.targets[e]);
    const a = uf.find(u);
    const b = uf.find(v);
    if (a === b) throw new Error(`oracle: edge (${u}, ${v}) closes a cycle`);
    left[i] = node[a];
    right[i] = node[b];
    distance[i] = mst.weights[e];
    size[i] = uf.size[a] + uf.size[b];
    node[uf.unionRoots(a, b)] = n + i;
  });
  return { left, right, distance, size };
}

/** The condensed tree with what the definitions give per cluster (index k = id − n). */
export interface OracleCondensed {
  tree: CondensedTree;
  /** Parent cluster index, −1 for the root. */
  parent: Int32Array;
  /** λ of the row that creates the cluster; 0 for the root. */
  birth: Float64Array;
  /** Points of the cluster. */
  size: Uint32Array;
  /** Smallest child cluster index, −1 for a leaf. */
  firstChild: Int32Array;
  /** Largest λ of the rows leaving the cluster; 0 if none. */
  maxLambda: Float64Array;
  /** Σ over the rows leaving the cluster of (λ − birth) · childSize, in row order (IEEE: ∞ − ∞ = NaN). */
  stability: Float64Array;
}

/** The MST as an adjacency list with a "removed" flag per edge and each edge's canonical rank. */
class SplittableTree {
  private readonly adjacency: number[][];
  private readonly rank: Int32Array;
  private readonly removed: Uint8Array;
  private readonly seen: Int32Array;
  private stamp = 0;

  constructor(
    private readonly mst: MstEdges,
    n: number,
  ) {
    this.adjacency = Array.from({ length: n }, () => []);
    for (let e = 0; e < mst.sources.length; e++) {
      this.adjacency[mst.sources[e]].push(e);
      this.adjacency[mst.targets[e]].push(e);
    }
    this.rank = new Int32Array(mst.sources.length);
    canonicalOrder(mst).forEach((e, r) => (this.rank[e] = r));
    this.removed = new Uint8Array(mst.sources.length);
    this.seen = new Int32Array(n);
  }

  /**
   * Removes the canonically largest edge inside the connected point set `points` (≥ 2 points) and returns both
   * sides: `left` holds the edge's smaller endpoint, `right` its larger one.
   */
  split(points: number[]): { left: number[]; right: number[]; distance: number } {
    const { adjacency, rank, removed, mst } = this;
    let top = -1;
    for (const x of points) {
      for (const e of adjacency[x]) if (!removed[e] && (top < 0 || rank[e] > rank[top])) top = e;
    }
    removed[top] = 1;
    const u = Math.min(mst.sources[top], mst.targets[top]);
    // The side of u: a breadth-first search over the edges not removed.
    const mark = ++this.stamp;
    const left = [u];
    this.seen[u] = mark;
    for (let h = 0; h < left.length; h++) {
      for (const e of adjacency[left[h]]) {
        if (removed[e]) continue;
        const y = mst.sources[e] === left[h] ? mst.targets[e] : mst.sources[e];
        if (this.seen[y] !== mark) {
          this.seen[y] = mark;
          left.push(y);
        }
      }
    }
    const right = points.filter((x) => this.seen[x] !== mark);
    if (left.length + right.length !== points.length) throw new Error('oracle: the point set was not connected');
    return { left, right, distance: mst.weights[top] };
  }
}

/** hdbscan's condensed tree of the MST of n points, top-down from the definition (see the file comment). */
export function oracleCondense(mst: MstEdges, n: number, minClusterSize: number): OracleCondensed {
  if (mst.sources.length !== Math.max(0, n - 1)) throw new Error('oracle: expected n − 1 edges');
  const tree = new SplittableTree(mst, n);
  const rows: { parent: number; child: number; lambda: number; childSize: number }[] = [];
  const clusters: { parent: number; birth: number; size: number }[] = [];
  if (n > 0) clusters.push({ parent: -1, birth: 0, size: n });

  /** All points of a runt leave `cluster` at `lambda`, in the breadth-first order of the runt's own splits. */
  const fallOut = (points: number[], cluster: number, lambda: number): void => {
    const queue = [points];
    for (let h = 0; h < queue.length; h++) {
      if (queue[h].length === 1) {
        rows.push({ parent: cluster, child: queue[h][0], lambda, childSize: 1 });
      } else {
        const { left, right } = tree.split(queue[h]);
        queue.push(left, right);
      }
    }
  };

  // First in, first out from the root: (points, cluster id they belong to).
  const queue: { points: number[]; cluster: number }[] = [];
  if (n >= 2) queue.push({ points: Array.from({ length: n }, (_, i) => i), cluster: n });
  for (let h = 0; h < queue.length; h++) {
    const { points, cluster } = queue[h];
    const { left, right, distance } = tree.split(points);
    const lambda = distance > 0 ? 1 / distance : Infinity;
    const bigLeft = left.length >= minClusterSize;
    const bigRight = right.length >= minClusterSize;
    if (bigLeft && bigRight) {
      for (const side of [left, right]) {
        const id = n + clusters.length;
        clusters.push({ parent: cluster - n, birth: lambda, size: side.length });
        rows.push({ parent: cluster, child: id, lambda, childSize: side.length });
        if (side.length >= 2) queue.push({ points: side, cluster: id });
      }
    } else if (bigLeft) {
      fallOut(right, cluster, lambda);
      queue.push({ points: left, cluster });
    } else if (bigRight) {
      fallOut(left, cluster, lambda);
      queue.push({ points: right, cluster });
    } else {
      fallOut(left, cluster, lambda);
      fallOut(right, cluster, lambda);
    }
  }

  const k = clusters.length;
  const out: OracleCondensed = {
    tree: {
      parent: Uint32Array.from(rows, (r) => r.parent),
      child: Uint32Array.from(rows, (r) => r.child),
      lambda: Float64Array.from(rows, (r) => r.lambda),
      childSize: Uint32Array.from(rows, (r) => r.childSize),
      numPoints: n,
      numClusters: k,
    },
    parent: Int32Array.from(clusters, (c) => c.parent),
    birth: Float64Array.from(clusters, (c) => c.birth),
    size: Uint32Array.from(clusters, (c) => c.size),
    firstChild: new Int32Array(k).fill(-1),
    maxLambda: new Float64Array(k),
    stability: new Float64Array(k),
  };
  for (const r of rows) {
    const p = r.parent - n;
    if (r.child >= n && out.firstChild[p] < 0) out.firstChild[p] = r.child - n;
    out.maxLambda[p] = Math.max(out.maxLambda[p], r.lambda);
    out.stability[p] += (r.lambda - out.birth[p]) * r.childSize;
  }
  return out;
}

/**
 * hdbscan's exemplars (`prediction.py`, `PredictionData`): for each selected cluster id, its leaf clusters by
 * `recurse_leaf_dfs` (children in row order, depth first), and for each leaf the points of the rows leaving it at
 * its largest λ, in row order.
 */
export function oracleExemplars(tree: CondensedTree, selectedClusters: ArrayLike<number>): Uint32Array[] {
  const rowsOf = new Map<number, number[]>();
  for (let r = 0; r < tree.parent.length; r++) {
    const list = rowsOf.get(tree.parent[r]) ?? [];
    list.push(r);
    rowsOf.set(tree.parent[r], list);
  }
  const leaves = (c: number): number[] => {
    const children = (rowsOf.get(c) ?? []).filter((r) => tree.childSize[r] > 1).map((r) => tree.child[r]);
    return children.length === 0 ? [c] : children.flatMap(leaves);
  };
  return Array.from(selectedClusters, (id) => {
    const found: number[] = [];
    for (const leaf of leaves(id)) {
      const rows = rowsOf.get(leaf) ?? [];
      const maxLambda = rows.reduce((max, r) => Math.max(max, tree.lambda[r]), -Infinity);
      for (const r of rows) if (tree.lambda[r] === maxLambda) found.push(tree.child[r]);
    }
    return Uint32Array.from(found);
  });
}
