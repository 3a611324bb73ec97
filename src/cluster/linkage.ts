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

/** Edges per block whose union-find records are touched before the block is merged (64–256 measured alike). */
const PREFETCH_BLOCK = 64;
/**
 * Points from which the blocks are touched first: below, the records (8 bytes a point) stay in the last-level
 * cache and the touching loops only cost (10^6 points: 80 ms without, 100 ms with, on the 2-core machine).
 */
const PREFETCH_MIN_POINTS = 1 << 21;
let prefetchSink = 0;

/**
 * Builds the dendrogram of n points from their MST, whose edges must already be in canonical order with
 * sources < targets (see `canonicalMst`). Throws InputError if an edge closes a cycle (not a spanning tree).
 * `into`: arrays to write the rows into (n − 1 each) and 2n words of scratch (buffers.ts), else fresh ones.
 */
export function singleLinkage(
  mst: MstEdges,
  n: number,
  into?: { linkage: SingleLinkageTree; unionFind: Int32Array },
): SingleLinkageTree {
  const m = n === 0 ? 0 : n - 1;
  const left = into?.linkage.left ?? new Uint32Array(m);
  const right = into?.linkage.right ?? new Uint32Array(m);
  const distance = into?.linkage.distance ?? new Float64Array(m);
  const size = into?.linkage.size ?? new Uint32Array(m);
  // Union-find on points, one interleaved record per point so a root's facts share its cache line:
  // | uf[2x]: parent, or −(component size) for a root | uf[2x + 1]: the root's dendrogram node |
  const uf = into?.unionFind ?? new Int32Array(2 * n);
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
  // A find's first reads (the endpoint's record, then its parent's: union by size and path halving keep 98–99 % of
  // finds within those two) are cache and TLB misses at random places beyond 10^6 points, and one edge after
  // another they wait on each other. So each block of edges is first touched, level by level, in loops whose
  // loads do not depend on each other (the CPU overlaps the misses), and then merged from a warm cache: ~1.5×
  // faster at 10^7 points on a busy machine (other processes sharing the memory system), the same on an idle one.
  const prefetch = n >= PREFETCH_MIN_POINTS;
  let touched = 0;
  for (let i0 = 0; i0 < m; i0 += PREFETCH_BLOCK) {
    const i1 = Math.min(m, i0 + PREFETCH_BLOCK);
    if (prefetch) {
      for (let i = i0; i < i1; i++) touched ^= uf[2 * sources[i]] ^ uf[2 * targets[i]];
      for (let i = i0; i < i1; i++) {
        const ps = uf[2 * sources[i]];
        const pt = uf[2 * targets[i]];
        if (ps >= 0) touched ^= uf[2 * ps];
        if (pt >= 0) touched ^= uf[2 * pt];
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
  }
  prefetchSink ^= touched; // keeps the touching loads from being optimised away
  return { left, right, distance, size };
}
