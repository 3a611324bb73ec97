/**
 * Straightforward versions of the clustering layer's fast paths (test-only oracles), as they stood before issue 5's
 * speed work: Kruskal single linkage edge by edge, the condensed tree by a breadth-first walk over the dendrogram
 * (hdbscan's `condense_tree`, runts skipped instead of flagged), and exemplars by bucketing every row by parent.
 * `test/cpu/cluster.condense.test.ts` compares the fast versions with these on seeded random trees.
 */
import { InputError } from '../../src/errors.js';
import { clusterTreeInfo } from '../../src/cluster/clusterTree.js';
import type { CondensedTree, MstEdges, SingleLinkageTree } from '../../src/cluster/types.js';

/** Single linkage, one find per endpoint in edge order. */
export function referenceSingleLinkage(mst: MstEdges, n: number): SingleLinkageTree {
  const m = n === 0 ? 0 : n - 1;
  const left = new Uint32Array(m);
  const right = new Uint32Array(m);
  const distance = new Float64Array(m);
  const size = new Uint32Array(m);
  // Union-find on points, one interleaved record per point so a root's facts share its cache line:
  // | uf[2x]: parent, or −(component size) for a root | uf[2x + 1]: the root's dendrogram node |
  const uf = new Int32Array(2 * n);
  for (let x = 0; x < n; x++) {
    uf[2 * x] = -1;
    uf[2 * x + 1] = x;
  }
  const find = (x: number): number => {
    // Path halving.
    let p = uf[2 * x];
    while (p >= 0) {
      const g = uf[2 * p];
      if (g < 0) return p;
      uf[2 * x] = g;
      x = g;
      p = uf[2 * x];
    }
    return x;
  };
  const { sources, targets, weights } = mst;
  for (let i = 0; i < m; i++) {
    const ra = find(sources[i]);
    const rb = find(targets[i]);
    if (ra === rb) {
      throw new InputError(
        `Expected a spanning tree, but edge ${i} = (${sources[i]}, ${targets[i]}) closes a cycle (some points are ` +
          `left disconnected).`,
      );
    }
    left[i] = uf[2 * ra + 1];
    right[i] = uf[2 * rb + 1];
    distance[i] = weights[i];
    const sa = -uf[2 * ra];
    const sb = -uf[2 * rb];
    size[i] = sa + sb;
    // Union by size.
    const big = sa >= sb ? ra : rb;
    uf[2 * (big === ra ? rb : ra)] = big;
    uf[2 * big] = -(sa + sb);
    uf[2 * big + 1] = n + i;
  }
  return { left, right, distance, size };
}

/** The condensed tree by a FIFO breadth-first walk from the root. */
export function referenceCondenseTree(tree: SingleLinkageTree, n: number, minClusterSize: number): CondensedTree {
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

/** Exemplars with every row bucketed by its parent. */
export function referenceExemplars(tree: CondensedTree, selectedClusters: Uint32Array): Uint32Array[] {
  const n = tree.numPoints;
  const info = clusterTreeInfo(tree);
  const k = info.numClusters;
  // Point rows bucketed by their cluster, stable (row order kept).
  const start = new Uint32Array(k + 1);
  for (let r = 0; r < tree.parent.length; r++) if (tree.child[r] < n) start[tree.parent[r] - n + 1]++;
  for (let c = 0; c < k; c++) start[c + 1] += start[c];
  const fill = start.slice(0, k);
  const rowsOf = new Uint32Array(start[k]);
  for (let r = 0; r < tree.parent.length; r++) if (tree.child[r] < n) rowsOf[fill[tree.parent[r] - n]++] = r;

  const out: Uint32Array[] = [];
  const stack: number[] = [];
  for (const id of selectedClusters) {
    const found: number[] = [];
    stack.push(id - n);
    while (stack.length > 0) {
      const c = stack.pop()!;
      const f = info.firstChild[c];
      if (f >= 0) {
        stack.push(f + 1, f); // first child popped first: depth-first, left to right
        continue;
      }
      const maxLambda = info.maxLambda[c];
      for (let i = start[c]; i < start[c + 1]; i++) {
        const r = rowsOf[i];
        if (tree.lambda[r] === maxLambda) found.push(tree.child[r]);
      }
    }
    out.push(Uint32Array.from(found));
  }
  return out;
}
