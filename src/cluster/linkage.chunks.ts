/**
 * Single linkage by chunks of edges, so that most of its work runs on several threads (issue 5): the same rows,
 * sizes and queued counts as `singleLinkage` (linkage.ts), which stays the reference and the path for small trees.
 *
 * The edges, in canonical order, are cut into K chunks of consecutive indices. Row f is (node of the source's
 * component, node of the target's component) over the edges before f, where a component's node is its last
 * (largest) edge, or the point itself. For an edge of chunk k, that component is made of components of the
 * edges of chunks < k (the "prefix forest" P_k) joined by the edges of chunk k before f. So chunk k's rows follow
 * from a union-find over chunk k's edges alone, on P_k's components as vertices ("slots": one per edge end, the
 * ends in one P_k component joined from the start), given each P_k component's last edge and size.
 *
 * 1. For k = 0 … K−1, two passes over chunk k's edges, each split across the threads, on a shared union-find of the
 *    points (what it computes does not depend on the threads' timing):
 *    claim — each end's P_k root; each root's record names one slot of the chunk (the last of its ends' plain
 *            writes), and a root claimed in an earlier chunk (a component of ≥ 2 points) leaves that chunk's slot
 *            in the end's node word;
 *    unite — each end's slot points at its root's slot (the representative), and the P_k roots of every edge's ends
 *            are linked (compare-and-swap, the larger root id under the smaller: concurrent links make no cycle).
 * 2. Each chunk's rows by a sequential union-find over its slots (chunks on different threads at once): left and
 *    right nodes and sizes counting the chunk's own points; a row whose child is an earlier component is pending.
 * 3. On one thread, chunk by chunk: a pending row's child is the final representative of the slot its root kept
 *    (the last chunk that grew that component), and the chunk's final component holding it gains its size.
 * 4. Each chunk's sizes from its rows, and queued counts as far as the chunk sees them (threads at once).
 * 5. On one thread, chunk by chunk: each final component's count gains its earlier components' counts.
 * 6. Each chunk's final counts and the distances (threads at once).
 * Steps 4 and 6 read an earlier chunk's final rows while that chunk's own thread rewrites them: with the value
 * steps 3 and 5 already stored there (sizes and counts of rows add up across chunks), so either read is right.
 *
 * Scratch (buffers.ts's arrays, free at this point): the shared union-find in the union-find buffer, one 8-byte
 * record per point | parent (−1: a root) | slot claimed in the current chunk (−1: none yet) |; the slots' parents
 * (−1 − size at a representative) and nodes in condensing's payload (16 bytes a merge); each end's root in left /
 * right (written over in step 2).
 *
 * Important! claim's racing plain writes: the JS memory model gives plain writes to one word no order that every
 * thread must agree on, but every engine compiles them to plain stores, which cache coherence orders, and the
 * pass ends with a message round trip (a full barrier), after which every end reads the same last value. A
 * compare-and-swap there (first writer wins) made the pass much slower (the locked instruction waits for every
 * load before it; bench/RESULTS.md).
 */
import { InputError } from '../errors.js';
import type { QueuedCounts } from './linkage.js';
import type { SingleLinkageTree } from './types.js';

/** Everything the passes read and write (every array shared when they run on threads). */
export interface ChunkedLinkage {
  n: number;
  minClusterSize: number;
  sources: Uint32Array;
  targets: Uint32Array;
  weights: Float32Array | Float64Array;
  left: Uint32Array;
  right: Uint32Array;
  distance: Float64Array;
  size: Uint32Array;
  q: Int32Array;
  ql: Int32Array;
  qr: Int32Array;
  /** 2n words: the shared union-find (see the file's comment). */
  uf: Int32Array;
  /** 2(n − 1) words each: per slot (edge end 2f + side), its parent slot (or −1 − its size), its node. */
  slotParent: Int32Array;
  slotNode: Int32Array;
}

/**
 * Chunks for m edges on `threads` threads: 2 per thread, but ≥ 2^16 edges each (below ~2^16 edges a chunk, the
 * steps' round trips cost more than the threads save: bench/RESULTS.md).
 */
export function defaultChunks(m: number, threads: number): number {
  return Math.max(1, Math.min(2 * threads, Math.max(2, Math.ceil(m / 65536))));
}

