/**
 * The contraction's block passes (contract.threads.ts tells the whole; issue 20, session 19): the edges radix-
 * partitioned by block of 2^shift rows (contract-tally, contract-scatter), then each thread's degrees, XORs and peel
 * block by block in the cache (contract-degree). Jobs of contract.threads.ts's table.
 */
import type { WorkerReply } from '../host/threads.js';

/** Word 0's mark of a peeled row (its top bit: a degree count never reaches it). */
export const PEELED = 0x80000000;

/** Omit the job's kind and id (the functions run here as well as on workers). */
type Job<J> = Omit<J, 'kind' | 'id'> & { id?: number };

/** Rows a block holds at most: a near entry packs its two rows' offsets in their block in 16 bits each. */
const MAX_BLOCK_BITS = 16;
/** Blocks a thread takes at least (below, blocks of fewer rows: small partitions keep every thread busy). */
const BLOCKS_PER_THREAD = 4;

/** log2 of the rows of a block for n rows on `threads` threads: 16, less where that left a thread few blocks. */
export function blockBits(n: number, threads: number): number {
  let b = MAX_BLOCK_BITS;
  while (b > 0 && Math.ceil(n / 2 ** b) < BLOCKS_PER_THREAD * threads) b--;
  return b;
}

/**
 * Edges [start, end) in `blocks` blocks of 2^shift rows; `tally`: a row of 2 × blocks words a range, this range's at
 * `at` (its near counts, then its far ones; then the scatter's cursors).
 */
type EdgeJob = {
  id: number;
  lo: Uint32Array;
  hi: Uint32Array;
  start: number;
  end: number;
  shift: number;
  blocks: number;
  tally: Uint32Array;
  at: number;
};
export type TallyJob = EdgeJob & { kind: 'contract-tally' };
export type ScatterJob = EdgeJob & { kind: 'contract-scatter'; near: Uint32Array; far: Uint32Array };
/**
 * Blocks [first, last) of n rows: `bounds` (2 × (blocks + 1) words) holds where each block's entries begin in `near`
 * (words 0 … blocks, the last the end) and in `far` (in entries of 2 words: words blocks + 1 …).
 */
export type DegreeJob = {
  id: number;
  kind: 'contract-degree';
  records: Uint32Array;
  near: Uint32Array;
  far: Uint32Array;
  bounds: Uint32Array;
  shift: number;
  blocks: number;
  first: number;
  last: number;
  n: number;
};
/** contract-tally on edges [start, end) (contract.threads.ts's comment). */
export function contractTally(j: Job<TallyJob>): WorkerReply {
  const { lo, hi, start, end, shift, blocks, tally, at } = j;
  const far = at + blocks;
  tally.fill(0, at, at + 2 * blocks);
  for (let e = start; e < end; e++) {
    const a = lo[e] >>> shift;
    const b = hi[e] >>> shift;
    if (a === b) tally[at + a]++;
    else {
      tally[far + a]++;
      tally[far + b]++;
    }
  }
  return { id: j.id ?? 0 };
}

/**
 * contract-scatter on edges [start, end): a near edge as one word | hi − base (16 bits) | lo − base (16 bits) | (base:
 * its block's first row), a far edge as two entries (row, other row) of 2 words, one in each end's block; each at its
 * block's cursor in this range's row of `tally`. Memory: 4 bytes a near edge (the caller's `split`, free until the safe
 * list), 16 a far one (2.5 % of the edges at 4·10^6 Morton rows; all of them where the rows are in no spatial order).
 */
export function contractScatter(j: Job<ScatterJob>): WorkerReply {
  const { lo, hi, start, end, shift, blocks, tally, at, near, far } = j;
  const fa = at + blocks;
  const mask = 2 ** shift - 1;
  for (let e = start; e < end; e++) {
    const u = lo[e];
    const v = hi[e];
    const a = u >>> shift;
    const b = v >>> shift;
    if (a === b) near[tally[at + a]++] = ((v & mask) << 16) | (u & mask);
    else {
      const p = 2 * tally[fa + a]++;
      far[p] = u;
      far[p + 1] = v;
      const q = 2 * tally[fa + b]++;
      far[q] = v;
      far[q + 1] = u;
    }
  }
  return { id: j.id ?? 0 };
}

