/**
 * Condensing's layout (condense.ts, `layOut`: each queued merge's preorder slot and its 16-byte payload, and the
 * split table) by ranges and chunks of merges, so that it runs on several threads (issue 5). Same payloads and
 * split table as `layOut`, which stays the reference.
 *
 * A queued merge's slot is its parent's plus an offset (1, or 1 + the left child's queued count for a split's
 * right child), and a split's number is the count of splits above it in index order. So:
 * 1. by ranges of merges (threads at once): each queued merge tells its queued children their parent and offset,
 *    and counts the range's splits;
 * 2. by chunks of consecutive merges (threads at once), from the top of each chunk down: a merge whose parent lies
 *    in the chunk takes its slot relative to the parent's anchor; one whose parent lies above the chunk (1–3 % of
 *    them) becomes an anchor;
 * 3. on one thread, chunks from the top down: each anchor's slot from its parent's, now known;
 * 4. by ranges (threads at once): every queued merge's slot, its payload and (splits) its split-table row.
 *
 * Scratch: the parents, offsets, anchors and anchors' slots in the union-find buffer (4n words, free after the
 * linkage); the relative slots over q (read for the slot count first).
 */
import { chunkBounds } from './linkage.chunks.js';
import type { SingleLinkageTree } from './types.js';

/** Payload word b (condense.ts's SPLIT, ONE_RUNT). */
const SPLIT = 0xffffffff;
const ONE_RUNT = 0xfffffffe;

/** Everything the steps read and write (all shared when they run on threads). */
export interface LayoutArrays {
  n: number;
  minClusterSize: number;
  left: Uint32Array;
  right: Uint32Array;
  distance: Float64Array;
  size: Uint32Array;
  /** The children's queued counts (QueuedCounts.ql / qr, gathered by the linkage). */
  ql: Int32Array;
  qr: Int32Array;
  /** Relative slots (written over the counts). */
  rel: Int32Array;
  /** m words each: a queued merge's parent, its offset from it, its anchor; an anchor's slot. */
  parent: Int32Array;
  offset: Int32Array;
  anchor: Int32Array;
  anchorSlot: Int32Array;
  /** The payloads (condense.ts's Layout) and the split table. */
  slotLambda: Float64Array;
  slotWord: Uint32Array;
  splitTable: Uint32Array;
}

const queued = (a: LayoutArrays, i: number, root: number) => a.size[i] >= a.minClusterSize || i === root;

/** Step 1 for merges [i0, i1): parents and offsets of their queued children; answers the range's splits. */
export function linkParents(a: LayoutArrays, i0: number, i1: number): number {
  const { n, left, right, ql, qr, parent, offset } = a;
  const root = n - 2;
  let splits = 0;
  for (let i = i0; i < i1; i++) {
    if (!queued(a, i, root)) continue;
    const qa = ql[i];
    const qb = qr[i];
    if (qa > 0) {
      parent[left[i] - n] = i;
      offset[left[i] - n] = 1;
    }
    if (qb > 0) {
      parent[right[i] - n] = i;
      offset[right[i] - n] = qa > 0 ? 1 + qa : 1;
    }
    if (qa > 0 && qb > 0) splits++;
  }
  return splits;
}

/** Step 2 for the chunk [c0, c1): relative slots and anchors, top down; answers the chunk's anchors. */
export function relativeSlots(a: LayoutArrays, c0: number, c1: number): Int32Array {
  const { n, parent, offset, anchor, rel } = a;
  const root = n - 2;
  const anchors: number[] = [];
  for (let i = c1 - 1; i >= c0; i--) {
    if (!queued(a, i, root)) continue;
    const p = i === root ? -1 : parent[i];
    if (p >= 0 && p < c1) {
      anchor[i] = anchor[p];
      rel[i] = rel[p] + offset[i];
    } else {
      anchor[i] = i;
      rel[i] = 0;
      anchors.push(i);
    }
  }
  return Int32Array.from(anchors);
}

/** Step 3, on one thread: the anchors' slots, chunks from the top down (each chunk's anchors in any order). */
export function anchorSlots(a: LayoutArrays, chunks: Int32Array[]): void {
  const { n, parent, offset, anchor, rel, anchorSlot } = a;
  const root = n - 2;
  for (let k = chunks.length - 1; k >= 0; k--) {
    for (const i of chunks[k]) {
      if (i === root) {
        anchorSlot[i] = 0;
        continue;
      }
      const p = parent[i];
      anchorSlot[i] = anchorSlot[anchor[p]] + rel[p] + offset[i];
    }
  }
}