/** The chunks' first edges and the end: K + 1 bounds over m edges. */
export function chunkBounds(m: number, chunks: number): number[] {
  const k = Math.max(1, Math.min(Number.isFinite(chunks) ? Math.floor(chunks) : 1, m));
  return Array.from({ length: k + 1 }, (_, i) => Math.floor((m * i) / k));
}

/** Resets the shared union-find (n points, each its own component). A range of points, for threads. */
export function resetUnionFind(uf: Int32Array, x0: number, x1: number): void {
  uf.fill(-1, 2 * x0, 2 * x1);
}

/** The root of x's component in the shared union-find (path halving: benign races, every write is an ancestor). */
function findShared(uf: Int32Array, x: number): number {
  let p = uf[2 * x];
  while (p >= 0) {
    const g = uf[2 * p];
    if (g < 0) return p;
    uf[2 * x] = g;
    x = g;
    p = uf[2 * x];
  }
  return x;
}

/** Edges whose ends' records are touched ahead in step 1 (the loads overlap; see linkage.ts). */
const TOUCH_BLOCK = 64;
let touchSink = 0;

/**
 * Step 1, claim: edges [f0, f1) of the chunk starting at edge c0. Each end's P_k root goes to left / right, and
 * each root's record names one slot of this chunk (plain writes: whichever lands last, every end reads the same
 * one after the pass). A root claimed in an earlier chunk is a component of ≥ 2 points: the slot written over is
 * kept in the end's node word (−2 − slot) for step 3.
 */
export function claimRoots(a: ChunkedLinkage, c0: number, f0: number, f1: number): void {
  const { uf, sources, targets, left, right, slotNode } = a;
  const first = 2 * c0;
  let touched = 0;
  for (let b0 = f0; b0 < f1; b0 += TOUCH_BLOCK) {
    const b1 = Math.min(f1, b0 + TOUCH_BLOCK);
    for (let f = b0; f < b1; f++) touched ^= uf[2 * sources[f]] ^ uf[2 * targets[f]];
    for (let f = b0; f < b1; f++) {
      const ps = uf[2 * sources[f]];
      const pt = uf[2 * targets[f]];
      if (ps >= 0) touched ^= uf[2 * ps];
      if (pt >= 0) touched ^= uf[2 * pt];
    }
    for (let f = b0; f < b1; f++) {
      for (let side = 0; side < 2; side++) {
        const r = findShared(uf, side === 0 ? sources[f] : targets[f]);
        const j = 2 * f + side;
        if (side === 0) left[f] = r;
        else right[f] = r;
        const seen = uf[2 * r + 1];
        if (seen >= first) continue;
        slotNode[j] = seen < 0 ? r : -2 - seen;
        uf[2 * r + 1] = j;
      }
    }
  }
  touchSink ^= touched;
}

/**
 * Step 1, unite: each end's slot points at its root's claimed slot (the representative: local size 1 for a point,
 * 0 for an earlier component, whose size step 3 adds), and the P_k roots of edges [f0, f1)'s ends are linked, the
 * larger root id under the smaller (compare-and-swap), so a merged component's root is the least of its roots.
 */
export function uniteRoots(a: ChunkedLinkage, f0: number, f1: number): void {
  const { uf, left, right, slotParent, slotNode } = a;
  for (let b0 = f0; b0 < f1; b0 += TOUCH_BLOCK) {
    const b1 = Math.min(f1, b0 + TOUCH_BLOCK);
    // Plain reads first (their misses overlap), then the compare-and-swaps (a locked instruction waits for every
    // load before it) on records now in cache.
    for (let f = b0; f < b1; f++) {
      for (let side = 0; side < 2; side++) {
        const j = 2 * f + side;
        const rep = uf[2 * (side === 0 ? left[f] : right[f]) + 1];
        slotParent[j] = rep === j ? (slotNode[j] >= 0 ? -2 : -1) : rep;
      }
    }
    for (let f = b0; f < b1; f++) {
      let x = left[f];
      let y = right[f];
      for (;;) {
        x = findShared(uf, x);
        y = findShared(uf, y);
        if (x === y) break; // a cycle: step 2 reports it
        const hi = x > y ? x : y;
        const lo = x > y ? y : x;
        if (Atomics.compareExchange(uf, 2 * hi, -1, lo) === -1) break;
      }
    }
  }
}

