/**
 * The first pass of the coordinator's threaded split (partition.threads.ts), over ranges of the points: per-axis
 * min/max (minF/maxF: −0 below +0; associative) and whether a coordinate is not finite or beyond ±MAX_COORDINATE (then
 * checkCoordinates throws its own error on the calling thread); for the coordinator (partitionWithHashes) also the
 * input fingerprint's block hashes, ranges of whole blocks, the points read once for both. And the fingerprint's block
 * hashes alone (hashBlocks: blockHashes, and runs whose split is on one thread).
 *
 *   partition-bounds  rows [start, end): lo, hi, bad; with `words`, `first`, `last` also blocks [first, last)'s hashes
 *   partition-hash    blocks [first, last) of the points' words: two hash words each
 */
import { MAX_COORDINATE } from '../bvh/layout.js';
import { maxF, minF } from '../bvh/floatorder.js';
import type { WorkerReply } from '../host/threads.js';

/**
 * Words per block of the input's fingerprint (16 MiB): the coordinator's fingerprint of its points (coordinator.ts)
 * is a hash of its blocks' hashes, so threads may hash blocks apart — one thread's FNV pass over 2·10^8 3D points was
 * ~2 s of the coordinator's time before any task (session 12: ~10 ns a point on this machine).
 */
export const FINGERPRINT_BLOCK_WORDS = 1 << 22;

/** Rows [start, end) of `points` (n × dim, in shared memory): one thread's share of a pass. */
export interface Range {
  id: number;
  points: Float32Array;
  dim: number;
  start: number;
  end: number;
}

/**
 * `words`, `first`, `last` (partitionWithHashes): the range also hashes the fingerprint's blocks [first, last) of the
 * points' words, and [start, end) are the rows that start in those blocks.
 */
export type BoundsJob = Range & { kind: 'partition-bounds'; words?: Uint32Array; first?: number; last?: number };
/** `hashes`: the blocks' two hash words each (hashBlocks'), where the job named blocks. */
export type BoundsReply = WorkerReply & { lo: Float32Array; hi: Float32Array; bad: boolean; hashes?: Uint32Array };

export type HashJob = { id: number; kind: 'partition-hash'; words: Uint32Array; first: number; last: number };
export type HashReply = WorkerReply & { hashes: Uint32Array };

/** partition-bounds on one range: boundsInto, or where the job names blocks their hashes in the same pass. */
export function boundsOf(j: BoundsJob): BoundsReply {
  const { points, dim, start, end } = j;
  const lo = new Float32Array(dim).fill(Infinity);
  const hi = new Float32Array(dim).fill(-Infinity);
  let good = true;
  if (j.words === undefined) good = boundsInto(points, dim, start, end, lo, hi);
  else {
    // With the fingerprint's blocks [first, last) (block-aligned ranges: partitionWithHashes), a block at a time: the
    // points leave memory once for both (the separate hash pass read all of them again: 'fingerprint' 0.5–0.8 s of
    // the coordinator's front at 2·10^8 on the H100 x2 hosts, the workers idle meanwhile). [start, end) are the rows
    // that start in these blocks' words.
    const { words } = j;
    const first = j.first!;
    const last = j.last!;
    const hashes = new Uint32Array(2 * (last - first));
    for (let b = first; b < last; b++) {
      let a = 0x811c9dc5;
      let c = 0x01000193 ^ 0x5bd1e995;
      const blockEnd = Math.min((b + 1) * FINGERPRINT_BLOCK_WORDS, words.length);
      if (dim === 3) {
        // In one loop with the rows' bounds: the hash's two multiply chains wait on each other word after word, and the
        // compares fill that wait. Words before the block's first row start (≤ 2, a row of the block before) and
        // after its last whole row are hashed alone; a row that starts in the block and ends past it is bounded here.
        const w0 = b * FINGERPRINT_BLOCK_WORDS;
        const r0 = Math.ceil(w0 / 3);
        const r1 = Math.floor(blockEnd / 3);
        for (let i = w0; i < 3 * r0; i++) {
          const w = words[i];
          a = Math.imul(a ^ w, 0x01000193);
          c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
        }
        const state = fused3(points, words, r0, r1, lo, hi, a, c);
        a = state.a;
        c = state.c;
        if (!state.good) good = false;
        for (let i = 3 * r1; i < blockEnd; i++) {
          const w = words[i];
          a = Math.imul(a ^ w, 0x01000193);
          c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
        }
        if (3 * r1 < blockEnd && !boundsInto(points, 3, r1, r1 + 1, lo, hi)) good = false;
      } else {
        // Pieces of HASH_PIECE words, each hashed, then the bounds of the rows that start in it read back from cache.
        for (let w0 = b * FINGERPRINT_BLOCK_WORDS; w0 < blockEnd; w0 += HASH_PIECE) {
          const w1 = Math.min(w0 + HASH_PIECE, blockEnd);
          for (let i = w0; i < w1; i++) {
            const w = words[i];
            a = Math.imul(a ^ w, 0x01000193);
            c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
          }
          // (Each row once: the pieces partition the words.)
          const from = Math.ceil(w0 / dim);
          const to = Math.ceil(w1 / dim);
          if (from < to && !boundsInto(points, dim, from, to, lo, hi)) good = false;
        }
      }
      hashes[2 * (b - first)] = a;
      hashes[2 * (b - first) + 1] = c;
    }
    return { id: j.id, lo, hi, bad: !good, hashes };
  }
  return { id: j.id, lo, hi, bad: !good };
}

