/**
 * The CPU twin of condense.rows.ts (shaders/cluster/condense.wgsl): the same rows — (parent cluster, child, f32 bits
 * of the merge's distance, child size), hdbscan's order — from the same definitions, computed sequentially:
 * parents before children (merge i's parent is a later merge) instead of pointer jumping, and a comparison sort of
 * the same (rank, side, depth, position) keys instead of the radix sort. Tests hold the two against each other and
 * against condense.ts (another algorithm) and the top-down oracle of test/helpers/clusterOracle.ts.
 */

/** The row keys' field widths: bm bits each for depth and position below a runt's top; the total. */
export function condenseKeyBits(n: number, minClusterSize: number): { bm: number; rank: number; total: number } {
  const m = Math.max(1, n - 1);
  // Depth and position below a runt's top are ≤ its size − 1 ≤ minClusterSize − 2.
  const bm = Math.max(1, Math.ceil(Math.log2(Math.max(2, minClusterSize - 1))));
  const rank = Math.max(1, Math.ceil(Math.log2(m)));
  return { bm, rank, total: rank + 1 + 2 * bm };
}

/** Whether the GPU path can order the rows of n points at this minClusterSize (64-bit keys). */
export function condenseRowsFits(n: number, minClusterSize: number): boolean {
  return condenseKeyBits(n, minClusterSize).total <= 64;
}

// The most splits n points can make (every split's two sides hold ≥ minClusterSize points each, and the leaves of
// the cluster tree, splits + 1 of them, are disjoint): defined beside the capacity table that also needs it.
export { maxSplits } from '../bvh/capacity.js';

const SIDE = 0x80000000;
const IDX = 0x7fffffff;

/**
 * The condensed rows of n ≥ 2 points from `merges` (4 words per merge: left, right, size, f32 distance bits), as
 * the GPU computes them: 4 words per row, n + 2 · splits rows.
 */
export function condenseRowsCpu(merges: Uint32Array, n: number, minClusterSize: number): Uint32Array {
  const m = n - 1;
  const root = m - 1;
  const mcs = minClusterSize;
  const size = (node: number) => (node >= n ? merges[4 * (node - n) + 2] : 1);
  const queued = (i: number) => i === root || merges[4 * i + 2] >= mcs;
  const split = (i: number) => queued(i) && size(merges[4 * i]) >= mcs && size(merges[4 * i + 1]) >= mcs;
  // Parents with the side bit.
  const par = new Uint32Array(m);
  const pparent = new Uint32Array(n);
  for (let i = 0; i < m; i++) {
    for (const [child, side] of [
      [merges[4 * i], 0],
      [merges[4 * i + 1], SIDE],
    ]) {
      if (child >= n) par[child - n] = (i | side) >>> 0;
      else pparent[child] = (i | side) >>> 0;
    }
  }
  // Depth, leftmost leaf, runt top, cluster start: parents first (descending merge index).
  const depth = new Uint32Array(m);
  const leaf = new Uint32Array(m);
  const top = new Uint32Array(m);
  const start = new Uint32Array(m);
  for (let i = root; i >= 0; i--) {
    if (i === root) {
      top[i] = i;
      start[i] = i;
      continue;
    }
    const p = par[i] & IDX;
    const right = par[i] & SIDE;
    depth[i] = depth[p] + 1;
    leaf[i] = leaf[p] + (right ? size(merges[4 * p]) : 0);
    top[i] = queued(i) || queued(p) ? i : top[p];
    start[i] = queued(i) && !split(p) ? start[p] : i;
  }
  // Breadth-first ranks of the queued merges, split numbers in that order, each queued merge's cluster id.
  const order: number[] = [];
  for (let i = 0; i < m; i++) if (queued(i)) order.push(i);
  order.sort((a, b) => depth[a] - depth[b] || leaf[a] - leaf[b]);
  const rank = new Uint32Array(m);
  const splitIndex = new Uint32Array(m);
  const splitMerge: number[] = [];
  order.forEach((i, r) => {
    rank[i] = r;
    if (split(i)) {
      splitIndex[i] = splitMerge.length;
      splitMerge.push(i);
    }
  });
  const clusterOf = (i: number) => {
    const x = start[i];
    return x === root ? n : n + 1 + 2 * splitIndex[par[x] & IDX] + (par[x] >>> 31);
  };
  // Rows: (rank, side, depth, position) keys; slot p for point p, n + 2k + side for split k's cluster rows.
  const count = n + 2 * splitMerge.length;
  const keys = new Float64Array(4 * count);
  const owner = new Uint32Array(n);
  for (let p = 0; p < n; p++) {
    const pm = pparent[p] & IDX;
    const sideP = pparent[p] >>> 31;
    if (queued(pm)) {
      keys.set([rank[pm], sideP, 0, 0], 4 * p);
      owner[p] = pm;
    } else {
      const y = top[pm];
      const a = par[y] & IDX;
      const lp = leaf[pm] + (sideP ? size(merges[4 * pm]) : 0);
      keys.set([rank[a], par[y] >>> 31, depth[pm] + 1 - depth[y], lp - leaf[y]], 4 * p);
      owner[p] = a;
    }
  }
  splitMerge.forEach((a, k) => {
    keys.set([rank[a], 0, 0, 0], 4 * (n + 2 * k));
    keys.set([rank[a], 1, 0, 0], 4 * (n + 2 * k + 1));
  });
  const slots = Array.from({ length: count }, (_, s) => s);
  slots.sort((a, b) => {
    for (let f = 0; f < 4; f++) {
      const d = keys[4 * a + f] - keys[4 * b + f];
      if (d !== 0) return d;
    }
    return 0;
  });
  const rows = new Uint32Array(4 * count);
  slots.forEach((slot, r) => {
    if (slot < n) {
      const a = owner[slot];
      rows.set([clusterOf(a), slot, merges[4 * a + 3], 1], 4 * r);
    } else {
      const k = (slot - n) >> 1;
      const side = (slot - n) & 1;
      const a = splitMerge[k];
      const child = merges[4 * a + side];
      rows.set([clusterOf(a), n + 1 + 2 * k + side, merges[4 * a + 3], size(child)], 4 * r);
    }
  });
  return rows;
}