/**
 * Step 4 for merges [i0, i1), top down: payloads and split-table rows; `firstSplit` = the splits above i1 − 1.
 */
export function writePayloads(a: LayoutArrays, i0: number, i1: number, firstSplit: number): void {
  const { n, left, right, distance, size, ql, qr, anchor, anchorSlot, rel, slotLambda, slotWord, splitTable } = a;
  const root = n - 2;
  let nextSplit = firstSplit;
  for (let i = i1 - 1; i >= i0; i--) {
    if (!queued(a, i, root)) continue;
    const s = anchorSlot[anchor[i]] + rel[i];
    const lNode = left[i];
    const rNode = right[i];
    const qa = ql[i];
    const qb = qr[i];
    const d = distance[i];
    // Important! λ = ∞ for duplicates (d = 0), explicitly: hdbscan writes INFTY there.
    slotLambda[2 * s] = d > 0 ? 1 / d : Infinity;
    if (qa > 0 && qb > 0) {
      splitTable[3 * nextSplit] = qa;
      splitTable[3 * nextSplit + 1] = size[lNode - n];
      splitTable[3 * nextSplit + 2] = size[rNode - n];
      slotWord[4 * s + 2] = nextSplit++;
      slotWord[4 * s + 3] = SPLIT;
    } else if (qa > 0) {
      slotWord[4 * s + 2] = rNode;
      slotWord[4 * s + 3] = ONE_RUNT;
    } else if (qb > 0) {
      slotWord[4 * s + 2] = lNode;
      slotWord[4 * s + 3] = ONE_RUNT;
    } else {
      slotWord[4 * s + 2] = lNode;
      slotWord[4 * s + 3] = rNode;
    }
  }
}

/** The split numbers each range starts from, top down: ranges[j] = (i0, i1), splits[j] its count. */
export function firstSplits(splits: number[]): number[] {
  const first = new Array<number>(splits.length).fill(0);
  for (let j = splits.length - 2; j >= 0; j--) first[j] = first[j + 1] + splits[j + 1];
  return first;
}

/**
 * The arrays for the layout of `tree` (queued counts gathered by the linkage) in the given scratch; `splitTable`:
 * 3 words per split.
 */
export function layoutArrays(
  tree: SingleLinkageTree,
  n: number,
  minClusterSize: number,
  counts: { q: Int32Array; ql: Int32Array; qr: Int32Array },
  splitTable: Uint32Array,
  scratch: Int32Array,
  payload: ArrayBufferLike,
): LayoutArrays {
  const m = Math.max(0, n - 1);
  if (scratch.length < 4 * m) {
    throw new Error(`cluster::condense: layout scratch of ${scratch.length} words, need ${4 * m}.`);
  }
  const slots = counts.q[n - 2];
  return {
    n,
    minClusterSize,
    left: tree.left,
    right: tree.right,
    distance: tree.distance,
    size: tree.size,
    ql: counts.ql,
    qr: counts.qr,
    rel: counts.q,
    parent: scratch.subarray(0, m),
    offset: scratch.subarray(m, 2 * m),
    anchor: scratch.subarray(2 * m, 3 * m),
    anchorSlot: scratch.subarray(3 * m, 4 * m),
    slotLambda: new Float64Array(payload, 0, 2 * slots),
    slotWord: new Uint32Array(payload, 0, 4 * slots),
    splitTable,
  };
}

/** The layout by the steps above on this thread (tests; the threaded path's twin). Chunks in reverse order. */
export function layOutChunked(a: LayoutArrays, chunks: number): void {
  const m = Math.max(0, a.n - 1);
  const bounds = chunkBounds(m, chunks);
  const K = bounds.length - 1;
  const splits: number[] = [];
  for (let k = K - 1; k >= 0; k--) splits[k] = linkParents(a, bounds[k], bounds[k + 1]);
  const anchors: Int32Array[] = new Array(K);
  for (let k = 0; k < K; k++) anchors[k] = relativeSlots(a, bounds[k], bounds[k + 1]);
  anchorSlots(a, anchors);
  const first = firstSplits(splits);
  for (let k = 0; k < K; k++) writePayloads(a, bounds[k], bounds[k + 1], first[k]);
}