/**
 * Rows [start, end) of 3D points folded into `lo`/`hi` as boundsInto does, and their words into the block hash state
 * (a, c) as hashBlocks does: the new state, and whether every coordinate was finite and within ±MAX_COORDINATE.
 */
function fused3(
  points: Float32Array,
  words: Uint32Array,
  start: number,
  end: number,
  lo: Float32Array,
  hi: Float32Array,
  a: number,
  c: number,
): { a: number; c: number; good: boolean } {
  let finite = 0;
  let m0 = lo[0];
  let m1 = lo[1];
  let m2 = lo[2];
  let x0 = hi[0];
  let x1 = hi[1];
  let x2 = hi[2];
  for (let o = 3 * start; o < 3 * end; o += 3) {
    const u = words[o];
    const v = words[o + 1];
    const w = words[o + 2];
    a = Math.imul(a ^ u, 0x01000193);
    c = Math.imul(c ^ u, 0x5bd1e995) ^ (c >>> 15);
    a = Math.imul(a ^ v, 0x01000193);
    c = Math.imul(c ^ v, 0x5bd1e995) ^ (c >>> 15);
    a = Math.imul(a ^ w, 0x01000193);
    c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
    const x = points[o];
    const y = points[o + 1];
    const z = points[o + 2];
    finite += x - x + (y - y) + (z - z);
    if (x <= m0) m0 = minF(m0, x);
    if (x >= x0) x0 = maxF(x0, x);
    if (y <= m1) m1 = minF(m1, y);
    if (y >= x1) x1 = maxF(x1, y);
    if (z <= m2) m2 = minF(m2, z);
    if (z >= x2) x2 = maxF(x2, z);
  }
  lo[0] = m0;
  lo[1] = m1;
  lo[2] = m2;
  hi[0] = x0;
  hi[1] = x1;
  hi[2] = x2;
  let good = finite === 0;
  for (let d = 0; d < 3; d++) if (lo[d] < -MAX_COORDINATE || hi[d] > MAX_COORDINATE) good = false;
  return { a, c, good };
}

/** Words a piece of the fused bounds-and-hash pass (boundsOf above): 192 KiB, read back from L2. */
const HASH_PIECE = 3 << 14;

/**
 * Folds rows [start, end) into the per-axis minima `lo` and maxima `hi` (minF/maxF: −0 below +0); false when a
 * coordinate is not finite or beyond ±MAX_COORDINATE (the caller then runs checkCoordinates for its error).
 * A new minimum or maximum is rare after the first rows, so each coordinate costs two compares that fail (minF/maxF
 * only where one holds, in the same call order as folding every row: the same values), and finiteness is one sum of
 * x − x (0 for a finite x, NaN for NaN and ±∞) checked once. On the 2-core development machine (10^7 3D rows, one
 * thread, the least of 12 runs): 15–20 ns a row with minF, maxF and the |x| test on every coordinate, 4–6 ns so.
 */
function boundsInto(
  points: Float32Array,
  dim: number,
  start: number,
  end: number,
  lo: Float32Array,
  hi: Float32Array,
): boolean {
  let finite = 0;
  if (dim === 3) {
    // One pass over the rows (per-axis passes read every row dim times: 0.6–0.8 s at 2·10^8 on 16 threads of the
    // H100 x2 hosts, session 15).
    let m0 = lo[0];
    let m1 = lo[1];
    let m2 = lo[2];
    let x0 = hi[0];
    let x1 = hi[1];
    let x2 = hi[2];
    for (let o = 3 * start; o < 3 * end; o += 3) {
      const a = points[o];
      const b = points[o + 1];
      const c = points[o + 2];
      finite += a - a + (b - b) + (c - c);
      if (a <= m0) m0 = minF(m0, a);
      if (a >= x0) x0 = maxF(x0, a);
      if (b <= m1) m1 = minF(m1, b);
      if (b >= x1) x1 = maxF(x1, b);
      if (c <= m2) m2 = minF(m2, c);
      if (c >= x2) x2 = maxF(x2, c);
    }
    lo[0] = m0;
    lo[1] = m1;
    lo[2] = m2;
    hi[0] = x0;
    hi[1] = x1;
    hi[2] = x2;
  } else {
    for (let a = 0; a < dim; a++) {
      let mn = lo[a];
      let mx = hi[a];
      for (let o = start * dim + a; o < end * dim; o += dim) {
        const x = points[o];
        finite += x - x;
        if (x <= mn) mn = minF(mn, x);
        if (x >= mx) mx = maxF(mx, x);
      }
      lo[a] = mn;
      hi[a] = mx;
    }
  }
  if (finite !== 0) return false;
  for (let a = 0; a < dim; a++) if (lo[a] < -MAX_COORDINATE || hi[a] > MAX_COORDINATE) return false;
  return true;
}

/** Blocks first … last − 1 of `words`, two 32-bit FNV-1a style hashes each (contentId's mix, per block). */
export function hashBlocks(j: HashJob): HashReply {
  const { words, first, last } = j;
  const hashes = new Uint32Array(2 * (last - first));
  for (let b = first; b < last; b++) {
    let a = 0x811c9dc5;
    let c = 0x01000193 ^ 0x5bd1e995;
    const end = Math.min((b + 1) * FINGERPRINT_BLOCK_WORDS, words.length);
    for (let i = b * FINGERPRINT_BLOCK_WORDS; i < end; i++) {
      const w = words[i];
      a = Math.imul(a ^ w, 0x01000193);
      c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
    }
    hashes[2 * (b - first)] = a;
    hashes[2 * (b - first) + 1] = c;
  }
  return { id: j.id, hashes };
}