/**
 * What step 2 answers for a chunk: its rows whose child is an earlier chunk's component, as (edge · 2 + side,
 * that component's slot in its last chunk, the node (n + row) of this chunk's final component that took it in —
 * filled by step 3).
 */
export interface ChunkLinks {
  pending: Int32Array;
  /** The first edge that closes a cycle, or −1. */
  cycle: number;
}

/** The representative of slot x in its chunk's union-find (path halving). */
function findSlot(P: Int32Array, x: number): number {
  let p = P[x];
  while (p >= 0) {
    const g = P[p];
    if (g < 0) return p;
    P[x] = g;
    x = g;
    p = P[x];
  }
  return x;
}

/**
 * Step 2: the rows of the chunk [c0, c1) by a union-find over its slots: nodes (or a pending mark for an earlier
 * component), and sizes counting the chunk's own points only (a representative holds −1 − that count).
 */
export function linkChunk(a: ChunkedLinkage, c0: number, c1: number): ChunkLinks {
  const { n, left, right, size, slotParent: P, slotNode: N } = a;
  const pending: number[] = [];
  let cycle = -1;
  for (let f = c0; f < c1; f++) {
    const ra = findSlot(P, 2 * f);
    const rb = findSlot(P, 2 * f + 1);
    if (ra === rb) {
      cycle = f;
      break;
    }
    const na = N[ra];
    const nb = N[rb];
    left[f] = na;
    right[f] = nb;
    if (na < 0) pending.push(2 * f, -2 - na, 0);
    if (nb < 0) pending.push(2 * f + 1, -2 - nb, 0);
    const sa = -1 - P[ra];
    const sb = -1 - P[rb];
    size[f] = sa + sb;
    const big = sa >= sb ? ra : rb;
    P[big === ra ? rb : ra] = big;
    P[big] = -1 - (sa + sb);
    N[big] = n + f;
  }
  return { pending: Int32Array.from(pending), cycle };
}

/**
 * Step 3, on one thread, chunk by chunk: each pending row gets the earlier component's node (its slot's final
 * representative's), and this chunk's final component holding it gains that component's size (final by then).
 */
export function resolveSizes(a: ChunkedLinkage, chunks: ChunkLinks[]): void {
  const { n, left, right, size, slotParent: P, slotNode: N } = a;
  for (const { pending } of chunks) {
    for (let i = 0; i < pending.length; i += 3) {
      const end = pending[i];
      const node = N[findSlot(P, pending[i + 1])];
      if (end & 1) right[end >>> 1] = node;
      else left[end >>> 1] = node;
      const mine = N[findSlot(P, end)];
      pending[i + 2] = mine;
      size[mine - n] += size[node - n];
    }
  }
}

/**
 * Step 4: the chunk [c0, c1)'s sizes from its rows (earlier components' are final), and each row's queued count as
 * far as the chunk sees it (earlier components' counted as 0) into q.
 */
export function sizeChunk(a: ChunkedLinkage, c0: number, c1: number): void {
  const { n, minClusterSize: mcs, left, right, size, q } = a;
  const m = Math.max(0, n - 1);
  for (let f = c0; f < c1; f++) {
    const l = left[f];
    const r = right[f];
    const inL = l >= n + c0;
    const inR = r >= n + c0;
    const s = (l < n ? 1 : size[l - n]) + (r < n ? 1 : size[r - n]);
    size[f] = s;
    q[f] = s >= mcs || f === m - 1 ? 1 + (inL ? q[l - n] : 0) + (inR ? q[r - n] : 0) : 0;
  }
}

/** Step 5, on one thread, chunk by chunk: each final component's count gains its earlier components' counts. */
export function resolveCounts(a: ChunkedLinkage, chunks: ChunkLinks[]): void {
  const { n, left, right, q } = a;
  for (const { pending } of chunks) {
    for (let i = 0; i < pending.length; i += 3) {
      const end = pending[i];
      const node = end & 1 ? right[end >>> 1] : left[end >>> 1];
      q[pending[i + 2] - n] += q[node - n];
    }
  }
}

