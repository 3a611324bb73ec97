/**
 * The condensed tree: hdbscan's `condense_tree` (scikit-learn-contrib/hdbscan `_hdbscan_tree.pyx`), after Campello,
 * Moulavi & Sander 2013, "Density-based clustering based on hierarchical density estimates" (PAKDD), section 3.2
 * (runt pruning after Stuetzle). Walking the dendrogram breadth-first from the root, a merge whose two sides both
 * hold ≥ minClusterSize points is a true split (two new clusters); a side with fewer points is a runt: its points
 * leave the current cluster at that merge's λ = 1/distance (+∞ at distance 0) and the other side carries on as the
 * same cluster.
 *
 * Rows come out in exactly hdbscan's order — the global breadth-first order of the merges, a runt's points in the
 * breadth-first order of its own subtree — because that order numbers the clusters. hdbscan lists every node and
 * skips the runts' nodes with a flag; here runts are never queued, which keeps the same relative order (a node's
 * place in a FIFO breadth-first walk depends only on its ancestors'). Every node is visited once: O(n).
 */
import type { CondensedTree, SingleLinkageTree } from './types.js';

/**
 * Condenses the dendrogram of n points. With n − 1 merges there are exactly n point rows plus two rows per true
 * split, so the arrays are allocated once at their final size.
 */
export function condenseTree(tree: SingleLinkageTree, n: number, minClusterSize: number): CondensedTree {
  if (n < 2) {
    return {
      parent: new Uint32Array(0),
      child: new Uint32Array(0),
      lambda: new Float64Array(0),
      childSize: new Uint32Array(0),
      numPoints: n,
      numClusters: n === 1 ? 1 : 0,
    };
  }
  const { left, right, distance, size } = tree;
  const m = n - 1;
  const sizeOf = (node: number): number => (node < n ? 1 : size[node - n]);
  let splits = 0;
  for (let i = 0; i < m; i++) {
    if (sizeOf(left[i]) >= minClusterSize && sizeOf(right[i]) >= minClusterSize) splits++;
  }
  const rows = n + 2 * splits;
  const parent = new Uint32Array(rows);
  const child = new Uint32Array(rows);
  const lambda = new Float64Array(rows);
  const childSize = new Uint32Array(rows);
  let row = 0;

  // Cluster id carried by each merge node that is not inside a runt (index node − n).
  const relabel = new Uint32Array(m);
  const queue = new Uint32Array(m);
  // A runt holds < minClusterSize points, so its subtree has < 2 · minClusterSize nodes.
  const runtQueue = new Uint32Array(Math.min(2 * minClusterSize, 2 * n));
  let head = 0;
  let tail = 0;
  const root = 2 * n - 2;
  relabel[root - n] = n;
  queue[tail++] = root;
  let nextLabel = n + 1;

  // Appends every point under `top` as leaving cluster `cluster` at `lam`, in breadth-first order.
  const emitRunt = (top: number, cluster: number, lam: number): void => {
    let h = 0;
    let t = 0;
    runtQueue[t++] = top;
    while (h < t) {
      const x = runtQueue[h++];
      if (x < n) {
        parent[row] = cluster;
        child[row] = x;
        lambda[row] = lam;
        childSize[row] = 1;
        row++;
      } else {
        runtQueue[t++] = left[x - n];
        runtQueue[t++] = right[x - n];
      }
    }
  };

  while (head < tail) {
    const node = queue[head++];
    const i = node - n;
    const l = left[i];
    const r = right[i];
    const d = distance[i];
    // Important! λ = ∞ for duplicates (d = 0), explicitly: hdbscan writes INFTY there.
    const lam = d > 0 ? 1 / d : Infinity;
    const lc = sizeOf(l);
    const rc = sizeOf(r);
    const cluster = relabel[i];
    if (lc >= minClusterSize && rc >= minClusterSize) {
      relabel[l - n] = nextLabel;
      parent[row] = cluster;
      child[row] = nextLabel++;
      lambda[row] = lam;
      childSize[row] = lc;
      row++;
      relabel[r - n] = nextLabel;
      parent[row] = cluster;
      child[row] = nextLabel++;
      lambda[row] = lam;
      childSize[row] = rc;
      row++;
      queue[tail++] = l;
      queue[tail++] = r;
    } else if (lc < minClusterSize && rc < minClusterSize) {
      emitRunt(l, cluster, lam);
      emitRunt(r, cluster, lam);
    } else if (lc < minClusterSize) {
      relabel[r - n] = cluster;
      emitRunt(l, cluster, lam);
      queue[tail++] = r;
    } else {
      relabel[l - n] = cluster;
      emitRunt(r, cluster, lam);
      queue[tail++] = l;
    }
  }
  return { parent, child, lambda, childSize, numPoints: n, numClusters: nextLabel - n };
}
