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
  // One 24-byte record per merge, so the breadth-first walk (random order) touches one place per node:
  // | u32 left | u32 right | u32 left size | u32 right size | f64 distance |
  const rec = new Uint32Array(6 * m);
  const recDistance = new Float64Array(rec.buffer);
  let splits = 0;
  for (let i = 0; i < m; i++) {
    const l = left[i];
    const r = right[i];
    const lc = l < n ? 1 : size[l - n];
    const rc = r < n ? 1 : size[r - n];
    rec[6 * i] = l;
    rec[6 * i + 1] = r;
    rec[6 * i + 2] = lc;
    rec[6 * i + 3] = rc;
    recDistance[3 * i + 2] = distance[i];
    if (lc >= minClusterSize && rc >= minClusterSize) splits++;
  }
  const rows = n + 2 * splits;
  const parent = new Uint32Array(rows);
  const child = new Uint32Array(rows);
  const lambda = new Float64Array(rows);
  const childSize = new Uint32Array(rows);
  let row = 0;

  // The walk's FIFO queue holds (merge node, cluster id it carries) pairs: the id travels with the node instead
  // of being written into the child's record (one random access fewer per node).
  const queue = new Uint32Array(2 * m);
  // A runt holds < minClusterSize points, so its subtree has < 2 · minClusterSize nodes.
  const runtQueue = new Uint32Array(Math.min(2 * minClusterSize, 2 * n));
  let head = 0;
  let tail = 0;
  const root = 2 * n - 2;
  queue[tail++] = root;
  queue[tail++] = n;
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
        runtQueue[t++] = rec[6 * (x - n)];
        runtQueue[t++] = rec[6 * (x - n) + 1];
      }
    }
  };

  while (head < tail) {
    const i = queue[head++] - n;
    const cluster = queue[head++];
    const l = rec[6 * i];
    const r = rec[6 * i + 1];
    const lc = rec[6 * i + 2];
    const rc = rec[6 * i + 3];
    const d = recDistance[3 * i + 2];
    // Important! λ = ∞ for duplicates (d = 0), explicitly: hdbscan writes INFTY there.
    const lam = d > 0 ? 1 / d : Infinity;
    if (lc >= minClusterSize && rc >= minClusterSize) {
      queue[tail++] = l;
      queue[tail++] = nextLabel;
      parent[row] = cluster;
      child[row] = nextLabel++;
      lambda[row] = lam;
      childSize[row] = lc;
      row++;
      queue[tail++] = r;
      queue[tail++] = nextLabel;
      parent[row] = cluster;
      child[row] = nextLabel++;
      lambda[row] = lam;
      childSize[row] = rc;
      row++;
    } else if (lc < minClusterSize && rc < minClusterSize) {
      emitRunt(l, cluster, lam);
      emitRunt(r, cluster, lam);
    } else if (lc < minClusterSize) {
      emitRunt(l, cluster, lam);
      queue[tail++] = r;
      queue[tail++] = cluster;
    } else {
      emitRunt(r, cluster, lam);
      queue[tail++] = l;
      queue[tail++] = cluster;
    }
  }
  return { parent, child, lambda, childSize, numPoints: n, numClusters: nextLabel - n };
}
