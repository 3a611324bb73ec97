/**
 * Single linkage from an MST: Kruskal's union-find over the edges in canonical order, written in scipy's linkage
 * layout as hdbscan's `_hdbscan_linkage.label` does (McInnes & Healy 2017, "Accelerated hierarchical density based
 * clustering", ICDMW; scipy.cluster.hierarchy's Z matrix). Row i is (node of the min endpoint's component, node of
 * the max endpoint's component, weight, size) and creates node n + i. O(n α(n)).
 *
 * Important! the rows must follow the canonical edge order (weight, min, max): that order fixes the node ids, the
 * condensed tree built from them, and so the cluster numbering (DESIGN.md, "HDBSCAN* semantics").
 */
import { InputError } from '../errors.js';
import type { MstEdges, SingleLinkageTree } from './types.js';
import { THRESHOLDS } from '../host/thresholds.js';

/** Edges per block whose union-find records are touched before the block is merged (64–256 measured alike). */
const PREFETCH_BLOCK = 64;
let prefetchSink = 0;

/**
 * What condensing needs from the linkage (condense.ts's bottom-up count), gathered during it at no extra cache
 * miss, for one minClusterSize: per merge i, the queued merges in its subtree (q: 1 + both children's when it holds
 * ≥ minClusterSize points or is the root, else 0) and its children's counts (ql, qr: what condensing would otherwise
 * read at random places), and the number of splits (merges whose children both count).
 */
export interface QueuedCounts {
  minClusterSize: number;
  q: Int32Array;
  ql: Int32Array;
  qr: Int32Array;
  splits: number;
}

/** Empty counts for n points at this minClusterSize, for `singleLinkage` to fill. */
export function queuedCounts(n: number, minClusterSize: number): QueuedCounts {
  const m = Math.max(0, n - 1);
  return { minClusterSize, q: new Int32Array(m), ql: new Int32Array(m), qr: new Int32Array(m), splits: 0 };
}

/**
 * Builds the dendrogram of n points from their MST, whose edges must already be in canonical order with
 * sources < targets (see `canonicalMst`). Throws InputError if an edge closes a cycle (not a spanning tree).
 * `into`: arrays to write the rows into (n − 1 each) and 4n words of scratch (buffers.ts), else fresh ones.
 * `queued`: filled in as well (see QueuedCounts).
 */
export function singleLinkage(
  mst: MstEdges,
  n: number,
  into?: { linkage: SingleLinkageTree; unionFind: Int32Array },
  queued?: QueuedCounts,
): SingleLinkageTree {
  const m = n === 0 ? 0 : n - 1;
  const left = into?.linkage.left ?? new Uint32Array(m);
  const right = into?.linkage.right ?? new Uint32Array(m);
  const distance = into?.linkage.distance ?? new Float64Array(m);
  const size = into?.linkage.size ?? new Uint32Array(m);
  // Union-find on points, one interleaved record per point so a root's facts share its cache line:
  // | uf[W x]: parent, or −(component size) for a root | uf[W x + 1]: the root's dendrogram node |
  // | uf[W x + 2]: the node's queued count (only with `queued`; W = 4 then, else 2) |
  const W = queued ? 4 : 2;
  const uf = into?.unionFind.subarray(0, W * n) ?? new Int32Array(W * n);
  for (let x = 0; x < n; x++) {
    uf[W * x] = -1;
    uf[W * x + 1] = x;
    if (W === 4) uf[4 * x + 2] = 0; // the same cache line: no reliance on the scratch being zeros
  }
  const mcs = queued ? queued.minClusterSize : 0;
  const q = queued?.q ?? new Int32Array(0);
  const qLeft = queued?.ql ?? new Int32Array(0);
  const qRight = queued?.qr ?? new Int32Array(0);
  let splits = 0;
  const find = (x: number): number => {
    // Path halving.
    let p = uf[W * x];
    while (p >= 0) {
      const g = uf[W * p];
      if (g < 0) return p;
      uf[W * x] = g;
      x = g;
      p = uf[W * x];
    }
    return x;
  };
  const { sources, targets, weights } = mst;
  // A find's first reads (the endpoint's record, then its parent's: union by size and path halving keep 98–99 % of
  // finds within those two) are cache and TLB misses at random places beyond 10^6 points, and one edge after
  // another they wait on each other. So each block of edges is first touched, level by level, in loops whose
  // loads do not depend on each other (the CPU overlaps the misses), and then merged from a warm cache: faster on
  // a busy machine (other processes sharing the memory system), the same on an idle one (bench/RESULTS.md).
  const prefetch = n >= THRESHOLDS.prefetchMinPoints;
  let touched = 0;
  for (let i0 = 0; i0 < m; i0 += PREFETCH_BLOCK) {
    const i1 = Math.min(m, i0 + PREFETCH_BLOCK);
    if (prefetch) {
      for (let i = i0; i < i1; i++) touched ^= uf[W * sources[i]] ^ uf[W * targets[i]];
      for (let i = i0; i < i1; i++) {
        const ps = uf[W * sources[i]];
        const pt = uf[W * targets[i]];
        if (ps >= 0) touched ^= uf[W * ps];
        if (pt >= 0) touched ^= uf[W * pt];
      }
    }
    for (let i = i0; i < i1; i++) {
      const ra = find(sources[i]);
      const rb = find(targets[i]);
      if (ra === rb) {
        throw new InputError(
          `Expected a spanning tree, but edge ${i} = (${sources[i]}, ${targets[i]}) closes a cycle (some points are ` +
            `left disconnected).`,
        );
      }
      left[i] = uf[W * ra + 1];
      right[i] = uf[W * rb + 1];
      distance[i] = weights[i];
      const sa = -uf[W * ra];
      const sb = -uf[W * rb];
      size[i] = sa + sb;
      // Union by size.
      const big = sa >= sb ? ra : rb;
      uf[W * (big === ra ? rb : ra)] = big;
      uf[W * big] = -(sa + sb);
      uf[W * big + 1] = n + i;
      if (W === 4) {
        const qa = uf[4 * ra + 2];
        const qb = uf[4 * rb + 2];
        qLeft[i] = qa;
        qRight[i] = qb;
        const qi = sa + sb >= mcs || i === m - 1 ? 1 + qa + qb : 0;
        if (qa > 0 && qb > 0) splits++;
        q[i] = qi;
        uf[4 * big + 2] = qi;
      }
    }
  }
  if (queued) queued.splits = splits;
  prefetchSink ^= touched; // keeps the touching loads from being optimised away
  return { left, right, distance, size };
}