/** Step 6: the chunk [c0, c1)'s queued counts (earlier components' are final) and distances; answers its splits. */
export function countChunk(a: ChunkedLinkage, c0: number, c1: number): number {
  const { n, minClusterSize: mcs, left, right, size, q, ql, qr, distance, weights } = a;
  const m = Math.max(0, n - 1);
  let splits = 0;
  for (let f = c0; f < c1; f++) {
    const l = left[f];
    const r = right[f];
    const qa = l >= n ? q[l - n] : 0;
    const qb = r >= n ? q[r - n] : 0;
    ql[f] = qa;
    qr[f] = qb;
    q[f] = size[f] >= mcs || f === m - 1 ? 1 + qa + qb : 0;
    if (qa > 0 && qb > 0) splits++;
  }
  for (let f = c0; f < c1; f++) distance[f] = weights[f];
  return splits;
}

/** The InputError `singleLinkage` throws for the same tree. */
export function cycleError(a: { sources: Uint32Array; targets: Uint32Array }, f: number): InputError {
  return new InputError(
    `Expected a spanning tree, but edge ${f} = (${a.sources[f]}, ${a.targets[f]}) closes a cycle (some points are ` +
      `left disconnected).`,
  );
}

/**
 * The arrays for `n` points: given ones (buffers.ts's: linkage rows, union-find, counts, payload) or fresh ones.
 */
export function chunkedLinkageArrays(
  mst: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array | Float64Array },
  n: number,
  counts: QueuedCounts,
  into?: { linkage: SingleLinkageTree; unionFind: Int32Array; payload: SharedArrayBuffer },
): ChunkedLinkage {
  const m = Math.max(0, n - 1);
  const left = into?.linkage.left ?? new Uint32Array(m);
  const right = into?.linkage.right ?? new Uint32Array(m);
  const distance = into?.linkage.distance ?? new Float64Array(m);
  const size = into?.linkage.size ?? new Uint32Array(m);
  const uf = into?.unionFind.subarray(0, 2 * n) ?? new Int32Array(2 * n);
  const payload = into ? new Int32Array(into.payload, 0, 4 * m) : new Int32Array(4 * m);
  return {
    n,
    minClusterSize: counts.minClusterSize,
    sources: mst.sources,
    targets: mst.targets,
    weights: mst.weights,
    left,
    right,
    distance,
    size,
    q: counts.q,
    ql: counts.ql,
    qr: counts.qr,
    uf,
    slotParent: payload.subarray(0, 2 * m),
    slotNode: payload.subarray(2 * m, 4 * m),
  };
}

/**
 * `singleLinkage` with counts, by chunks on this thread: the threads' algorithm run step by step, for tests and
 * as the threaded path's twin. Same rows, sizes and counts; throws the same InputError on a cycle.
 */
export function singleLinkageChunked(
  mst: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array | Float64Array },
  n: number,
  counts: QueuedCounts,
  chunks: number,
  into?: { linkage: SingleLinkageTree; unionFind: Int32Array; payload: SharedArrayBuffer },
): SingleLinkageTree {
  const a = chunkedLinkageArrays(mst, n, counts, into);
  const m = Math.max(0, n - 1);
  const bounds = chunkBounds(m, chunks);
  resetUnionFind(a.uf, 0, n);
  const K = bounds.length - 1;
  for (let k = 0; k < K; k++) {
    claimRoots(a, bounds[k], bounds[k], bounds[k + 1]);
    uniteRoots(a, bounds[k], bounds[k + 1]);
  }
  // Steps 2, 4 and 6 chunk by chunk in reverse: on threads the chunks run at once, so none may rely on an earlier
  // chunk's step having run first (only steps 3 and 5 carry facts from chunk to chunk).
  const links: ChunkLinks[] = new Array(K);
  for (let k = K - 1; k >= 0; k--) links[k] = linkChunk(a, bounds[k], bounds[k + 1]);
  const cycles = links.map((l) => l.cycle).filter((f) => f >= 0);
  if (cycles.length > 0) throw cycleError(mst, Math.min(...cycles));
  resolveSizes(a, links);
  for (let k = K - 1; k >= 0; k--) sizeChunk(a, bounds[k], bounds[k + 1]);
  resolveCounts(a, links);
  let splits = 0;
  for (let k = K - 1; k >= 0; k--) splits += countChunk(a, bounds[k], bounds[k + 1]);
  counts.splits = splits;
  return { left: a.left, right: a.right, distance: a.distance, size: a.size };
}