/** contract-degree on blocks [first, last), and the peel within their rows (contract.threads.ts's comment). */
export function contractDegree(j: Job<DegreeJob>): WorkerReply {
  const { records: u32, near, far, bounds, shift, blocks, first, last, n } = j;
  const f32 = new Float32Array(u32.buffer, u32.byteOffset, u32.length);
  const start = Math.min(n, first * 2 ** shift);
  const end = Math.min(n, last * 2 ** shift);
  for (let k = first; k < last; k++) {
    const base = k * 2 ** shift;
    const stop = Math.min(n, base + 2 ** shift);
    for (let r = base; r < stop; r++) {
      u32[4 * r] = 0;
      u32[4 * r + 3] = 0;
    }
    for (let i = bounds[k], to = bounds[k + 1]; i < to; i++) {
      const w = near[i];
      const u = base + (w & 0xffff);
      const v = base + (w >>> 16);
      u32[4 * u] += 2;
      u32[4 * u + 3] ^= v;
      u32[4 * v] += 2;
      u32[4 * v + 3] ^= u;
    }
    for (let i = 2 * bounds[blocks + 1 + k], to = 2 * bounds[blocks + 2 + k]; i < to; i += 2) {
      const r = far[i];
      u32[4 * r] += 2;
      u32[4 * r + 3] ^= far[i + 1];
    }
    // The block's leaves (marked as they are met) while its records are in the cache, on the rows whose degrees are
    // whole (this block's and the range's blocks before it); then the leaves that waited for a later block.
    const span = stop - start;
    for (let r = base; r < stop; r++) {
      if (u32[4 * r] === 2 && f32[4 * r + 1] === Infinity) {
        u32[4 * r] = 3;
        peelChain(u32, f32, r, start, span);
      }
    }
  }
  for (let r = start; r < end; r++) if (u32[4 * r] === 3) peelChain(u32, f32, r, start, end - start);
  return { id: j.id ?? 0 };
}

/**
 * Peels from the marked leaf x along the tree with plain loads and stores while the next row is in
 * [start, start + span); a leaf whose sole neighbour is not stays marked (word 0 = 3).
 */
function peelChain(u32: Uint32Array, f32: Float32Array, x: number, start: number, span: number): void {
  for (;;) {
    const p = u32[4 * x + 3];
    if ((p - start) >>> 0 >= span) return;
    u32[4 * x] = PEELED;
    u32[4 * p + 3] ^= x;
    const w = u32[4 * p] - 2;
    // p is now a leaf when it had two neighbours left (an even word: a marked row's is odd); a terminal stays.
    if (w !== 2 || f32[4 * p + 1] !== Infinity) {
      u32[4 * p] = w;
      return;
    }
    u32[4 * p] = 3;
    x = p;
  }
}

/**
 * contract-tally's counts (a row of 2 × blocks words a range) turned into the scatter's cursors in place, block after
 * block and within a block range after range; `bounds` (contract-degree's), each block's first near and far entry,
 * and the far entries' count.
 */
export function tallyToCursors(tally: Uint32Array, blocks: number): { bounds: Uint32Array; far: number } {
  const bounds = new Uint32Array(new SharedArrayBuffer(8 * (blocks + 1)));
  let near = 0;
  let far = 0;
  for (let b = 0; b < blocks; b++) {
    bounds[b] = near;
    bounds[blocks + 1 + b] = far;
    for (let at = 0; at < tally.length; at += 2 * blocks) {
      const c = tally[at + b];
      const f = tally[at + blocks + b];
      tally[at + b] = near;
      tally[at + blocks + b] = far;
      near += c;
      far += f;
    }
  }
  bounds[blocks] = near;
  bounds[2 * blocks + 1] = far;
  return { bounds, far };
}
